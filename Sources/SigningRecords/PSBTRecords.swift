import ArgumentParser
import Bitcoin
import Foundation
import WalletCore
import WalletKeys
import WalletRecords
import KeySources
import WalletCardCLI
import WalletFiles

/// sign-tx's options for PSBTs.
public struct PSBTOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp("The PSBT's coin: btc or ltc (addresses in the summary, the coin type our paths must have).", valueName: "coin"),
        completion: .list(["btc", "ltc"]))
    public var coin = "btc"

    @Option(
        help: ArgumentHelp(
            "The PSBT's network: main, test, regtest or signet (mainnet and testnet are main and test).", valueName: "network"),
        completion: .list(["main", "test", "regtest", "signet"]))
    public var network = "main"

    @Option(
        name: .customLong("max-fee"),
        help: ArgumentHelp("Refuse a PSBT or PCZT whose fee is more than this many satoshis (litoshis, zatoshis).", valueName: "sats"))
    public var maxFee: UInt64?

    @Flag(
        name: .customLong("allow-sighash"),
        help: "Sign PSBT and PCZT inputs that ask for SIGHASH_NONE, SINGLE or ANYONECANPAY (named in the summary); refused otherwise.")
    public var allowSighash = false

    @Flag(help: "When every input is complete, finalize the PSBT and add the network transaction (\"hex\") to the record.")
    public var finalize = false

    @Option(
        name: .customLong("in"),
        help: ArgumentHelp("Read one PSBT or PCZT from this file (binary or base64) instead of records.", valueName: "file"))
    public var inFile: String?

    @Option(
        name: .customLong("out"),
        help: ArgumentHelp(
            "With --in: write the signed PSBT or PCZT (binary) to this file; the records still go to stdout.", valueName: "file"))
    public var outFile: String?

    @Option(
        name: .customLong("descriptor"),
        help: ArgumentHelp(
            "A multisig wallet this key is a cosigner of: wsh(sortedmulti(…)), wsh(multi(…)) or sh(wsh(…)), keys with their origins and /<0;1>/* (or a receive/change pair), or a file of them, one a line; its change is shown as change. Repeatable.",
            valueName: "descriptor|file"))
    public var descriptors: [String] = []

    public init() {}

    public func validate() throws {
        if outFile != nil && inFile == nil { throw ValidationError("--out writes the PSBT read by --in: give --in too") }
        do { _ = try network(for: coin) } catch { throw ValidationError(error.message) }
    }

    /// The chain network the PSBT is for.
    public func network(for coin: String) throws(DerivationError) -> BitcoinNetwork {
        guard let family = BitcoinFamilies.all.first(where: { $0.coin == coin }) else {
            throw .unsupported("--coin \(coin): PSBTs are signed for \(BitcoinFamilies.all.map { $0.coin }.joined(separator: " and "))")
        }
        return try family.network(network)
    }
}

/// sign-tx's PSBT records: `{"psbt":"<base64>"}` → a `psbt_summary` (what is spent, where it
/// goes, the fee), then `{"type":"psbt","psbt":…,"complete":…}` (and `"hex"` when finalized).
public struct PSBTRecords {
    public let network: BitcoinNetwork
    public let signer: PSBTSigner
    public let finalize: Bool

    public init(options: PSBTOptions) throws {
        network = try options.network(for: options.coin)
        var signer = PSBTSigner(allowOtherSighash: options.allowSighash, maxFee: options.maxFee, coinType: network.coin.slip44)
        signer.wallets = try Self.wallets(options.descriptors)
        self.signer = signer
        finalize = options.finalize
    }

    /// --descriptor's wallets: each value a descriptor, or a file of them (one a line; blank
    /// lines and # comments skipped). A receive/change pair (…/0/* and …/1/*, as derive account
    /// writes them) is one wallet: the change descriptor alone says the change.
    public static func wallets(_ given: [String]) throws -> [MultisigDescriptor] {
        var texts = [String]()
        for value in given {
            let trimmed = value.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("wsh(") || trimmed.hasPrefix("sh(") {
                texts.append(trimmed)
                continue
            }
            guard let data = FileManager.default.contents(atPath: value) else {
                throw CLIError.cannotOpen(
                    path: value,
                    reason: FileManager.default.fileExists(atPath: value)
                        ? "not readable" : "no such file (nor a descriptor: wsh(…) or sh(wsh(…)))")
            }
            texts += String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        }
        return try texts.map { text throws(DerivationError) in try MultisigDescriptor(parsing: text) }
    }

    /// The keys a key source signs PSBTs with: a seed's master key, or an extended private key
    /// (derivations then name its own fingerprint).
    public static func keyring(_ source: KeySource) throws -> BIP32Keyring {
        switch source {
        case .bip32(let key, _, _): return try BIP32Keyring(root: key)
        case .single:
            throw DerivationError.unsupported(
                "a lone private key has no BIP32 fingerprint for a PSBT to name: give the phrase, seed or xprv")
        case .chain: throw DerivationError.unsupported("this key does not sign Bitcoin-family transactions")
        }
    }

    /// Reads a PSBT from a record's "psbt" (base64) field.
    public static func psbt(_ record: JSONObject) throws -> PSBT {
        try PSBT(base64: record.string("psbt", expected: "a PSBT in base64"))
    }

    /// Signs one PSBT: `confirm` gets the summary record first and may refuse by throwing.
    public func sign(
        _ psbt: PSBT, record: JSONObject, keys: PSBTKeyring, confirm: (JSONObject) throws -> Void
    ) throws -> (record: JSONObject, psbt: PSBT) {
        var (signed, report) = try signer.sign(psbt, keys: keys) { try confirm(summary($0)) }
        var out = record
        out["type"] = .string("psbt")
        var network: BitcoinTx?
        if finalize && report.complete {
            signed = try PSBTFinalizer.finalized(signed)
            network = try PSBTFinalizer.extract(signed)
        }
        out["psbt"] = .string(signed.base64)
        out["complete"] = .bool(report.complete)
        out["signed_inputs"] = .array(report.inputs.filter { $0.signed > 0 }.map { .number(String($0.index)) })
        // The txid only of the finished transaction: a legacy or nested input's scriptSig is in it.
        if let network {
            out["txid"] = .string(Bitcoin.display(network.txid))
            out["hex"] = .string(Hex.encode(network.serialized()))
        }
        return (out, signed)
    }

    /// A PSBT file as wallets write them: binary (starting with the magic bytes), or base64 text.
    public static func read(file path: String) throws -> PSBT { try read(bytes: try contents(of: path)) }

    /// A file's bytes, for --in (a PSBT or a PCZT).
    public static func contents(of path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError.cannotOpen(path: path, reason: FileManager.default.fileExists(atPath: path) ? "not readable" : "no such file")
        }
        return [UInt8](data)
    }

    /// A PSBT as a file holds it: binary (the magic bytes first), or base64 text.
    public static func read(bytes: [UInt8]) throws -> PSBT {
        if bytes.starts(with: PSBT.magic) { return try PSBT(parsing: bytes) }
        return try PSBT(base64: String(decoding: bytes, as: UTF8.self))
    }

    /// Writes the signed PSBT, binary, by a rename: a reader never sees half of it.
    /// The signed PSBT replaces the file whole (AtomicFile: killed midway, the old file stays and
    /// no temporary is left for long); 0666 less the umask, as a file a shell makes.
    public static func write(_ psbt: PSBT, file path: String) throws {
        do { try AtomicFile.write(psbt.serialized(), to: path, mode: 0o666) } catch {
            throw CLIError.writeFailed(reason: error.reason)
        }
    }

    /// The summary record: every input and output, the fee and its rate.
    public func summary(_ r: PSBTReport) -> JSONObject {
        var s = JSONObject()
        s["type"] = .string("psbt_summary")
        s["chain"] = .string(network.chainName)
        s["network"] = .string(network.coin.network)
        s["psbt_version"] = .number(String(r.version))
        s["inputs"] = .array(
            r.inputs.map { i in
                var o = JSONObject()
                o["index"] = .number(String(i.index))
                o["txid"] = .string(Bitcoin.display(i.previousTxID))
                o["vout"] = .number(String(i.previousIndex))
                o["amount"] = .string(String(i.amount))
                o["kind"] = .string(i.kind)
                if let a = network.address(of: i.script) { o["address"] = .string(a) }
                o["ours"] = .bool(i.ours)
                if i.ours { o["paths"] = .array(i.paths.map { .string($0) }) }
                if let t = i.sighash { o["sighash"] = .string(PSBTSigner.sighashName(t)) }
                o["complete"] = .bool(i.complete)
                return .object(o)
            })
        s["outputs"] = .array(
            r.outputs.map { out in
                var o = JSONObject()
                o["index"] = .number(String(out.index))
                o["amount"] = .string(String(out.amount))
                if let sp = out.silentPayment {
                    // The address paid, beside the script the signer computed from the shares.
                    let address = SilentPaymentAddress(scanKey: sp.scanKey, spendKey: sp.spendKey, testnet: network.coin.network != "main")
                    o["silent_payment"] = .string(address.description)
                    if let label = sp.label { o["label"] = .number(String(label)) }
                    if sp.script == nil { o["script_pending"] = .bool(true) }
                }
                if let a = network.address(of: out.script) {
                    o["address"] = .string(a)
                } else if o["script_pending"] == nil {
                    o["script"] = .string(Hex.encode(out.script))
                }
                o["change"] = .bool(out.change)
                if out.change { o["paths"] = .array(out.paths.map { .string($0) }) }
                if let w = out.wallet { o["wallet"] = .number(String(w)) }
                return .object(o)
            })
        let totalIn = r.inputs.reduce(UInt64(0)) { $0 + $1.amount }
        s["input_total"] = .string(String(totalIn))
        s["output_total"] = .string(String(totalIn - r.fee))
        s["sent"] = .string(String(r.outputs.filter { !$0.change }.reduce(UInt64(0)) { $0 + $1.amount }))
        s["fee"] = .string(String(r.fee))
        if r.silentPaymentsPending { s["silent_payments_pending"] = .bool(true) }
        if let vsize = r.vsize {
            s["vsize"] = .number(String(vsize))
            s["vsize_estimated"] = .bool(r.vsizeEstimated)
            // sat/vB with two decimals, rounded down: the rate is never overstated.
            // In two parts: fee × 100 overflows past 1.8·10^17 satoshis (which a PSBT can claim).
            let size = UInt64(vsize)
            let whole = r.fee / size, hundredths = r.fee % size * 100 / size
            s["fee_rate"] = .string("\(whole).\(hundredths < 10 ? "0" : "")\(hundredths)")
        }
        // The wallets told, each cosigner named: whose keys a change output also needs.
        if !signer.wallets.isEmpty {
            s["wallets"] = .array(
                signer.wallets.map { w in
                    var o = JSONObject()
                    o["threshold"] = .number(String(w.threshold))
                    o["keys"] = .number(String(w.cosigners.count))
                    o["cosigners"] = .array(
                        w.cosigners.map { c in
                            var k = JSONObject()
                            k["fingerprint"] = .string(Hex.encode(c.fingerprint))
                            k["path"] = .string(c.path.description)
                            k["xpub"] = .string(c.key.serialized(version: c.key.version))
                            return .object(k)
                        })
                    return .object(o)
                })
        }
        let unusual = Set(r.inputs.compactMap(\.sighash).filter { $0 != Sighash.all && $0 != Sighash.taprootDefault })
        if !unusual.isEmpty { s["sighash_warning"] = .array(unusual.sorted().map { .string(PSBTSigner.sighashName($0)) }) }
        return s
    }
}
