import ArgumentParser
import WalletCardCLI
import DeriveRecords
import KeySources
import QRRecords
import WalletCore
import WalletRecords

extension DeriveCommand {
    struct Account: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The account's extended public key, fingerprints and output descriptors (Monero: primary address and keys).",
            discussion: """
                Writes one record per input: path, xpub (and its SLIP-132 form), master and parent \
                fingerprints, depth, and Bitcoin Core descriptors for the receive and change chains. \
                --private adds the xprv; for Monero --view-only adds the private view key alone.
                """)

        @OptionGroup var chainOptions: ChainOptions

        @Flag(
            help:
                "Monero: add the private view key (for a view-only wallet), not the spend key. Silent payments: add the scan private key (sp_scan_key) and sp_spend_public_key."
        )
        var viewOnly = false

        @Option(
            help: ArgumentHelp(
                "Also write the account as a UR (\"ur\") for a watch-only wallet to scan: crypto-account (every script type at once; Sparrow, Keystone-style wallets), crypto-hdkey (the key with its origin; MetaMask with --coin eth), crypto-output (the receive descriptor), or zcash-accounts (--coin zec --pool orchard or sapling, from the seed: its ZIP 32 fingerprint, the UFVK and the account, which Zashi/Zodl read to pair with this signer).",
                valueName: "type"),
            completion: .list(AccountURType.allCases.map(\.rawValue)))
        var ur: AccountURType?

        @OptionGroup var images: QRImageOptions

        @OptionGroup var passphrase: PassphraseOptions
        @OptionGroup(title: "Key source") var keySource: KeySourceOptions
        @OptionGroup var input: InputFiles

        func validate() throws {
            if images.isGiven && ur == nil { throw ValidationError("--qr and --qr-dir show the account's UR: give --ur too") }
        }

        func run() throws {
            let request = AccountRequest(chainOptions: chainOptions, viewOnly: viewOnly, ur: ur)
            try chainOptions.runDerive(passphrase, keySource, inputs: input.files, fromEntry: true) { keys in
                let show = try images.sink()
                return { record, emit in try emit(try show.attach(try request.account(record, keys: keys), field: "ur")) }
            }
        }
    }
}
