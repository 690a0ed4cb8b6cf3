import WalletCore
import WalletCrypto

/// Monero's 25-word seed (English list; electrum-words.cpp in monero-project 0.18): 24 words
/// encode the 32-byte spend seed in 8 little-endian 32-bit groups, word 25 is a CRC-32 checksum.
public struct MoneroSeed: MnemonicSeedHandler {
    public static let wordCount = 25
    /// MyMonero's legacy seeds (12 words of 128 bits and a checksum word), which are refused.
    public static let myMoneroWordCount = 13
    public let scheme = MnemonicScheme.monero
    public let entropyLengths = [32]
    public static let wordlist = Wordlist(
        name: "english", text: EmbeddedWordlists.moneroEnglish,
        sha256: EmbeddedWordlists.moneroEnglishDigest, uniquePrefixLength: 3)
    private static var n: UInt32 { UInt32(wordlist.words.count) }

    public init() {}

    public var languages: [String] { ["english"] }
    public func wordCount(forEntropyBytes bytes: Int) -> Int { Self.wordCount }
    public func entropyBytes(forWordCount words: Int) -> Int? { words == Self.wordCount ? 32 : nil }

    /// Monero makes a new spend key as random bytes reduced mod ℓ; so do we, so the phrase
    /// restores to exactly this key.
    public func randomEntropy(byteCount: Int) throws(MnemonicError) -> SecureBytes {
        guard byteCount == 32 else { throw .invalidEntropyLength(got: byteCount, allowed: [32], scheme: scheme) }
        return Ed25519Scalar.reduce32(Sodium.randomBytes(32))
    }

    public func mnemonic(fromEntropy entropy: SecureBytes, language: String) throws(MnemonicError) -> Mnemonic {
        guard language == "english" else { throw .unsupportedLanguage(language, scheme: scheme) }
        guard entropy.count == 32 else { throw .invalidEntropyLength(got: entropy.count, allowed: [32], scheme: scheme) }
        guard Ed25519Scalar.isCanonical(entropy) else { throw .nonCanonicalMoneroSeed }
        let n = Self.n
        var indices = entropy.withUnsafeBytes { raw -> [Int] in
            (0..<8).flatMap { g -> [Int] in
                let x = UInt32(raw[4 * g]) | UInt32(raw[4 * g + 1]) << 8 | UInt32(raw[4 * g + 2]) << 16 | UInt32(raw[4 * g + 3]) << 24
                let w1 = x % n
                let w2 = (x / n + w1) % n
                let w3 = (x / n / n + w2) % n
                return [Int(w1), Int(w2), Int(w3)]
            }
        }
        indices.append(indices[Self.checksumIndex(indices)])
        return Mnemonic(
            scheme: scheme, language: "english", words: indices.map { Self.wordlist.words[$0] },
            indices: indices, alsoValidIn: [])
    }

    public func parse(_ phrase: String, language: String?) throws(MnemonicError) -> Mnemonic {
        if let language, language != "english" { throw .unsupportedLanguage(language, scheme: scheme) }
        let words = PhraseText.words(phrase)
        guard !words.isEmpty else { throw .emptyMnemonic }
        var indices = [Int]()
        for (i, word) in words.enumerated() {
            guard let index = Self.wordlist.lookup(word) else {
                throw .unknownWord(position: i + 1, language: "english", suggestions: Self.wordlist.suggestions(for: word))
            }
            indices.append(index)
        }
        guard words.count == Self.wordCount else {
            throw .invalidWordCount(got: words.count, allowed: [Self.wordCount], scheme: scheme)
        }
        _ = try decode(indices)
        guard indices[24] == indices[Self.checksumIndex(indices)] else {
            throw .checksumFailed(scheme: scheme, language: "english")
        }
        return Mnemonic(
            scheme: scheme, language: "english", words: indices.map { Self.wordlist.words[$0] },
            indices: indices, alsoValidIn: [])
    }

    public func entropy(of mnemonic: Mnemonic) -> SecureBytes {
        // parse() already checked every triple, so decoding cannot fail here.
        (try? decode(mnemonic.indices)) ?? SecureBytes(count: 32)
    }

    /// The 32-byte seed as Monero stores it; Monero's wallet takes sc_reduce32 of it as the
    /// private spend key (a no-op for phrases Monero made).
    public func seed(of mnemonic: Mnemonic, passphrase: SecureBytes?) throws(MnemonicError) -> SecureBytes {
        if let passphrase, passphrase.count > 0 { throw .passphraseUnsupported(scheme: scheme) }
        return entropy(of: mnemonic)
    }

    /// words_to_bytes: x = w1 + n·((w2−w1) mod n) + n²·((w3−w2) mod n) in 32-bit arithmetic,
    /// refused when it wrapped (x mod n ≠ w1).
    private func decode(_ indices: [Int]) throws(MnemonicError) -> SecureBytes {
        let n = Self.n
        let out = SecureBytes(count: 32)
        var bad: Int?
        out.withUnsafeMutableBytes { raw in
            for g in 0..<8 {
                let w1 = UInt32(indices[3 * g]), w2 = UInt32(indices[3 * g + 1]), w3 = UInt32(indices[3 * g + 2])
                let x = w1 &+ n &* ((n - w1 + w2) % n) &+ n &* n &* ((n - w2 + w3) % n)
                if x % n != w1 { bad = bad ?? 3 * g + 1 }
                for b in 0..<4 { raw[4 * g + b] = UInt8(truncatingIfNeeded: x >> (8 * UInt32(b))) }
            }
        }
        if let bad { throw .invalidWordTriple(position: bad) }
        return out
    }

    /// CRC-32 of the first three letters of each of the 24 words, mod 24.
    static func checksumIndex(_ indices: [Int]) -> Int {
        var prefixes = [UInt8]()
        for i in indices.prefix(24) { prefixes.append(contentsOf: String(wordlist.words[i].prefix(3)).utf8) }
        return Int(CRC32.checksum(prefixes) % 24)
    }
}
