import ArgumentParser
import WalletCLI
import WalletCardCLI
import WalletCore
import WalletKeys
import Foundation

@main
struct MnemonicCommand: ParsableCommand {
    /// Core dumps off before anything is read: a crash must not write secrets to disk.
    static func main() {
        ProcessHardening.disableCoreDumps()
        main(nil)
    }

    static let configuration = CommandConfiguration(
        commandName: "mnemonic",
        abstract: "BIP39 and Monero seed phrases: generate, validate, and convert to entropy or seed.",
        discussion: """
        Reads JSON Lines on stdin (or the FILE arguments) and writes one JSON object per line
        on stdout. A bad record becomes {"type":"error",...,"line":N} on stdout, a short note
        on stderr, and exit status 65; the records around it are still processed.
        Secrets are never read from arguments or the environment: phrases come in records,
        passphrases from --passphrase-file, --passphrase-fd or --passphrase-prompt.
        See mnemonic(1) for record formats.
        """,
        version: SatchelVersion.string,
        subcommands: [Generate.self, Validate.self, ToSeed.self, ToEntropy.self, FromEntropy.self]
    )
}

/// --scheme and --language, shared by every subcommand.
struct SchemeOptions: ParsableArguments {
    @Option(help: "bip39 or monero. Default: bip39 when making phrases; detected (25 words = monero) when reading them.")
    var scheme: String?

    @Option(help: ArgumentHelp("Wordlist: english, japanese, korean, spanish, chinese_simplified, chinese_traditional, french, italian, czech, portuguese (Monero: english). Default: detected when reading, english when making.", valueName: "name"))
    var language: String?

    func validate() throws {
        if let scheme, MnemonicScheme(rawValue: scheme) == nil {
            throw ValidationError("unknown scheme '\(scheme)': use bip39 or monero")
        }
        if let language {
            let handler = MnemonicSchemes.handler(for: parsedScheme ?? .bip39)
            guard handler.languages.contains(language) else {
                throw ValidationError("no \(handler.scheme.rawValue) wordlist named '\(language)'; choose one of: \(handler.languages.joined(separator: ", "))")
            }
        }
    }

    var parsedScheme: MnemonicScheme? { scheme.flatMap(MnemonicScheme.init(rawValue:)) }
}

/// Looks up a phrase from a record: the flag wins, then the record's own scheme/language
/// fields (as `generate` writes them), then detection.
func parseMnemonic(_ record: JSONObject, options: SchemeOptions) throws -> Mnemonic {
    let phrase = try record.string("mnemonic", expected: "the seed phrase as a string")
    var scheme = options.parsedScheme
    if scheme == nil, let named = try record.optionalString("scheme") {
        guard let s = MnemonicScheme(rawValue: named) else {
            throw RecordError.invalidField(field: "scheme", reason: "must be bip39 or monero")
        }
        scheme = s
    }
    let language = try options.language ?? record.optionalString("language")
    return try MnemonicSchemes.parse(phrase, scheme: scheme, language: language)
}

/// Writes the parsed phrase's canonical form and what it was recognised as (a record of type
/// "mnemonic" unless the subcommand names it otherwise).
func describe(_ mnemonic: Mnemonic, into record: inout JSONObject) {
    record["type"] = .string("mnemonic")
    record["mnemonic"] = .string(mnemonic.phrase)
    record["scheme"] = .string(mnemonic.scheme.rawValue)
    record["language"] = .string(mnemonic.language)
    if !mnemonic.alsoValidIn.isEmpty {
        record["also_valid_in"] = .array(mnemonic.alsoValidIn.map { .string($0) })
    }
}

/// Runs the pipeline over records that carry a phrase: each is parsed, written back in
/// canonical form, and `add` puts in what the subcommand computes.
func runOnPhrases(_ files: [String], _ options: SchemeOptions,
                  _ add: @escaping (Mnemonic, inout JSONObject) throws -> Void) throws {
    let pipeline = RecordPipeline(tool: "mnemonic")
    pipeline.phraseLines = true
    try pipeline.run(inputs: files) { record in
        var out = record
        let mnemonic = try parseMnemonic(record, options: options)
        describe(mnemonic, into: &out)
        try add(mnemonic, &out)
        return out
    }.exitIfFailed()
}

extension MnemonicCommand {
    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make new phrases from the operating system's CSPRNG (libsodium).",
            discussion: """
            Writes {"scheme","language","mnemonic","entropy"} per phrase. For entropy you make
            yourself (hex, dice or coins), use from-entropy.
            """)

        @OptionGroup var schemeOptions: SchemeOptions

        @Option(help: "Words per phrase: 12, 15, 18, 21 or 24 for BIP39 (default 24); 25 for Monero.")
        var words: Int?

        @Option(help: "How many phrases to write.")
        var count: Int = 1

        @Option(help: ArgumentHelp("Store the new phrase in the key store under this name first, and print it only once that write has succeeded.", valueName: "name"))
        var store: String?

        @Flag(help: "With --store: then ask for a few words at random positions on the terminal, to check the written copy.")
        var confirm = false

        @Flag(help: "With --store: mark the entry as used with a BIP39 passphrase (never stored).")
        var bip39Passphrase = false

        @Option(help: ArgumentHelp("With --store: a birthday height, chain=height (repeatable).", valueName: "chain=height"))
        var birthday: [String] = []

        @OptionGroup var keyStore: KeyStoreOptions
        @OptionGroup var cardOptions: CardKeyOptions

        func validate() throws {
            guard count >= 1 else { throw ValidationError("--count must be at least 1") }
            if cardOptions.card && schemeOptions.parsedScheme == .monero { throw ValidationError("the Keycard makes BIP39 phrases only") }
            if store != nil && count != 1 { throw ValidationError("--store keeps one phrase: drop --count") }
            if store == nil && (confirm || bip39Passphrase || !birthday.isEmpty) {
                throw ValidationError("--confirm, --bip39-passphrase and --birthday go with --store")
            }
            _ = try KeyStoreRecords.parseBirthdays(birthday)
            let handler = MnemonicSchemes.handler(for: schemeOptions.parsedScheme ?? .bip39)
            if let words, handler.entropyBytes(forWordCount: words) == nil {
                let allowed = handler.entropyLengths.map { String(handler.wordCount(forEntropyBytes: $0)) }
                throw ValidationError("a \(handler.scheme.rawValue) phrase has \(allowed.joined(separator: ", ")) words, not \(words)")
            }
        }

        func run() throws {
            let handler = MnemonicSchemes.handler(for: schemeOptions.parsedScheme ?? .bip39)
            let wordCount = words ?? handler.wordCount(forEntropyBytes: handler.entropyLengths.last!)
            let language = schemeOptions.language ?? handler.languages[0]
            let pipeline = RecordPipeline(tool: "mnemonic")
            do {
                // --card: the words come from the card's random number generator.
                let card = try cardOptions.channel(keyStore)
                for _ in 0..<count {
                    let mnemonic = try card?.generateMnemonic(words: wordCount, language: language)
                        ?? handler.generate(wordCount: wordCount, language: language)
                    var record = JSONObject()
                    record["type"] = .string("mnemonic")
                    record["scheme"] = .string(mnemonic.scheme.rawValue)
                    record["language"] = .string(mnemonic.language)
                    record["mnemonic"] = .string(mnemonic.phrase)
                    record["entropy"] = .string(handler.entropy(of: mnemonic).hex)
                    if let store {
                        // KeyStorer: the phrase is shown only after it is safely stored.
                        try storeFirst(record, name: store)
                        record["stored_as"] = .string(store)
                    }
                    try pipeline.emit(record)
                    if confirm {
                        try pipeline.flush()  // the phrase is on screen before the questions
                        try confirmWords(mnemonic)
                    }
                }
                try pipeline.flush()
            } catch let error as any WalletError {
                try pipeline.fail(error).exitIfFailed()
            }
        }

        private func storeFirst(_ record: JSONObject, name: String) throws {
            let entry = try KeyStoreRecords.entry(from: record, name: name, birthdays: try KeyStoreRecords.parseBirthdays(birthday),
                                                  passphraseProtected: bip39Passphrase, now: Int(Date().timeIntervalSince1970))
            try keyStore.store.store(entry, passphrase: try keyStore.passphrase(confirm: true))
        }

        /// Asks for three words at random positions, echo off, on /dev/tty.
        private func confirmWords(_ mnemonic: Mnemonic) throws {
            var positions = Set<Int>()
            while positions.count < 3 { positions.insert(Int(Sodium.randomUniform(UInt32(mnemonic.words.count)))) }
            for position in positions.sorted() {
                let typed = try SecretInput.read(.prompt(label: "Word \(position + 1) of your written copy: ", confirm: false))
                let words = PhraseText.words(String(decoding: typed.bytes, as: UTF8.self))
                let list = mnemonic.scheme == .monero ? MoneroSeed.wordlist : BIP39.wordlist(mnemonic.language)!
                guard words.count == 1, list.lookup(words[0]) == mnemonic.indices[position] else {
                    throw ConfirmationError.wordMismatch(position: position + 1)
                }
            }
        }
    }

    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check phrases: words, word count, checksum; detect scheme and language.",
            discussion: """
            Reads {"mnemonic":"..."}; writes the record with "valid":true, the canonical phrase
            (full words; 4-letter BIP39 and 3-letter Monero prefixes expanded), "scheme",
            "language" and "words". An invalid phrase becomes an error record naming the word's
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

    struct ToSeed: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "to-seed",
            abstract: "Phrase → seed: BIP39's 64-byte PBKDF2 seed, or Monero's 32-byte seed.",
            discussion: """
            Reads {"mnemonic":"..."} and adds "seed". The BIP39 passphrase comes from one of
            the options below, or from a "passphrase" field of the record itself (which is then
            removed from the output); it is NFKD-normalised and never trimmed, except that one
            trailing newline of a file or descriptor is dropped. Monero seeds take no passphrase.
            """)

        @OptionGroup var schemeOptions: SchemeOptions

        @OptionGroup var passphraseOptions: PassphraseOptions
        @OptionGroup var input: InputFiles

        func run() throws {
            let pipeline = RecordPipeline(tool: "mnemonic")
            pipeline.phraseLines = true
            let shared: SecureBytes?
            do { shared = try passphraseOptions.read() } catch { return try pipeline.fail(error).exitIfFailed() }
            try pipeline.run(inputs: input.files) { record in
                var out = record
                let mnemonic = try parseMnemonic(record, options: schemeOptions)
                let passphrase = try PassphraseOptions.forRecord(record, shared: shared, out: &out)
                let seed = try MnemonicSchemes.handler(for: mnemonic.scheme).seed(of: mnemonic, passphrase: passphrase)
                describe(mnemonic, into: &out)
                out["type"] = .string("seed")
                out["seed"] = .string(seed.hex)
                return out
            }.exitIfFailed()
        }
    }

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

    struct FromEntropy: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "from-entropy",
            abstract: "Entropy you supply (hex, dice rolls or coin flips) → phrase.",
            discussion: """
            Reads one of {"entropy":"<hex>"}, {"dice":"3151..."} or {"coins":"HTTH..."} per
            record and adds "mnemonic", "scheme", "language" (and "entropy" for dice and coins).
            Dice: a roll of 1–4 gives two bits, 5 or 6 one bit, so no roll is biased by a
            modulo; about 77 rolls make 12 words and 154 make 24. Coins: one flip, one bit.
            """)

        @OptionGroup var schemeOptions: SchemeOptions

        @Option(help: "Words to make from dice or coins (default 24; Monero 25). Hex entropy sets its own length.")
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
            try RecordPipeline(tool: "mnemonic").run(inputs: input.files) { record in
                var out = record
                out["type"] = .string("mnemonic")
                let sources = ["entropy", "dice", "coins"].filter { record[$0] != nil }
                guard sources.count == 1 else {
                    if sources.isEmpty { throw RecordError.missingField("entropy", expected: "hex entropy, or a \"dice\" or \"coins\" field") }
                    throw RecordError.conflictingFields(sources)
                }
                let entropy: SecureBytes
                switch sources[0] {
                case "entropy":
                    entropy = try Hex.decodeSecret(record.string("entropy", expected: "hex"))
                case let kind:
                    let (bytes, used) = try UserEntropy.bytes(from: record.string(kind, expected: "a string of \(kind)"),
                                                              kind: kind == "dice" ? .dice : .coins, byteCount: byteCount)
                    entropy = bytes
                    out["entropy"] = .string(bytes.hex)
                    out[kind == "dice" ? "dice_rolls_used" : "coin_flips_used"] = .number(String(used))
                }
                let mnemonic = try handler.mnemonic(fromEntropy: entropy, language: language)
                out["scheme"] = .string(mnemonic.scheme.rawValue)
                out["language"] = .string(mnemonic.language)
                out["mnemonic"] = .string(mnemonic.phrase)
                // One repeated byte, or dice/coins that all came up the same: a phrase anyone
                // can guess. Made anyway (test vectors are like that), but said loudly.
                let rolls = try sources[0] == "entropy" ? nil : record.string(sources[0], expected: "a string").filter { !$0.isWhitespace }
                if Set(entropy.bytes).count == 1 || (rolls.map { Set($0).count == 1 } ?? false) {
                    let why = rolls != nil ? "every \(sources[0] == "dice" ? "roll" : "flip") is the same" : "the entropy is one repeated byte"
                    out["warning"] = .string("weak entropy: \(why); anyone can find this phrase, never fund it")
                    try? OutputStream.standardError.write("mnemonic: warning: weak entropy (\(why)): never fund this phrase\n")
                }
                return out
            }.exitIfFailed()
        }
    }
}

/// A written copy that does not match the phrase. The entry stays stored: the phrase is right,
/// the paper copy is what needs checking.
enum ConfirmationError: WalletError {
    case wordMismatch(position: Int)
    var code: String { "mnemonic.confirmation_failed" }
    var message: String {
        if case .wordMismatch(let p) = self {
            return "word \(p) does not match: check your written copy (the entry is stored; nothing was lost)"
        }
        return ""
    }
}
