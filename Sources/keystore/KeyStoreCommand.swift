import ArgumentParser
import KeySources
import WalletRecords

@main
struct KeyStoreCommand: ParsableCommand {
    /// Core dumps off before anything is read: a crash must not write secrets to disk.
    static func main() {
        ProcessHardening.disableCoreDumps()
        main(nil)
    }

    static let configuration = CommandConfiguration(
        commandName: "keystore",
        abstract: "Satchel's encrypted key store: add, list, export, destroy entries; change their passphrase.",
        discussion: """
            Each entry (a BIP39 or Monero phrase, a seed, an xpub, or Monero view-only keys, with \
            per-chain birthday heights) is a file sealed with XChaCha20-Poly1305 under a key from \
            Argon2id. The key-store passphrase comes from --keystore-pass-file, --keystore-pass-fd \
            or a prompt. Other tools read an entry with --wallet NAME. See keystore(1).
            """,
        version: SatchelVersion.string,
        subcommands: [Add.self, List.self, Export.self, Destroy.self, Passwd.self, Birthday.self]
    )
}
