import ArgumentParser
import WalletCardCLI

struct RemoveKey: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove-key", abstract: "Remove the card's key.")
    @OptionGroup var session: SessionOptions

    func run() throws {
        try session.run("key_removed") { keycard, _, _ in try keycard.removeKey() }
    }
}
