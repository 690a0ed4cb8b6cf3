import ArgumentParser
import KeySources
import WalletCardCLI
import WalletRecords

@main
struct DeriveCommand: ParsableCommand {
    /// Core dumps off before anything is read: a crash must not write secrets to disk.
    static func main() {
        ProcessHardening.disableCoreDumps()
        main(nil)
    }

    static let configuration = CommandConfiguration(
        commandName: "derive",
        abstract: "Keys and receive addresses from a seed, a phrase, an extended key, Monero keys or Zcash viewing keys.",
        discussion: """
            Reads JSON Lines: {"mnemonic":"..."}, {"seed":"<hex>"}, {"xpub":"..."} or {"xprv":"..."} \
            (any SLIP-132 kind), Monero {"spend_key":"..."} / {"view_key":"...","public_spend_key":"..."}, \
            or Zcash {"ufvk":"uview1..."} / {"uivk":"uivk1..."} / {"extended_full_viewing_key":"zxviews1..."}. \
            Writes one record per address (or per account with `derive account`). Secret input \
            fields are never passed through; private keys are written only with --private. \
            See derive(1).

            Examples, one per kind of input:
              # a BIP39 phrase; a new wallet, kept first; a seed
              derive --purpose 84 --count 3 < w.jsonl
              mnemonic generate --store w --confirm && derive --wallet w --count 3
              mnemonic to-seed < w.jsonl | derive --coin eth --count 5
              # an account xpub/zpub; a bare extended key
              derive account --purpose 84 < w.jsonl | derive --purpose 84 --count 20
              echo '{"zpub":"zpub6r…"}' | derive --change both --count 5
              # a Monero seed; Monero view-only keys
              derive --account 1 --count 3 < xmr.jsonl
              derive account --view-only < xmr.jsonl | derive --count 5
              # Zcash zs1 and u1 addresses; Orchard-only u1 addresses; from a Zcash UFVK
              derive --coin zec --pool sapling --count 3 < w.jsonl
              derive --coin zec --pool orchard --count 3 < w.jsonl
              derive account --coin zec --pool sapling < w.jsonl | derive --count 5
            """,
        version: SatchelVersion.string,
        subcommands: [Addresses.self, Account.self, Discover.self],
        defaultSubcommand: Addresses.self
    )
}
