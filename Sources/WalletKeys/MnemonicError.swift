import WalletCore

/// Errors of the Mnemonic Seed Handler. Positions are 1-based word numbers. No case carries
/// the user's words themselves: a phrase is a secret, and so is most of any word in it.
public enum MnemonicError: WalletError, Equatable {
    case emptyMnemonic
    case invalidWordCount(got: Int, allowed: [Int], scheme: MnemonicScheme)
    case unknownWord(position: Int, language: String, suggestions: [String])
    case mixedLanguages(position: Int, wordLanguages: [String], phraseLanguage: String)
    case ambiguousLanguage(candidates: [String])
    case checksumFailed(scheme: MnemonicScheme, language: String)
    case unsupportedLanguage(String, scheme: MnemonicScheme)
    case invalidEntropyLength(got: Int, allowed: [Int], scheme: MnemonicScheme)
    case invalidWordTriple(position: Int)
    case nonCanonicalMoneroSeed
    case passphraseUnsupported(scheme: MnemonicScheme)
    case invalidUserEntropy(kind: String, position: Int)
    case notEnoughUserEntropy(kind: String, neededBits: Int, gotBits: Int)
    /// 13 words of Monero's list: MyMonero's legacy seed, whose keys come from a hash of 16
    /// bytes (not Monero's 25-word scheme). Named, so that nobody takes it for a typo.
    case myMoneroSeed

    public var code: String {
        switch self {
        case .emptyMnemonic: "mnemonic.empty"
        case .invalidWordCount: "mnemonic.invalid_word_count"
        case .unknownWord: "mnemonic.unknown_word"
        case .mixedLanguages: "mnemonic.mixed_languages"
        case .ambiguousLanguage: "mnemonic.ambiguous_language"
        case .checksumFailed: "mnemonic.checksum_failed"
        case .unsupportedLanguage: "mnemonic.unsupported_language"
        case .invalidEntropyLength: "mnemonic.invalid_entropy_length"
        case .invalidWordTriple: "mnemonic.invalid_word_triple"
        case .nonCanonicalMoneroSeed: "mnemonic.non_canonical_seed"
        case .passphraseUnsupported: "mnemonic.passphrase_unsupported"
        case .invalidUserEntropy: "mnemonic.invalid_user_entropy"
        case .notEnoughUserEntropy: "mnemonic.not_enough_user_entropy"
        case .myMoneroSeed: "mnemonic.mymonero_seed"
        }
    }

    public var message: String {
        switch self {
        case .emptyMnemonic:
            "the mnemonic has no words"
        case .invalidWordCount(let got, let allowed, let scheme) where scheme == .bip39:
            "\(got) words; BIP39 has 12–24 (\(Self.list(allowed.map(String.init), or: true)))"
                + (got == MoneroSeed.wordCount ? ": a 25-word phrase is a Monero seed, for --coin xmr" : "")
        case .invalidWordCount(let got, let allowed, let scheme):
            "a \(scheme.rawValue) mnemonic has \(Self.list(allowed.map(String.init), or: true)) words, this one has \(got)"
        case .unknownWord(let position, let language, let suggestions):
            "word \(position) is not in the \(language) wordlist"
                + (suggestions.isEmpty ? "" : " (\(suggestions.count) suggestion\(suggestions.count == 1 ? "" : "s") in the record)")
        case .mixedLanguages(let position, let wordLanguages, let phraseLanguage):
            "word \(position) is from the \(Self.list(wordLanguages, or: true)) wordlist, the other words are \(phraseLanguage): a mnemonic uses one wordlist"
        case .ambiguousLanguage(let candidates):
            "the phrase is valid in \(Self.list(candidates, or: false)) with different entropy; choose one with --language"
        case .checksumFailed(let scheme, let language):
            "the checksum does not match: every word is in the \(language) \(scheme.rawValue) wordlist, but a word is wrong or out of order"
        case .unsupportedLanguage(let name, let scheme):
            "no \(scheme.rawValue) wordlist named '\(name)'"
        case .invalidEntropyLength(let got, let allowed, let scheme):
            "\(scheme.rawValue) entropy must be \(Self.list(allowed.map(String.init), or: true)) bytes, got \(got)"
        case .invalidWordTriple(let position):
            "words \(position)–\(position + 2) do not encode a 32-bit group (not a Monero seed)"
        case .nonCanonicalMoneroSeed:
            "the 32 bytes are not a reduced Ed25519 scalar; Monero would restore a different key from this phrase"
        case .passphraseUnsupported(let scheme):
            "a passphrase (seed offset) is not supported for \(scheme.rawValue) seeds"
        case .invalidUserEntropy(let kind, let position):
            "\(kind) input: character \(position) is not a valid \(kind == "dice" ? "roll (1–6)" : "flip (0/1 or h/t)")"
        case .notEnoughUserEntropy(let kind, let neededBits, let gotBits):
            "\(kind) input gives \(gotBits) unbiased bits, \(neededBits) are needed: add more"
        case .myMoneroSeed:
            "13 words of Monero's wordlist: a MyMonero (legacy 13-word) seed, which Satchel does not restore; "
                + "give the wallet's private spend key (spend_key) or its 25-word Monero seed instead"
        }
    }

    public var details: [(key: String, value: ErrorDetail)] {
        switch self {
        case .unknownWord(let position, let language, let suggestions):
            [("position", .int(position)), ("language", .string(language)), ("suggestions", .strings(suggestions))]
        case .mixedLanguages(let position, let wordLanguages, let phraseLanguage):
            [("position", .int(position)), ("word_languages", .strings(wordLanguages)), ("language", .string(phraseLanguage))]
        case .invalidWordCount(let got, _, _):
            [("words", .int(got))]
        case .ambiguousLanguage(let candidates):
            [("languages", .strings(candidates))]
        case .checksumFailed(let scheme, let language):
            [("scheme", .string(scheme.rawValue)), ("language", .string(language))]
        case .invalidWordTriple(let position):
            [("position", .int(position))]
        case .invalidUserEntropy(_, let position):
            [("position", .int(position))]
        default:
            []
        }
    }

    private static func list(_ items: [String], or: Bool) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + (or ? " or " : " and ") + items.last!
    }
}
