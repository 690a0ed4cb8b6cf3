import ArgumentParser
import WalletCardCLI
import KeySources
import WalletRecords

struct Pair: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Pair with the card and keep the pairing in the key store (never printed).")
    @OptionGroup var readers: ReaderOptions
    @OptionGroup var credentials: CredentialOptions
    @Option(help: ArgumentHelp("The key-store entry to create for the pairing.", valueName: "name")) var store: String
    @OptionGroup var keyStore: KeyStoreOptions

    func run() throws {
        try RecordPipeline.reporting(tool: "card-info") {
            try $0.emit(try CardFlows.pairAndKeep(readers, credentials: credentials, keyStore: keyStore, store: store))
        }
    }
}
