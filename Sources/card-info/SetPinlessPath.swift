import ArgumentParser
import WalletCardCLI
import WalletKeys

struct SetPinlessPath: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set-pinless-path", abstract: "Let SIGN use this path without a PIN (empty: none).")
    @OptionGroup var session: SessionOptions
    @Option(help: ArgumentHelp("A path such as m/44h/60h/0h/0/0; \"m\" unsets it.", valueName: "path")) var path: String

    func run() throws {
        let steps = try DerivationPath(parsing: path).components
        try session.run("pinless_path_set") { keycard, _, r in
            try keycard.setPinlessPath(steps)
            r["path"] = .string(CardRecords.path(steps))
        }
    }
}
