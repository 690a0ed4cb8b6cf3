import ArgumentParser
import WalletCardCLI
import DeriveRecords
import KeySources
import QRRecords
import WalletCore
import WalletKeys
import WalletRecords

extension DeriveCommand {
    struct Addresses: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Receive (and change) addresses with their public keys.",
            discussion: """
                Presets: m/purpose'/coin'/account'/change/index for --count indexes from --index. \
                From an account xpub: change/index below it. --path takes any BIP32 path, with a \
                range in its last step (m/84h/0h/0h/0/0-19); from an extended key the path is \
                relative to that key (m is the key itself).
                """)

        @OptionGroup var chainOptions: ChainOptions

        @Option(help: "Chain: 0 receive, 1 change, or both.", completion: .list(["0", "1", "both"]))
        var change: String = "0"

        @Option(help: "First address index (Monero: first minor index).")
        var index: UInt32 = 0

        @Option(help: "How many addresses per chain.")
        var count: UInt32 = 1

        @Option(
            help: ArgumentHelp(
                "A BIP32 path instead of the presets; ' or h marks hardened; the last step may be a range a-b.", valueName: "path"))
        var path: String?

        @Option(
            help: ArgumentHelp(
                "Monero: also write the integrated address of the primary address with this 8-byte payment id (hex).", valueName: "hex"))
        var paymentId: String?

        @Option(
            help: ArgumentHelp(
                "Silent payments (--purpose 352): the address with label N (1 to 99999; 0 is change and never handed out). Repeatable.",
                valueName: "N"))
        var label: [UInt32] = []

        @OptionGroup var images: QRImageOptions

        @OptionGroup var passphrase: PassphraseOptions
        @OptionGroup(title: "Key source") var keySource: CardKeySourceOptions
        @OptionGroup var input: InputFiles

        func validate() throws {
            guard ["0", "1", "both"].contains(change) else { throw ValidationError("--change must be 0, 1 or both") }
            guard count >= 1, UInt64(index) + UInt64(count) <= UInt64(DerivationPath.hardened) else {
                throw ValidationError("--index and --count must stay within 0..2^31-1, with --count at least 1")
            }
            if let path {
                do { _ = try DerivationPath.parseRange(path) } catch { throw ValidationError(error.message) }
            }
            if label.contains(0) { throw ValidationError("--label 0 is BIP352's change label: it is never handed out") }
            if let big = label.first(where: { $0 > SilentPaymentRequest.maxLabel }) {
                throw ValidationError(
                    "--label \(big): at most \(SilentPaymentRequest.maxLabel), the highest label scan-blocks --sp-labels looks for (a payment to a higher one would never be found)"
                )
            }
            if let paymentId, (try? Hex.decode(paymentId))?.count != 8 {
                throw ValidationError("--payment-id is 8 bytes of hex (16 digits)")
            }
        }

        func run() throws {
            try chainOptions.runDerive(passphrase, keySource.source, card: keySource.card, inputs: input.files) { keys in
                let show = try images.sink()
                let request = AddressRequest(
                    chainOptions: chainOptions, chains: change == "both" ? [0, 1] : [UInt32(change)!],
                    index: index, count: count, path: path, paymentId: paymentId, labels: label)
                // With --wallet or --card the key is there: no input records are read.
                return { record, emit in
                    try request.addresses(record, keys: keys) {
                        out throws(CLIError) in try emit(try show.attach(out))
                    }
                }
            }
        }
    }
}
