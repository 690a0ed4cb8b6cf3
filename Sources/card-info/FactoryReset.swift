import ArgumentParser
import WalletCardCLI
import WalletRecords

struct FactoryReset: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "factory-reset", abstract: "Wipe keys, PINs and pairings (needs --confirm).")
    @OptionGroup var readers: ReaderOptions
    @Flag(help: "Yes: erase everything on the card.") var confirm = false

    func validate() throws {
        guard confirm else { throw ValidationError("factory-reset erases the card's key, PINs and pairings: add --confirm") }
    }

    func run() throws {
        try RecordPipeline.reporting(tool: "card-info") { try $0.emit(try CardFlows.factoryReset(readers)) }
    }
}
