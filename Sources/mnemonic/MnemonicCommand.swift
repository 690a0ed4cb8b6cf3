import ArgumentParser
import WalletCardCLI
import WalletRecords

@main
struct MnemonicCommand: ParsableCommand {
    /// Core dumps off before anything is read: a crash must not write secrets to disk.
    static func main() {
        ProcessHardening.disableCoreDumps()
        main(nil)
    }

    static let configuration = CommandConfiguration(
        commandName: "mnemonic",
        abstract: "BIP39 and Monero seed phrases: generate, validate, and convert to entropy or seed.",
        discussion: """
            Reads JSON Lines on stdin (or the FILE arguments) and writes one JSON object per line \
            on stdout. A bad record becomes {"type":"error",...,"line":N} on stdout, a short note \
            on stderr, and exit status 65; the records around it are still processed. \
            Secrets are never read from arguments or the environment: phrases come in records, \
            passphrases from --passphrase-file, --passphrase-fd or --passphrase-prompt. \
            See mnemonic(1) for record formats.
            """,
        version: SatchelVersion.string,
        subcommands: [Generate.self, Validate.self, ToSeed.self, ToEntropy.self, FromEntropy.self]
    )
}
