import ArgumentParser
import WalletCardCLI

struct Unpair: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Free a pairing slot (this pairing's own by default, then its key-store entry is destroyed).")
    @OptionGroup var session: SessionOptions
    @Option(help: "Another slot to free.") var index: UInt8?

    func run() throws {
        try session.run("unpaired") { keycard, _, r in try CardFlows.unpair(keycard, session, index: index, into: &r) }
    }
}
