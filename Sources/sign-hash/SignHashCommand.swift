import ArgumentParser
import KeySources
import SigningRecords
import WalletCardCLI
import WalletRecords

@main
struct SignHashCommand: ParsableCommand {
    /// Core dumps off before anything is read: a crash must not write secrets to disk.
    static func main() {
        ProcessHardening.disableCoreDumps()
        main(nil)
    }

    static let configuration = CommandConfiguration(
        commandName: "sign-hash",
        abstract: "Offline secp256k1 signing of 32-byte hashes: ECDSA (RFC 6979, recoverable) and BIP340 Schnorr.",
        discussion: """
            Reads {"hash":"<32 bytes hex>","path":"m/44h/60h/0h/0/0"} records and writes each with \
            its signature. The key is a seed, phrase, xprv, private_key or wif — in the record, in a \
            private --key-file, on --key-fd, or a key-store entry (--wallet). Nothing secret is \
            read from arguments or the environment, and no secret field is passed through.

            Examples:
              sign-hash --key-file key.json --path "m/44h/60h/0h/0/0" --chain-id 1 \\
                < hashes.jsonl
              sign-hash --scheme schnorr --taproot --path "m/86h/0h/0h/0/0" \\
                --key-fd 3 3<key.json
              sign-hash verify < signatures.jsonl
              sign-hash recover --coin eth < signatures.jsonl
            See sign-hash(1).
            """,
        version: SatchelVersion.string,
        subcommands: [Sign.self, Verify.self, Recover.self],
        defaultSubcommand: Sign.self
    )
}
