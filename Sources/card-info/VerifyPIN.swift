import ArgumentParser
import WalletCardCLI

struct VerifyPIN: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify-pin", abstract: "Check the PIN; a wrong one says how many tries are left.")
    @OptionGroup var session: SessionOptions

    func run() throws {
        try session.run("pin_verified") { keycard, _, r in CardRecords.retries(try keycard.status(), into: &r) }
    }
}
