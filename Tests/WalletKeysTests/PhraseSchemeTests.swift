import WalletKeys
import XCTest

/// Which scheme a phrase is read as when none is given, and the two look-alikes named.
final class PhraseSchemeTests: XCTestCase {
    func testMoneroLookAlikes() throws {
        let seed = MoneroSeed()
        let words = try seed.mnemonic(fromEntropy: SecureBytesFixture.scalar, language: "english").words
        XCTAssertEqual(try MnemonicSchemes.parse(words.joined(separator: " "), scheme: nil, language: nil).scheme, .monero)
        // 25 words where BIP39 was asked for: the count, not the first unknown word.
        XCTAssertThrowsError(try MnemonicSchemes.parse(words.joined(separator: " "), scheme: .bip39, language: nil)) { error in
            XCTAssertEqual(error as? MnemonicError, .invalidWordCount(got: 25, allowed: [12, 15, 18, 21, 24], scheme: .bip39))
            XCTAssertEqual(
                (error as? MnemonicError)?.message,
                "25 words; BIP39 has 12–24 (12, 15, 18, 21 or 24): a 25-word phrase is a Monero seed, for --coin xmr")
        }
        // 13 of Monero's words: MyMonero's legacy seed, with or without the Monero scheme.
        let thirteen = words.prefix(13).joined(separator: " ")
        for scheme in [nil, MnemonicScheme.monero] {
            XCTAssertThrowsError(try MnemonicSchemes.parse(thirteen, scheme: scheme, language: nil)) { error in
                XCTAssertEqual(error as? MnemonicError, .myMoneroSeed)
            }
        }
        // As BIP39 (--coin btc) 13 words are a wrong count or an unknown word, never MyMonero's.
        XCTAssertThrowsError(try MnemonicSchemes.parse(thirteen, scheme: .bip39, language: nil)) { error in
            XCTAssertNotEqual(error as? MnemonicError, .myMoneroSeed)
        }
        // 13 BIP39 words are not taken for MyMonero's.
        let bip39 = Array(repeating: "abandon", count: 12) + ["about"]
        XCTAssertThrowsError(try MnemonicSchemes.parse(bip39.joined(separator: " "), scheme: nil, language: nil)) { error in
            XCTAssertEqual(error as? MnemonicError, .invalidWordCount(got: 13, allowed: [12, 15, 18, 21, 24], scheme: .bip39))
        }
    }
}

import WalletCore

enum SecureBytesFixture {
    /// A canonical scalar (1), as a Monero seed's entropy.
    static var scalar: SecureBytes { SecureBytes([1] + [UInt8](repeating: 0, count: 31)) }
}
