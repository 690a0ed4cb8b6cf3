import WalletCore
import WalletCrypto

/// BIP39 with all ten official wordlists.
public struct BIP39: MnemonicSeedHandler {
    public let scheme = MnemonicScheme.bip39
    public let entropyLengths = [16, 20, 24, 28, 32]

    /// The ten official lists, English first (the default). python-mnemonic's russian and
    /// turkish lists are not BIP39 and are deliberately absent.
    public static let wordlists: [Wordlist] = [
        Wordlist(
            name: "english", text: EmbeddedWordlists.bip39English, sha256: EmbeddedWordlists.bip39EnglishDigest, uniquePrefixLength: 4),
        Wordlist(
            name: "japanese", text: EmbeddedWordlists.bip39Japanese, sha256: EmbeddedWordlists.bip39JapaneseDigest, uniquePrefixLength: nil),
        Wordlist(name: "korean", text: EmbeddedWordlists.bip39Korean, sha256: EmbeddedWordlists.bip39KoreanDigest, uniquePrefixLength: nil),
        Wordlist(
            name: "spanish", text: EmbeddedWordlists.bip39Spanish, sha256: EmbeddedWordlists.bip39SpanishDigest, uniquePrefixLength: 4),
        Wordlist(
            name: "chinese_simplified", text: EmbeddedWordlists.bip39ChineseSimplified,
            sha256: EmbeddedWordlists.bip39ChineseSimplifiedDigest, uniquePrefixLength: nil),
        Wordlist(
            name: "chinese_traditional", text: EmbeddedWordlists.bip39ChineseTraditional,
            sha256: EmbeddedWordlists.bip39ChineseTraditionalDigest, uniquePrefixLength: nil),
        Wordlist(name: "french", text: EmbeddedWordlists.bip39French, sha256: EmbeddedWordlists.bip39FrenchDigest, uniquePrefixLength: 4),
        Wordlist(
            name: "italian", text: EmbeddedWordlists.bip39Italian, sha256: EmbeddedWordlists.bip39ItalianDigest, uniquePrefixLength: 4),
        Wordlist(name: "czech", text: EmbeddedWordlists.bip39Czech, sha256: EmbeddedWordlists.bip39CzechDigest, uniquePrefixLength: 4),
        Wordlist(
            name: "portuguese", text: EmbeddedWordlists.bip39Portuguese, sha256: EmbeddedWordlists.bip39PortugueseDigest,
            uniquePrefixLength: 4),
    ]

    public init() {}

    public var languages: [String] { Self.wordlists.map(\.name) }

    public static func wordlist(_ name: String) -> Wordlist? { wordlists.first { $0.name == name } }

    public func wordCount(forEntropyBytes bytes: Int) -> Int { bytes * 8 * 33 / 32 / 11 }

    public func entropyBytes(forWordCount words: Int) -> Int? {
        let bytes = words * 11 * 32 / 33 / 8
        return entropyLengths.contains(bytes) && wordCount(forEntropyBytes: bytes) == words ? bytes : nil
    }

    public func mnemonic(fromEntropy entropy: SecureBytes, language: String) throws(MnemonicError) -> Mnemonic {
        guard let list = Self.wordlist(language) else { throw .unsupportedLanguage(language, scheme: scheme) }
        guard entropyLengths.contains(entropy.count) else {
            throw .invalidEntropyLength(got: entropy.count, allowed: entropyLengths, scheme: scheme)
        }
        let indices = entropy.withUnsafeBytes { raw -> [Int] in
            let checksum = Hash.sha256(raw)
            let bitCount = raw.count * 8 + raw.count / 4
            func bit(_ i: Int) -> Int {
                let byte = i < raw.count * 8 ? raw[i / 8] : checksum[(i - raw.count * 8) / 8]
                return Int(byte >> (7 - UInt8(i % 8))) & 1
            }
            return stride(from: 0, to: bitCount, by: 11).map { start in
                (start..<start + 11).reduce(0) { $0 << 1 | bit($1) }
            }
        }
        return Mnemonic(
            scheme: scheme, language: language, words: indices.map { list.words[$0] },
            indices: indices, alsoValidIn: [])
    }

    public func parse(_ phrase: String, language: String?) throws(MnemonicError) -> Mnemonic {
        let words = PhraseText.words(phrase)
        guard !words.isEmpty else { throw .emptyMnemonic }
        // 25 words are a Monero seed given where BIP39 was asked for (--coin btc): say so
        // rather than name the first word BIP39's list lacks.
        if words.count == MoneroSeed.wordCount {
            throw .invalidWordCount(got: words.count, allowed: entropyLengths.map(wordCount), scheme: scheme)
        }
        let candidates: [Wordlist]
        if let language {
            guard let list = Self.wordlist(language) else { throw .unsupportedLanguage(language, scheme: scheme) }
            candidates = [list]
        } else {
            candidates = Self.wordlists
        }
        let lookups = candidates.map { list in words.map { list.lookup($0) } }
        let complete = candidates.indices.filter { lookups[$0].allSatisfy { $0 != nil } }
        guard !complete.isEmpty else {
            throw unknownOrMixed(words: words, candidates: candidates, lookups: lookups, forced: language != nil)
        }
        guard entropyBytes(forWordCount: words.count) != nil else {
            throw .invalidWordCount(got: words.count, allowed: entropyLengths.map(wordCount), scheme: scheme)
        }
        let valid = complete.filter { checksumMatches(lookups[$0].map { $0! }) }
        guard let first = valid.first else {
            throw .checksumFailed(scheme: scheme, language: candidates[complete[0]].name)
        }
        let indices = lookups[first].map { $0! }
        // Lists that agree on every index give the same entropy and seed: say so, don't fail.
        let same = valid.dropFirst().filter { lookups[$0].map { $0! } == indices }
        guard same.count == valid.count - 1 else {
            throw .ambiguousLanguage(candidates: valid.map { candidates[$0].name })
        }
        let list = candidates[first]
        return Mnemonic(
            scheme: scheme, language: list.name, words: indices.map { list.words[$0] },
            indices: indices, alsoValidIn: same.map { candidates[$0].name })
    }

    private func unknownOrMixed(words: [String], candidates: [Wordlist], lookups: [[Int?]], forced: Bool) -> MnemonicError {
        // The list that knows the most words is the phrase's language; blame its first stranger.
        let best = candidates.indices.max { a, b in
            let (ca, cb) = (lookups[a].compactMap { $0 }.count, lookups[b].compactMap { $0 }.count)
            return ca != cb ? ca < cb : a > b
        }!
        let position = lookups[best].firstIndex { $0 == nil }!
        let word = words[position]
        if !forced {
            let others = Self.wordlists.filter { $0.name != candidates[best].name && $0.lookup(word) != nil }.map(\.name)
            if !others.isEmpty {
                return .mixedLanguages(position: position + 1, wordLanguages: others, phraseLanguage: candidates[best].name)
            }
        }
        return .unknownWord(
            position: position + 1, language: candidates[best].name,
            suggestions: candidates[best].suggestions(for: word))
    }

    private func checksumMatches(_ indices: [Int]) -> Bool {
        let entropyBits = indices.count * 11 * 32 / 33
        var bits = [UInt8]()
        bits.reserveCapacity(indices.count * 11)
        for i in indices { for b in (0..<11).reversed() { bits.append(UInt8((i >> b) & 1)) } }
        var entropy = [UInt8](repeating: 0, count: entropyBits / 8)
        defer { SecureBytes.wipe(&entropy); SecureBytes.wipe(&bits) }
        for i in 0..<entropyBits where bits[i] == 1 { entropy[i / 8] |= 0x80 >> UInt8(i % 8) }
        let hash = Hash.sha256(entropy)
        for i in 0..<(entropyBits / 32) where bits[entropyBits + i] != (hash[i / 8] >> (7 - UInt8(i % 8))) & 1 {
            return false
        }
        return true
    }

    public func entropy(of mnemonic: Mnemonic) -> SecureBytes {
        let entropyBits = mnemonic.indices.count * 11 * 32 / 33
        let out = SecureBytes(count: entropyBits / 8)
        out.withUnsafeMutableBytes { raw in
            var bit = 0
            for index in mnemonic.indices {
                for b in (0..<11).reversed() where bit < entropyBits {
                    if (index >> b) & 1 == 1 { raw[bit / 8] |= 0x80 >> UInt8(bit % 8) }
                    bit += 1
                }
            }
        }
        return out
    }

    /// PBKDF2-HMAC-SHA512(NFKD(phrase), "mnemonic" + NFKD(passphrase), 2048) → 64 bytes.
    /// The phrase is the canonical one (full words, single spaces), so a phrase typed with
    /// 4-letter prefixes or extra spaces gives the seed of the full phrase.
    public func seed(of mnemonic: Mnemonic, passphrase: SecureBytes?) throws(MnemonicError) -> SecureBytes {
        var password = Array(mnemonic.words.joined(separator: " ").utf8)
        var salt = Array("mnemonic".utf8)
        defer { SecureBytes.wipe(&password); SecureBytes.wipe(&salt) }
        if let passphrase {
            passphrase.withUnsafeBytes { raw in
                var text = String(decoding: raw, as: UTF8.self)
                salt.append(contentsOf: PhraseText.nfkd(text).utf8)
                text = ""
            }
        }
        return password.withUnsafeBytes { p in
            salt.withUnsafeBytes { s in Hash.pbkdf2SHA512(password: p, salt: s, iterations: 2048, keyLength: 64) }
        }
    }
}
