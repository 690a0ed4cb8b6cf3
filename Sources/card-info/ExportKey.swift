import ArgumentParser
import WalletCardCLI

struct ExportKey: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export-key",
        abstract: "The public key (or extended public key) at a path, as the card exports it.")
    @OptionGroup var session: SessionOptions
    @Option(help: ArgumentHelp("The key's path, e.g. m/44h/60h/0h/0/0.", valueName: "path")) var path: String
    @Flag(help: "Add the chain code (refused by the card inside EIP-1581, and at m).") var extended = false

    func validate() throws { _ = try CardRecords.exportPath(path, extended: extended) }

    func run() throws {
        let steps = try CardRecords.exportPath(path, extended: extended)
        try session.run("public_key") { keycard, _, r in
            CardRecords.exported(
                try keycard.exportKey(path: steps, kind: extended ? .extendedPublicKey : .publicKey), path: steps, into: &r)
        }
    }
}
