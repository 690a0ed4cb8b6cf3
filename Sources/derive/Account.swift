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

        @Flag(help: "Monero: add the private view key (for a view-only wallet), not the spend key.")
        var viewOnly = false

        @Option(
            help: ArgumentHelp(
                "Also write the account as a UR (\"ur\") for a watch-only wallet to scan: crypto-account (every script type at once; Sparrow, Keystone-style wallets), crypto-hdkey (the key with its origin; MetaMask with --coin eth) or crypto-output (the receive descriptor).",
                valueName: "type"),
            completion: .list(AccountURType.allCases.map(\.rawValue)))
        var ur: AccountURType?

        @Flag(help: "With --ur: show the UR as a QR code on the terminal (/dev/tty), beside the records on stdout.")
        var qr = false

        @Option(
            help: ArgumentHelp(
                "With --ur: write the UR's QR code as ur-FINGERPRINT.png or .svg into this directory (\"qr_file\").", valueName: "dir"))
        var qrDir: String?

        @Option(help: "Image format for --qr-dir: png or svg.", completion: .list(["png", "svg"]))
        var qrFormat: String = "png"

        @OptionGroup var passphrase: PassphraseOptions
        @OptionGroup(title: "Key source") var keySource: KeySourceOptions
        @OptionGroup var input: InputFiles

        func validate() throws {
            guard ["png", "svg"].contains(qrFormat) else { throw ValidationError("--qr-format must be png or svg") }
            if (qr || qrDir != nil) && ur == nil { throw ValidationError("--qr and --qr-dir show the account's UR: give --ur too") }
        }

        func run() throws {
            let request = AccountRequest(chainOptions: chainOptions, viewOnly: viewOnly, ur: ur)
            try chainOptions.runDerive(passphrase, keySource, inputs: input.files, fromEntry: true) { keys in
                let show = try QRSink(terminal: qr, directory: qrDir, format: qrFormat)
                return { record, emit in try emit(try show.attach(try request.account(record, keys: keys), field: "ur")) }
            }
        }
    }
}
