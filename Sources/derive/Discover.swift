import ArgumentParser
import WalletCardCLI
import DeriveRecords
import KeySources
import WalletCore
import WalletKeys
import WalletRecords

extension DeriveCommand {
    struct Discover: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "BIP44 account discovery against a list of used addresses (no web API).",
            discussion: """
                Scans accounts 0, 1, … of --purpose/--coin: in each, the receive and change chains \
                until --gap consecutive addresses are unused. Discovery stops at the first account \
                with no used address, as BIP44 says. Used addresses come from --used FILE: one \
                address per line, or JSON records with an "address" field (derive's or scan-blocks' \
                output). Writes one record per used account (path, xpub, used counts, the next \
                unused receive and change indexes) and a final "discovery" record.
                """)

        @OptionGroup var chainOptions: ChainOptions

        @Option(help: ArgumentHelp("Addresses known to have history: plain lines or JSON records with \"address\".", valueName: "file"))
        var used: String

        @Option(help: "Consecutive unused addresses that end a chain (BIP44: 20).")
        var gap: UInt32 = 20

        @Option(help: "Accounts to look at, at most.")
        var maxAccounts: UInt32 = 100

        @OptionGroup var passphrase: PassphraseOptions
        @OptionGroup(title: "Key source") var keySource: CardKeySourceOptions
        @OptionGroup var input: InputFiles

        func validate() throws {
            guard (1...AccountDiscovery.maxGap).contains(gap) else {
                throw ValidationError("--gap must be 1 to \(AccountDiscovery.maxGap)")
            }
            guard (1...DerivationPath.hardened).contains(maxAccounts) else { throw ValidationError("--max-accounts must be 1 to 2^31") }
        }

        func run() throws {
            try chainOptions.runDerive(passphrase, keySource.source, card: keySource.card, inputs: input.files) { keys in
                let request = DiscoveryRequest(
                    chainOptions: chainOptions, discovery: AccountDiscovery(gap: gap, maxAccounts: maxAccounts),
                    used: try UsedAddresses.read(used))
                return { record, emit in
                    try request.accounts(record, keys: keys, emit: emit)
                }
            }
        }
    }
}
