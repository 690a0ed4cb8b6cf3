import ArgumentParser
import WalletCardCLI
import WalletRecords

struct Initialize: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init", abstract: "Set PIN, PUK, duress PIN and pairing password on a new card (INIT, 58-byte form).")
    @OptionGroup var readers: ReaderOptions
    @OptionGroup var credentials: CredentialOptions
    @Option(help: "PIN tries before it blocks (2–10).") var pinRetries: UInt8 = 3
    @Option(help: "PUK tries before the card is lost (3–12).") var pukRetries: UInt8 = 5

    func validate() throws {
        guard (2...10).contains(pinRetries) else { throw ValidationError("--pin-retries must be 2 to 10") }
        guard (3...12).contains(pukRetries) else { throw ValidationError("--puk-retries must be 3 to 12") }
    }

    func run() throws {
        try RecordPipeline.reporting(tool: "card-info") {
            try $0.emit(try CardFlows.initialize(readers, credentials: credentials, pinRetries: pinRetries, pukRetries: pukRetries))
        }
    }
}
