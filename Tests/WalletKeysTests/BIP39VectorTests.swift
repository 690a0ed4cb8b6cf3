import Foundation
import SatchelTestSupport
import WalletCore
import XCTest
@testable import WalletKeys
import WalletCrypto

/// Every BIP39 vector in Tests/Fixtures/vectors, byte for byte.
final class BIP39VectorTests: XCTestCase {
    let bip39 = BIP39()

    private func seed(_ phrase: String, _ passphrase: String, language: String? = nil) throws -> String {
        let m = try bip39.parse(phrase, language: language)
        return try bip39.seed(of: m, passphrase: SecureBytes(Array(passphrase.utf8))).hex
    }

    func testEmbeddedWordlistsEqualOfficialFiles() throws {
        let all = BIP39.wordlists.map { ("bip39-wordlists/\($0.name).txt", $0) } + [("monero/english.txt", MoneroSeed.wordlist)]
        for (path, list) in all {
            let data = try Data(contentsOf: TestPaths.vector(path))
            XCTAssertEqual(Hex.encode(Hash.sha256(Array(data))), list.sourceSHA256, path)
            let words = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
            // Compare bytes, not String ==, which would equate NFC and NFD spellings.
            XCTAssertEqual(words.map { Array($0.utf8) }, list.words.map { Array($0.utf8) }, path)
        }
    }

    func testTrezorVectorsInAllTenLanguages() throws {
        let file = try TestPaths.json(TestPaths.vector("bip39-trezor.json")) as! [String: Any]
        let passphrase = file["passphrase"] as! String
        let vectors = file["vectors"] as! [String: [[String: String]]]
        let official = file["official_bip39_languages"] as! [String]
        XCTAssertEqual(Set(official), Set(bip39.languages))
        var checked = 0
        for language in official {
            for v in vectors[language]! {
                let entropy = try Hex.decodeSecret(v["entropy"]!)
                // entropy → phrase, byte for byte (Japanese: NFKD words joined by U+3000).
                let made = try bip39.mnemonic(fromEntropy: entropy, language: language)
                XCTAssertEqual(Array(made.phrase.utf8), Array(v["mnemonic"]!.utf8), "\(language) \(v["entropy"]!)")
                // phrase → entropy, with detection of the language.
                let parsed = try bip39.parse(v["mnemonic"]!, language: nil)
                XCTAssertTrue(parsed.language == language || parsed.alsoValidIn.contains(language), language)
                XCTAssertEqual(bip39.entropy(of: parsed).hex, v["entropy"]!)
                // phrase → seed.
                XCTAssertEqual(try seed(v["mnemonic"]!, passphrase), v["seed"]!, "\(language) \(v["entropy"]!)")
                checked += 1
            }
        }
        XCTAssertEqual(checked, 240)
    }

    /// python-mnemonic's russian and turkish lists are not BIP39: their phrases must be refused.
    func testNonBIP39ListsAreRejected() throws {
        let file = try TestPaths.json(TestPaths.vector("bip39-trezor.json")) as! [String: Any]
        let vectors = file["vectors"] as! [String: [[String: String]]]
        for language in file["non_bip39_languages_present"] as! [String] {
            for v in vectors[language]! {
                XCTAssertThrowsError(try bip39.parse(v["mnemonic"]!, language: nil), language)
            }
        }
    }

    func testJapaneseVectorsWithNFKDPassphrases() throws {
        let file = try TestPaths.json(TestPaths.vector("bip39-japanese.json")) as! [String: Any]
        let vectors = file["vectors"] as! [[String: String]]
        XCTAssertEqual(vectors.count, 24)
        for v in vectors {
            let made = try bip39.mnemonic(fromEntropy: try Hex.decodeSecret(v["entropy"]!), language: "japanese")
            // This file writes its words in NFC; ours are the official list's NFKD. Same
            // characters, same seed; compared after NFKD because the files themselves differ.
            XCTAssertEqual(
                Array(made.phrase.decomposedStringWithCompatibilityMapping.utf8),
                Array(v["mnemonic"]!.decomposedStringWithCompatibilityMapping.utf8))
            XCTAssertTrue(made.phrase.contains("\u{3000}"))
            XCTAssertEqual(try seed(v["mnemonic"]!, v["passphrase"]!), v["seed"]!)
            // Typed with ASCII spaces instead of U+3000: same phrase, same seed.
            XCTAssertEqual(try seed(v["mnemonic"]!.replacingOccurrences(of: "\u{3000}", with: " "), v["passphrase"]!), v["seed"]!)
            XCTAssertEqual(try bip39.parse(v["mnemonic"]!, language: nil).language, "japanese")
        }
    }

    func testHDOracleDevelopmentSet() throws {
        let cases = try TestPaths.jsonLines(TestPaths.fixture("hd-oracle-dev.jsonl"))
        XCTAssertEqual(cases.count, 20)
        for c in cases {
            let phrase = c["mnemonic"] as! String
            let parsed = try bip39.parse(phrase, language: nil)
            XCTAssertEqual(parsed.language, c["language"] as? String)
            XCTAssertEqual(bip39.entropy(of: parsed).hex, c["entropy"] as? String)
            XCTAssertEqual(try seed(phrase, c["passphrase"] as! String), c["seed"] as? String, "\(c["id"]!)")
        }
    }

    /// "café" typed precomposed or decomposed is one passphrase.
    func testPassphraseIsNFKDNormalised() throws {
        let phrase = TestPhrase.abandonAbout
        XCTAssertEqual(try seed(phrase, "caf\u{e9}"), try seed(phrase, "cafe\u{301}"))
        XCTAssertNotEqual(try seed(phrase, "cafe"), try seed(phrase, "caf\u{e9}"))
        XCTAssertNotEqual(try seed(phrase, " x "), try seed(phrase, "x"), "passphrases are not trimmed")
    }
}

final class BIP39ErrorTests: XCTestCase {
    let bip39 = BIP39()
    let about = TestPhrase.abandonAbout

    func testUnknownWordNamesPositionAndSuggestions() {
        XCTAssertThrowsError(try bip39.parse(about.replacingOccurrences(of: "about", with: "abuot"), language: nil)) { error in
            guard case .unknownWord(let position, let language, let suggestions) = error as? MnemonicError else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(position, 12)
            XCTAssertEqual(language, "english")
            XCTAssertEqual(suggestions.first, "about")
            XCTAssertFalse((error as! MnemonicError).message.contains("abuot"))
        }
    }

    func testChecksumAndWordCount() {
        let swapped = "about abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon"
        XCTAssertThrowsError(try bip39.parse(swapped, language: nil)) {
            XCTAssertEqual($0 as? MnemonicError, .checksumFailed(scheme: .bip39, language: "english"))
        }
        XCTAssertThrowsError(try bip39.parse("abandon abandon about", language: nil)) {
            XCTAssertEqual($0 as? MnemonicError, .invalidWordCount(got: 3, allowed: [12, 15, 18, 21, 24], scheme: .bip39))
        }
        XCTAssertThrowsError(try bip39.parse("  \u{3000} ", language: nil)) { XCTAssertEqual($0 as? MnemonicError, .emptyMnemonic) }
    }

    /// English words that are not also French ("abandon" is in both lists).
    let legal = TestPhrase.legalWinner

    func testMixedLanguages() {
        // "abaisser" is French only; the rest English only.
        let mixed = legal.replacingOccurrences(of: "yellow", with: "abaisser")
        XCTAssertThrowsError(try bip39.parse(mixed, language: nil)) {
            XCTAssertEqual($0 as? MnemonicError, .mixedLanguages(position: 12, wordLanguages: ["french"], phraseLanguage: "english"))
        }
    }

    func testForcedLanguageRefusesOtherLists() {
        XCTAssertThrowsError(try bip39.parse(legal, language: "french")) {
            guard case .unknownWord(1, "french", _) = $0 as? MnemonicError else { return XCTFail("\($0)") }
        }
    }

    func testFourLetterPrefixesAndCaseAreExpanded() throws {
        let typed = "ABAN aband abandon aban aban aban aban aban aban aban aban abou"
        let m = try bip39.parse(typed, language: nil)
        XCTAssertEqual(m.phrase, about)
        XCTAssertThrowsError(try bip39.parse(about.replacingOccurrences(of: "about", with: "abo"), language: nil))
        // 4 letters that begin a word but then diverge are not that word.
        XCTAssertThrowsError(try bip39.parse(about.replacingOccurrences(of: "about", with: "aboux"), language: nil))
    }

    func testPrecomposedAccentsMatchNFKDList() throws {
        // Spanish "ábaco" is stored decomposed; a user types it precomposed.
        let spanish = try bip39.mnemonic(fromEntropy: SecureBytes(count: 16), language: "spanish")
        let typed = spanish.phrase.precomposedStringWithCanonicalMapping
        XCTAssertNotEqual(Array(typed.utf8), Array(spanish.phrase.utf8))
        XCTAssertEqual(try bip39.parse(typed, language: nil).indices, spanish.indices)
    }

    /// Simplified and traditional Chinese share 1,275 characters at the same indexes: a phrase
    /// of shared characters is valid in both with one entropy, so it is not an error.
    func testChineseSharedCharactersAreNotAmbiguous() throws {
        let simplified = BIP39.wordlist("chinese_simplified")!, traditional = BIP39.wordlist("chinese_traditional")!
        let shared = (0..<2048).filter { simplified.words[$0] == traditional.words[$0] }
        XCTAssertEqual(shared.count, 1275)
        let first11 = Array(shared.prefix(11))
        var found = false
        for last in shared {
            let phrase = (first11 + [last]).map { simplified.words[$0] }.joined(separator: " ")
            guard let m = try? bip39.parse(phrase, language: nil) else { continue }
            XCTAssertEqual(m.language, "chinese_simplified")
            XCTAssertEqual(m.alsoValidIn, ["chinese_traditional"])
            found = true
            break
        }
        XCTAssertTrue(found)
    }

    func testGeneratedPhrasesRoundTrip() throws {
        for words in [12, 15, 18, 21, 24] {
            for language in bip39.languages {
                let m = try bip39.generate(wordCount: words, language: language)
                XCTAssertEqual(m.words.count, words)
                let again = try bip39.parse(m.phrase, language: language)
                XCTAssertEqual(bip39.entropy(of: again), bip39.entropy(of: m))
            }
        }
        XCTAssertThrowsError(try bip39.generate(wordCount: 13, language: "english"))
    }
}

final class UserEntropyTests: XCTestCase {
    func testDiceMapping() throws {
        // 1→00 2→01 3→10 4→11: 0b00011011; then 5→0 6→1 5 6 5 6 5 6 → 0b01010101.
        let (bytes, used) = try UserEntropy.bytes(from: "1234 5656, 5656", kind: .dice, byteCount: 2)
        XCTAssertEqual(bytes.hex, "1b55")
        XCTAssertEqual(used, 12)
        XCTAssertThrowsError(try UserEntropy.bytes(from: "1237", kind: .dice, byteCount: 1)) {
            XCTAssertEqual($0 as? MnemonicError, .invalidUserEntropy(kind: "dice", position: 4))
        }
        XCTAssertThrowsError(try UserEntropy.bytes(from: "1234", kind: .dice, byteCount: 16)) {
            XCTAssertEqual($0 as? MnemonicError, .notEnoughUserEntropy(kind: "dice", neededBits: 128, gotBits: 8))
        }
    }

    func testCoins() throws {
        XCTAssertEqual(try UserEntropy.bytes(from: "HTHTHTHT 0000 1111", kind: .coins, byteCount: 2).entropy.hex, "aa0f")
    }

    /// Over many random rolls every bit position is near one half: the mapping is not biased.
    func testDiceBitsAreBalanced() throws {
        var ones = [Int](repeating: 0, count: 128)
        let trials = 2000
        for _ in 0..<trials {
            let rolls = String((0..<120).map { _ in Character(String(Sodium.randomUniform(6) + 1)) })
            let bytes = try UserEntropy.bytes(from: rolls, kind: .dice, byteCount: 16).entropy.bytes
            for i in 0..<128 where bytes[i / 8] & (0x80 >> UInt8(i % 8)) != 0 { ones[i] += 1 }
        }
        // 2000 fair bits: mean 1000, sd ≈ 22; 6 sd is a bound a biased mapping breaks, chance doesn't.
        for count in ones { XCTAssertLessThan(abs(count - trials / 2), 135) }
    }
}
