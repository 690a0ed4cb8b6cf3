import ArgumentParser
import WalletCardCLI
import WalletCore

struct GenerateKey: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate-key",
        abstract: "Make a random master key on the card (no phrase exists for it: back it up another way).")
    @OptionGroup var session: SessionOptions

    func run() throws {
        try session.run("key_generated") { keycard, _, r in r["key_uid"] = .string(Hex.encode(try keycard.generateKey())) }
    }
}
