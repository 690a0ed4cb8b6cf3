import ArgumentParser
import Bitcoin
import WalletCardCLI
import KeySources
import SigningQR
import QRRecords
import SigningRecords
import WalletCore
import WalletKeys
import WalletRecords
import WalletUR
import Zcash

@main
struct SignTxCommand: ParsableCommand {
    /// Core dumps off before anything is read: a crash must not write secrets to disk.
    static func main() {
        ProcessHardening.disableCoreDumps()
        main(nil)
    }

    static let configuration = CommandConfiguration(
        commandName: "sign-tx",
        abstract:
            "Offline signing of Bitcoin and Litecoin PSBTs, Zcash PCZTs, Ethereum transactions, personal messages and EIP-712 typed data, a summary first.",
        discussion: """
            Reads records and writes, for each, a summary of what is about to be signed and then the \
            signed record:
              {"psbt":"<base64>"} → psbt_summary (inputs, outputs, change, fee),
                then {"type":"psbt","psbt":"<base64>","complete":…} (with --finalize
                and every input signed, "hex": the network transaction); --in FILE
                reads a .psbt file instead
              {"pczt":"<base64>"} → pczt_summary (spends, outputs as our keys recover
                them, change, fee), then {"type":"pczt","pczt":"<base64>","signatures":n};
                --in FILE reads a .pczt file; the online wallet proves and sends it
              {"eth_tx":{"to":…,"value":…,"nonce":…,"gas":…,"chainId":1,…}}
                → eth_tx_summary, then {"type":"eth_tx","raw":"0x…","hash":"0x…",…}
              {"message":"text"} or {"message_hex":"0x…"}
                → message_signature (EIP-191 personal_sign)
              {"typed_data":{types, primaryType, domain, message}}
                → typed_data_summary, typed_data_signature (EIP-712 v4)
              QR texts, one per line as zbarcam --raw prints them (ur:crypto-psbt/…,
                ur:psbt/…, ur:zcash-pczt/…, ur:eth-sign-request/…, B$…), in any
                order, among records or alone → progress on stderr, what they carry
                signed (summary first), and the answer in the same transport: qr_part
                records (--qr-lines, --qr, --qr-dir to show them)
            A PSBT's inputs are signed where its derivation fields name our master fingerprint; a \
            PCZT's spends where they name our seed's ZIP 32 fingerprint (the key is then a seed). \
            For Ethereum the key's path is the record's "path" or --path. The key is a seed, phrase, \
            xprv or private_key in the record, a private --key-file, --key-fd, a key-store entry \
            (--wallet), or a Keycard (--card: the card signs each hash; it signs no taproot input). \
            Nothing secret is read from arguments or the environment.

            Examples:
              sign-tx --wallet main --network test --in unsigned.psbt --out signed.psbt
              sign-tx --wallet main --path "m/44h/60h/0h/0/0" < txs.jsonl
              sign-tx --key-fd 3 --confirm 3<key.json < tx.jsonl
              sign-tx --card --pairing my-card --coin ltc --in tx.psbt --out signed.psbt
              zbarcam --raw | sign-tx --wallet main --qr
            See sign-tx(1).
            """,
        version: SatchelVersion.string
    )

    @Option(help: ArgumentHelp("The key's BIP32 path when a record has no \"path\".", valueName: "path"))
    var path: String?

    @Flag(help: "Show each summary on the terminal and sign only when the answer is yes.")
    var confirm = false

    @Flag(
        help:
            "Sign nothing and need no key: pass each PSBT on as a record (and as QR parts with --qr-transport) — the online side of an air gap, which turns a wallet's PSBT into frames and the signed frames back into a PSBT."
    )
    var convert = false

    @OptionGroup(title: "PSBTs") var psbtOptions: PSBTOptions
    @OptionGroup(title: "QR codes (UR, BBQr)") var qrOptions: QRFrameOptions
    @OptionGroup(title: "Key source") var keyInput: CardKeySourceOptions
    @OptionGroup var passphrase: PassphraseOptions
    @OptionGroup var input: InputFiles

    func validate() throws {
        if let path { do { _ = try DerivationPath(parsing: path) } catch { throw ValidationError(error.message) } }
        if psbtOptions.inFile != nil && !input.files.isEmpty {
            throw ValidationError("--in reads one PSBT file; give no record files with it")
        }
        if convert && (keyInput.source.choice(card: keyInput.card.card) != .records || confirm || psbtOptions.finalize) {
            throw ValidationError("--convert signs nothing: give no key, --card, --confirm or --finalize with it")
        }
    }

    /// --convert: each PSBT (records, --in, QR parts) checked and passed on, unsigned.
    func runConvert(_ pipeline: RecordPipeline, _ qrInput: QRInput) throws {
        let transport = PSBTQR.transport(qrOptions, cameAs: nil, signing: false)
        let framed = { () throws -> Bool in try PCZTQR.framed(qrOptions, cameAsFrames: false, signing: false) }
        if let file = psbtOptions.inFile {
            return try pipeline.runOnce(JSONObject()) { record, emit in
                let bytes = try PSBTRecords.contents(of: file)
                if PCZTRecords.isPCZT(bytes) {
                    return try PCZTQR.relay(
                        try PCZTRecords.read(bytes: bytes), record: record, framed: try framed(), options: qrOptions, emit: emit)
                }
                try PSBTQR.relay(try PSBTRecords.read(bytes: bytes), record: record, transport: transport, options: qrOptions, emit: emit)
            }.exitIfFailed()
        }
        let status = pipeline.run(inputs: input.files) { record, emit in
            if let text = record["qr"]?.stringValue {
                guard let message = try qrInput.take(text, tool: pipeline.tool, diagnostics: pipeline.diagnostics) else { return }
                if PCZTQR.carries(message) {
                    return try PCZTQR.relay(
                        try PCZTQR.pczt(message), record: JSONObject(), framed: try framed(), options: qrOptions, emit: emit)
                }
                return try PSBTQR.relay(
                    try PSBT(parsing: try message.psbt()), record: JSONObject(), transport: transport, options: qrOptions, emit: emit)
            }
            if record["pczt"] != nil {
                if record["psbt"] != nil { throw RecordError.conflictingFields(["psbt", "pczt"]) }
                return try PCZTQR.relay(try PCZTRecords.pczt(record), record: record, framed: try framed(), options: qrOptions, emit: emit)
            }
            try PSBTQR.relay(try PSBTRecords.psbt(record), record: record, transport: transport, options: qrOptions, emit: emit)
        }
        try finish(pipeline, qrInput, status)
    }

    /// Parts that never made a whole message are an error: nothing of them was used.
    func finish(_ pipeline: RecordPipeline, _ qrInput: QRInput, _ status: ExitStatus) throws {
        if let unfinished = qrInput.unfinished {
            return try pipeline.fail(URError.incomplete(unfinished + ": nothing of it was \(convert ? "passed on" : "signed")"))
                .exitIfFailed()
        }
        try status.exitIfFailed()
    }

    func run() throws {
        // With --qr-lines stdout carries the bare QR parts alone; the records go to stderr.
        let pipeline = RecordPipeline(tool: "sign-tx", output: qrOptions.qrLines ? .standardError : .standardOutput)
        pipeline.textLine = QRInput.record
        let qrInput = QRInput()
        if convert { return try runConvert(pipeline, qrInput) }
        let reader: RecordKeys
        let runSource: KeySource?
        let runSeed: SecureBytes?
        let terminal: Confirmation?
        let psbts: PSBTRecords
        let card: CardKeys?
        do {
            terminal = confirm ? try Confirmation.terminal() : nil
            psbts = try PSBTRecords(options: psbtOptions)
            // One card session (secure channel, PIN) for the whole run.
            card = try keyInput.keys()
            (reader, runSource, runSeed) = try keyInput.source.signingKeys(
                passphrase: passphrase,
                promptOnTerminal: card == nil && input.files.isEmpty && psbtOptions.inFile == nil)
        } catch let error as any WalletError {
            return try pipeline.fail(error).exitIfFailed()
        }
        let cache = SigningKeyCache()
        // The run's key signs every PSBT, its nodes derived once; a record's own key, its record only.
        var runKeyring: PSBTKeyring? = card.map(CardPSBTKeys.init)
        /// The key of a record: the card's, the run's, or the record's own.
        func keySource(_ record: JSONObject, _ out: inout JSONObject) throws -> (source: KeySource?, ownKey: Bool) {
            if card != nil {
                if RecordKeys.hasKey(record) { throw RecordError.conflictingFields(["a key in the record", "--card"]) }
                return (nil, false)
            }
            let (source, ownKey) = try reader.signingSource(record, runSource: runSource, out: &out)
            return (source, ownKey)
        }
        /// An Ethereum signature: the record `make` gives for the key (the card's, the run's, or
        /// the one `keyRecord` carries), its summary first (asked about with --confirm), then
        /// the signed record, both emitted.
        func signEthereum(
            _ keyRecord: JSONObject, emit: (JSONObject) throws(CLIError) -> Void,
            _ make: (_ keys: SecpKeySource, _ withoutKey: JSONObject) throws -> JSONObject
        ) throws -> JSONObject {
            var out = keyRecord
            let (source, ownKey) = try keySource(keyRecord, &out)
            let keys: SecpKeySource = card ?? SoftwareKeys(source!, cache: cache, cacheable: !ownKey)
            let signed = try EthereumRecords.sign(try make(keys, SecretFields.removed(from: out)), path: path, keys: keys) { summary in
                try emit(summary)
                if let terminal { try terminal.ask(summary) }
            }
            try emit(signed)
            return signed
        }
        func sign(_ psbt: PSBT, _ record: JSONObject, emit: (JSONObject) throws(CLIError) -> Void) throws -> PSBT {
            var out = record
            let (source, ownKey) = try keySource(record, &out)
            let keys = try ownKey ? PSBTRecords.keyring(source!) : runKeyring ?? PSBTRecords.keyring(source!)
            if !ownKey { runKeyring = keys }
            let (signed, psbt) = try psbts.sign(psbt, record: SecretFields.removed(from: out), keys: keys) { summary in
                try emit(summary)
                if let terminal { try terminal.ask(summary) }
            }
            try emit(signed)
            return psbt
        }
        /// A PCZT signed from the seed (the record's or the run's), its summary first.
        func signPCZT(_ pczt: PCZT, _ record: JSONObject, emit: (JSONObject) throws(CLIError) -> Void) throws -> PCZT {
            if card != nil {
                throw DerivationError.unsupported(
                    "a Keycard signs no PCZT: give the seed (--wallet, --key-file, --key-fd or in the record)")
            }
            var out = record
            let seed = try PCZTRecords.seed(record, reader: reader, runSource: runSource, runSeed: runSeed, out: &out)
            let (signed, pczt) = try PCZTRecords.sign(
                pczt, record: SecretFields.removed(from: out), seed: seed, maxFee: psbtOptions.maxFee,
                allowOtherSighash: psbtOptions.allowSighash
            ) { summary in
                try emit(summary)
                if let terminal { try terminal.ask(summary) }
            }
            try emit(signed)
            return pczt
        }
        if let file = psbtOptions.inFile {
            return try pipeline.runOnce(JSONObject()) { record, emit in
                let bytes = try PSBTRecords.contents(of: file)
                if PCZTRecords.isPCZT(bytes) {
                    let signed = try signPCZT(try PCZTRecords.read(bytes: bytes), record, emit: emit)
                    if let out = psbtOptions.outFile { try PCZTRecords.write(signed, file: out) }
                    return
                }
                let signed = try sign(try PSBTRecords.read(bytes: bytes), record, emit: emit)
                if let out = psbtOptions.outFile { try PSBTRecords.write(signed, file: out) }
            }.exitIfFailed()
        }
        let status = pipeline.run(inputs: input.files) { record, emit in
            if let text = record["qr"]?.stringValue {
                guard let message = try qrInput.take(text, tool: pipeline.tool, diagnostics: pipeline.diagnostics) else { return }
                if message.transport == .ur(type: "eth-sign-request") {
                    let request = try EthSignRequest(ur: try UR(type: "eth-sign-request", cbor: message.payload))
                    let signed = try signEthereum(JSONObject(), emit: emit) { keys, _ in try EthereumQR.record(request, keys: keys) }
                    let answer = try EthereumQR.signature(signed, request: request)
                    return try qrOptions.answer(
                        try QRFrames(answer.cbor, transport: .ur(type: answer.type), fragment: qrOptions.qrFragment), emit: emit)
                }
                if PCZTQR.carries(message) {
                    let pczt = try PCZTQR.pczt(message)
                    let signed = try signPCZT(pczt, JSONObject(["pczt": .string(Base64.encode(try pczt.serialized()))]), emit: emit)
                    if try PCZTQR.framed(qrOptions, cameAsFrames: true, signing: true) { try PCZTQR.answer(signed, qrOptions, emit: emit) }
                    return
                }
                let psbt = try PSBT(parsing: try message.psbt())
                let signed = try sign(psbt, JSONObject(["psbt": .string(psbt.base64)]), emit: emit)
                if let answer = PSBTQR.transport(qrOptions, cameAs: message.transport, signing: true) {
                    try PSBTQR.answer(signed, answer, qrOptions, emit: emit)
                }
                return
            }
            let kinds = (["psbt", "pczt"] + EthereumRecords.fields).filter { record[$0] != nil }
            if kinds.count > 1 { throw RecordError.conflictingFields(kinds) }
            if record["pczt"] != nil {
                _ = try signPCZT(try PCZTRecords.pczt(record), record, emit: emit)
                return
            }
            if record["psbt"] != nil {
                _ = try sign(try PSBTRecords.psbt(record), record, emit: emit)
                return
            }
            guard try EthereumRecords.isEthereum(record) else {
                throw RecordError.missingField("psbt", expected: "a record to sign: psbt, pczt, eth_tx, message, message_hex or typed_data")
            }
            _ = try signEthereum(record, emit: emit) { _, withoutKey in withoutKey }
        }
        try finish(pipeline, qrInput, status)
    }
}
