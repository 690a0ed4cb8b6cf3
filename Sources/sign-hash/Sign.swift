import ArgumentParser
import WalletCardCLI
import KeySources
import SigningRecords
import WalletCore
import WalletKeys
import WalletRecords

extension SignHashCommand {
    struct Sign: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Sign each record's hash.")

        @Option(help: "ecdsa (default) or schnorr (BIP340).")
        var scheme: SigningScheme = .ecdsa

        @Flag(help: "Schnorr: sign with the BIP341 key-path tweak (a BIP86 taproot output key).")
        var taproot = false

        @Option(help: ArgumentHelp("The key's BIP32 path when a record has no \"path\".", valueName: "path"))
        var path: String?

        @Option(help: "ECDSA: write EIP-155 v = chain_id·2 + 35 + recovery id instead of 27/28.")
        var chainId: UInt64?

        @OptionGroup(title: "Key source") var keySource: CardKeySourceOptions
        @OptionGroup var passphrase: PassphraseOptions

        @Flag(help: "With --card: make each record's path the card's current key as it signs.")
        var makeCurrent = false

        @Flag(help: "With --card: sign with the card's PIN-less path (no PIN, no secure channel; see card-info set-pinless-path).")
        var pinless = false

        @OptionGroup var input: InputFiles

        func validate() throws {
            if keySource.card.card && scheme != .ecdsa { throw ValidationError("the Keycard (applet 3.x) signs ECDSA only") }
            if (makeCurrent || pinless) && !keySource.card.card { throw ValidationError("--make-current and --pinless go with --card") }
            if pinless && (makeCurrent || path != nil) {
                throw ValidationError("--pinless signs at the card's PIN-less path: no --path or --make-current")
            }
            if taproot && scheme != .schnorr { throw ValidationError("--taproot goes with --scheme schnorr") }
            if chainId != nil && scheme != .ecdsa { throw ValidationError("--chain-id goes with ECDSA") }
            // EIP-2294's bound: v = chain_id·2 + 35 + recovery id must fit in 64 bits.
            if let chainId, chainId > UInt64.max / 2 - 36 {
                throw ValidationError("--chain-id must be at most \(UInt64.max / 2 - 36) (EIP-2294)")
            }
            if let path { do { _ = try DerivationPath(parsing: path) } catch { throw ValidationError(error.message) } }
        }

        func run() throws {
            let pipeline = RecordPipeline(tool: "sign-hash")
            let reader: RecordKeys
            let runSource: KeySource?
            do {
                (reader, runSource) = try keySource.source.signingKey(
                    passphrase: passphrase, promptOnTerminal: !keySource.card.card && input.files.isEmpty)
            } catch let error as any WalletError {
                return try pipeline.fail(error).exitIfFailed()
            }
            // One card session (secure channel, PIN) for the whole batch.
            let card: CardKeys?
            do {
                if pinless {
                    // PIN-less SIGN needs neither the PIN nor the channel (nor a pairing).
                    card = CardKeys(try keySource.card.readers.keycard().keycard)
                } else {
                    card = try keySource.keys()
                }
            } catch let error as any WalletError {
                return try pipeline.fail(error).exitIfFailed()
            }
            let signer = HashSigner(scheme: scheme, taproot: taproot, path: path, chainId: chainId)
            try pipeline.run(inputs: input.files) { record in
                if let card { return try card.sign(record, path: path, makeCurrent: makeCurrent, pinless: pinless, chainId: chainId) }
                return try signer.sign(record, reader: reader, runSource: runSource)
            }.exitIfFailed()
        }
    }
}
