import ArgumentParser
import MnemonicRecords
import WalletCardCLI
import WalletKeys
import WalletRecords

extension MnemonicCommand {
    struct ToEntropy: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "to-entropy",
            abstract: "Phrase → the entropy it encodes (Monero: the 32-byte seed).")

        @OptionGroup var schemeOptions: SchemeOptions
        @OptionGroup var input: InputFiles

        func run() throws {
            try runOnPhrases(input.files, schemeOptions) { mnemonic, out in
                out["type"] = .string("entropy")
                out["entropy"] = .string(MnemonicSchemes.handler(for: mnemonic.scheme).entropy(of: mnemonic).hex)
            }
        }
    }
}
