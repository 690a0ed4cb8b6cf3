import WalletCore
import WalletCrypto

/// Which seed-phrase standard a phrase follows. Written as `scheme` in every record so that a
/// Monero phrase is never taken for a BIP39 one.
public enum MnemonicScheme: String, Sendable, CaseIterable, Equatable {
    case bip39
    case monero
}

/// A phrase that has been checked: every word known, word count and checksum right.
public struct Mnemonic: Sendable {
    public let scheme: MnemonicScheme
    /// The record name of the wordlist (`english`, `chinese_simplified`, …).
    public let language: String
    /// Canonical words, exactly as in the wordlist (NFKD), with prefixes expanded.
    public let words: [String]
    /// Each word's index in its list.
    public let indices: [Int]
    /// Other lists in which the same words give the same entropy (Chinese simplified/traditional).
    public let alsoValidIn: [String]

    /// The phrase to show: words joined by a space, or by U+3000 for Japanese as BIP39 asks.
    public var phrase: String {
        words.joined(separator: language == "japanese" ? "\u{3000}" : " ")
    }
}

/// The Mnemonic Seed Handler pattern: seed phrases ↔ bytes, one conformer per scheme.
public protocol MnemonicSeedHandler: Sendable {
    var scheme: MnemonicScheme { get }
    /// Wordlist names, the default first.
    var languages: [String] { get }
    /// Allowed entropy sizes in bytes.
    var entropyLengths: [Int] { get }
    /// Fresh entropy of `byteCount` bytes from the OS CSPRNG, in the form this scheme stores.
    func randomEntropy(byteCount: Int) throws(MnemonicError) -> SecureBytes
    func mnemonic(fromEntropy entropy: SecureBytes, language: String) throws(MnemonicError) -> Mnemonic
    /// Checks a phrase typed by a person. `language` forces a wordlist; nil detects it.
    func parse(_ phrase: String, language: String?) throws(MnemonicError) -> Mnemonic
    func entropy(of mnemonic: Mnemonic) -> SecureBytes
    /// The seed that keys are derived from (BIP39: 64 bytes; Monero: the 32-byte spend seed).
    func seed(of mnemonic: Mnemonic, passphrase: SecureBytes?) throws(MnemonicError) -> SecureBytes
    /// Word count for an entropy size.
    func wordCount(forEntropyBytes bytes: Int) -> Int
    /// Entropy size for a word count, if that count is allowed.
    func entropyBytes(forWordCount words: Int) -> Int?
}

extension MnemonicSeedHandler {
    public func randomEntropy(byteCount: Int) throws(MnemonicError) -> SecureBytes {
        guard entropyLengths.contains(byteCount) else {
            throw .invalidEntropyLength(got: byteCount, allowed: entropyLengths, scheme: scheme)
        }
        return Sodium.randomBytes(byteCount)
    }

    /// A new phrase from the OS CSPRNG.
    public func generate(wordCount: Int, language: String) throws(MnemonicError) -> Mnemonic {
        guard let bytes = entropyBytes(forWordCount: wordCount) else {
            throw .invalidWordCount(got: wordCount, allowed: entropyLengths.map(self.wordCount), scheme: scheme)
        }
        return try mnemonic(fromEntropy: randomEntropy(byteCount: bytes), language: language)
    }
}

/// The handlers Satchel knows, and scheme detection for phrases of unknown origin.
public enum MnemonicSchemes {
    public static let bip39 = BIP39()
    public static let monero = MoneroSeed()

    public static let all: [any MnemonicSeedHandler] = [bip39, monero]

    public static func handler(for scheme: MnemonicScheme) -> any MnemonicSeedHandler {
        all.first { $0.scheme == scheme }!
    }

    /// Parses a phrase with the given scheme, or detects it: 25 words are a Monero seed (no
    /// BIP39 phrase has 25 words), anything else is read as BIP39. 13 words all in Monero's
    /// list are MyMonero's legacy seed, refused by name (as BIP39 they would fail on a word).
    public static func parse(_ phrase: String, scheme: MnemonicScheme?, language: String?) throws(MnemonicError) -> Mnemonic {
        let words = PhraseText.words(phrase)
        if scheme != .bip39, words.count == MoneroSeed.myMoneroWordCount, words.allSatisfy({ MoneroSeed.wordlist.lookup($0) != nil }) {
            throw .myMoneroSeed
        }
        if let scheme { return try handler(for: scheme).parse(phrase, language: language) }
        return try handler(for: words.count == MoneroSeed.wordCount ? .monero : .bip39).parse(phrase, language: language)
    }
}
