import ArgumentParser
import WalletCardCLI
import DeriveRecords
import KeySources
import WalletCore
import WalletRecords

extension DeriveCommand {
    struct Account: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The account's extended public key, fingerprints and output descriptors (Monero: primary address and keys).",
            discussion: """
                Writes one record per input: path, xpub (and its SLIP-132 form), master and parent \
                fingerprints, depth, and Bitcoin Core descriptors for the receive and change chains. \
                --private adds the xprv; for Monero --view-only adds the private view key alone.
                """)

        @OptionGroup var chainOptions: ChainOptions

        @Flag(help: "Monero: add the private view key (for a view-only wallet), not the spend key.")
        var viewOnly = false

        @OptionGroup var passphrase: PassphraseOptions
        @OptionGroup(title: "Key source") var keySource: KeySourceOptions
        @OptionGroup var input: InputFiles

        func run() throws {
            let request = AccountRequest(chainOptions: chainOptions, viewOnly: viewOnly)
            try chainOptions.runDerive(passphrase, keySource, inputs: input.files, fromEntry: true) { keys in
                { record, emit in try emit(try request.account(record, keys: keys)) }
            }
        }
    }
}
