import ArgumentParser
import WalletCLI
import WalletCore

extension DeriveCommand {
    struct Account: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The account's extended public key, fingerprints and output descriptors (Monero: primary address and keys).",
            discussion: """
            Writes one record per input: path, xpub (and its SLIP-132 form), master and parent
            fingerprints, depth, and Bitcoin Core descriptors for the receive and change chains.
            --private adds the xprv; for Monero --view-only adds the private view key alone.
            """)

        @OptionGroup var chainOptions: ChainOptions

        @Flag(help: "Monero: add the private view key (for a view-only wallet), not the spend key.")
        var viewOnly = false

        @OptionGroup var passphrase: PassphraseOptions
        @OptionGroup var walletOptions: WalletOptions
        @OptionGroup var input: InputFiles

        func run() throws {
            let pipeline = RecordPipeline(tool: "derive")
            pipeline.phraseLines = true
            let keys: RecordKeys, walletSource: KeySource?, walletRecord: JSONObject
            do { (keys, walletSource, walletRecord) = try chainOptions.keyInputs(passphrase, walletOptions) } catch let error as any WalletError {
                return try pipeline.fail(error).exitIfFailed()
            }
            let request = AccountRequest(chainOptions: chainOptions, viewOnly: viewOnly)
            let body = { (record: JSONObject, emit: (JSONObject) throws(CLIError) -> Void) throws in
                try emit(try request.account(record, keys: keys, walletSource: walletSource))
            }
            try (walletSource != nil ? pipeline.runOnce(walletRecord, body) : pipeline.run(inputs: input.files, body)).exitIfFailed()
        }
    }
}
