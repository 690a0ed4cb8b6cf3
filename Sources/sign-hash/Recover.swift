import ArgumentParser
import KeySources
import SigningRecords
import WalletRecords

extension SignHashCommand {
    struct Recover: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The public key (and address) that made a recoverable ECDSA signature.")

        @Option(help: "Write the address for this coin too: eth or btc (P2PKH and P2WPKH).")
        var coin: String = "eth"

        @OptionGroup var input: InputFiles

        func validate() throws {
            guard ["eth", "btc"].contains(coin) else { throw ValidationError("--coin must be eth or btc") }
        }

        func run() throws {
            try RecordPipeline(tool: "sign-hash").run(inputs: input.files) { try HashSignatures.recover($0, coin: coin) }.exitIfFailed()
        }
    }
}
