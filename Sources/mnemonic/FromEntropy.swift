import ArgumentParser
import MnemonicRecords
import WalletKeys
import WalletRecords

extension MnemonicCommand {
    struct FromEntropy: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "from-entropy",
            abstract: "Entropy you supply (hex, dice rolls or coin flips) → phrase.",
            discussion: """
                Reads one of {"entropy":"<hex>"}, {"dice":"3151..."} or {"coins":"HTTH..."} per \
                record and adds "mnemonic", "scheme", "language" (and "entropy" for dice and coins). \
                Dice: a roll of 1–4 gives two bits, 5 or 6 one bit, so no roll is biased by a \
                modulo; about 77 rolls make 12 words and 154 make 24. Coins: one flip, one bit.
                """)

        @OptionGroup var schemeOptions: SchemeOptions

        @Option(
            help: "Words to make from dice or coins (default 24; Monero 25). Hex entropy sets its own length.",
            completion: .list(["12", "15", "18", "21", "24", "25"]))
        var words: Int?

        @OptionGroup var input: InputFiles

        func validate() throws {
            let handler = MnemonicSchemes.handler(for: schemeOptions.parsedScheme ?? .bip39)
            if let words, handler.entropyBytes(forWordCount: words) == nil {
                throw ValidationError("a \(handler.scheme.rawValue) phrase cannot have \(words) words")
            }
        }

        func run() throws {
            let handler = MnemonicSchemes.handler(for: schemeOptions.parsedScheme ?? .bip39)
            let language = schemeOptions.language ?? handler.languages[0]
            let byteCount = handler.entropyBytes(forWordCount: words ?? handler.wordCount(forEntropyBytes: handler.entropyLengths.last!))!
            try RecordPipeline(tool: "mnemonic").run(inputs: input.files) {
                try PhraseRecords.fromEntropy($0, handler: handler, language: language, byteCount: byteCount)
            }.exitIfFailed()
        }
    }
}
