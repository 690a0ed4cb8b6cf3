import Foundation
import SatchelTestSupport
import WalletCore
import XCTest
@testable import WalletKeys

final class MoneroSeedTests: XCTestCase {
    let monero = MoneroSeed()

    /// The regtest wallets' own 25-word seeds against their private spend keys.
    func testRegtestWalletSeeds() throws {
        for file in ["expected.json", "expected_restored_from_seed.json"] {
            let doc = try TestPaths.json(TestPaths.fixture("monero-regtest/\(file)")) as! [String: Any]
            let keys = doc["keys"] as! [String: Any]
            let phrase = keys["mnemonic"] as! String
            let spendKey = keys["private_spend_key"] as! String
            let m = try MnemonicSchemes.parse(phrase, scheme: nil, language: nil)
            XCTAssertEqual(m.scheme, .monero)
            XCTAssertEqual(try monero.seed(of: m, passphrase: nil).hex, spendKey)
            let made = try monero.mnemonic(fromEntropy: try Hex.decodeSecret(spendKey), language: "english")
            XCTAssertEqual(made.phrase, phrase)
        }
    }

    func testChecksumAndPrefixes() throws {
        let m = try monero.mnemonic(fromEntropy: monero.randomEntropy(byteCount: 32), language: "english")
        // Three-letter prefixes are accepted as Monero accepts them.
        let typed = m.words.map { String($0.prefix(3)) }.joined(separator: " ")
        XCTAssertEqual(try monero.parse(typed, language: nil).phrase, m.phrase)
        // A wrong checksum word.
        var words = m.words
        words[24] = words[24] == words[0] ? words[1] : words[0]
        if words[24] != m.words[24] {
            XCTAssertThrowsError(try monero.parse(words.joined(separator: " "), language: nil)) {
                XCTAssertEqual($0 as? MnemonicError, .checksumFailed(scheme: .monero, language: "english"))
            }
        }
        XCTAssertThrowsError(try monero.parse(m.words.dropLast().joined(separator: " "), language: nil)) {
            XCTAssertEqual($0 as? MnemonicError, .invalidWordCount(got: 24, allowed: [25], scheme: .monero))
        }
    }

    func testOverflowingTripleIsRefused() {
        // w1 = 0, w2 = 1625, w3 = 1624 → x ≥ 2^32: Monero's words_to_bytes refuses it.
        let list = MoneroSeed.wordlist.words
        var indices = [0, 1625, 1624] + Array(repeating: 0, count: 21)
        indices.append(indices[MoneroSeed.checksumIndex(indices)])
        XCTAssertThrowsError(try monero.parse(indices.map { list[$0] }.joined(separator: " "), language: nil)) {
            XCTAssertEqual($0 as? MnemonicError, .invalidWordTriple(position: 1))
        }
    }

    func testNonCanonicalSeedAndPassphraseRefused() throws {
        XCTAssertThrowsError(try monero.mnemonic(fromEntropy: SecureBytes(Array(repeating: 0xff, count: 32)), language: "english")) {
            XCTAssertEqual($0 as? MnemonicError, .nonCanonicalMoneroSeed)
        }
        let m = try monero.generate(wordCount: 25, language: "english")
        XCTAssertThrowsError(try monero.seed(of: m, passphrase: SecureBytes(Array("x".utf8))))
        XCTAssertThrowsError(try monero.generate(wordCount: 25, language: "french"))
    }

    func testMoneroPhraseIsNeverReadAsBIP39() throws {
        let m = try monero.generate(wordCount: 25, language: "english")
        XCTAssertThrowsError(try BIP39().parse(m.phrase, language: nil))
        XCTAssertEqual(try MnemonicSchemes.parse(m.phrase, scheme: nil, language: nil).scheme, .monero)
    }
}
