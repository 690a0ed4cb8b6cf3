import ArgumentParser
import WalletCardCLI

struct ChangePUK: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "change-puk", abstract: "Set a new PUK (credentials: pin, new_puk).")
    @OptionGroup var session: SessionOptions

    func run() throws {
        try session.run("puk_changed", extra: [("new_puk", "New PUK: ", true)]) { keycard, s, _ in try keycard.changePUK(s["new_puk"]!) }
    }
}
