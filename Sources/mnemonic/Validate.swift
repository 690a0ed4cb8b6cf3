import ArgumentParser
import MnemonicRecords
import WalletRecords

extension MnemonicCommand {
    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check phrases: words, word count, checksum; detect scheme and language.",
            discussion: """
                Reads {"mnemonic":"..."}; writes the record with "valid":true, the canonical phrase \
                (full words; 4-letter BIP39 and 3-letter Monero prefixes expanded), "scheme", \
                "language" and "words". An invalid phrase becomes an error record naming the word's \
                position and suggestions, a checksum failure, or a wrong word count.
                """)

        @OptionGroup var schemeOptions: SchemeOptions
        @OptionGroup var input: InputFiles

        func run() throws {
            try runOnPhrases(input.files, schemeOptions) { mnemonic, out in
                out["words"] = .number(String(mnemonic.words.count))
                out["valid"] = .bool(true)
            }
        }
    }
}
