import ArgumentParser
import WalletCardCLI
import WalletRecords

struct UnblockPIN: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unblock-pin", abstract: "Unblock a blocked PIN with the PUK (credentials: puk, new_pin).")
    @OptionGroup var session: SessionOptions

    func run() throws {
        try RecordPipeline.reporting(tool: "card-info") { pipeline in try pipeline.emit(try CardFlows.unblockPIN(session)) }
    }
}
