import ArgumentParser
import WalletCardCLI
import WalletRecords

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "info", abstract: "Readers, cards and what each Keycard says (default).")
    @OptionGroup var readers: ReaderOptions
    @OptionGroup var pairing: PairingOptions
    @OptionGroup var keyStore: KeyStoreOptions

    func run() throws {
        try RecordPipeline.reporting(tool: "card-info") { pipeline in
            try CardSurvey.run(readers, pairing: pairing, keyStore: keyStore, into: pipeline)
        }
    }
}
