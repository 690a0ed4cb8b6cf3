import WalletKeys
import XCTest

/// The registries code outside a chain reads instead of a chain's name: each must cover every
/// chain, scheme and key form the tools accept, and nothing else.
final class ChainRegistryTests: XCTestCase {
    /// `--coin`'s words: CoinNetwork's coins, and Monero's, which has its own keys.
    func testChainCodesAreTheCoinsTheToolsAccept() {
        XCTAssertEqual(Chain.allCases.map(\.rawValue), ["btc", "ltc", "doge", "bch", "zec", "eth", "xmr"])
        XCTAssertEqual(Chain.allCases.filter { $0 != .monero }.map(\.rawValue), CoinNetwork.coins)
        XCTAssertEqual(Chain(code: "zec"), .zcash)
        XCTAssertNil(Chain(code: "ZEC"))
        XCTAssertNil(Chain(code: nil))
        XCTAssertEqual(Chain.allCases.filter { $0.seedScheme == .monero }, [.monero])
    }

    func testEverySchemeHasItsHandler() {
        for scheme in MnemonicScheme.allCases {
            XCTAssertEqual(MnemonicSchemes.handler(for: scheme).scheme, scheme)
        }
        XCTAssertEqual(MnemonicSchemes.all.count, MnemonicScheme.allCases.count)
    }

    func testLoneKeyTokens() {
        XCTAssertEqual(KeyTokens.field(of: "uview1qqq"), "ufvk")
        XCTAssertEqual(KeyTokens.field(of: "UVIEW1QQQ"), "ufvk")
        XCTAssertEqual(KeyTokens.field(of: "uivk1qqq"), "uivk")
        XCTAssertEqual(KeyTokens.field(of: "zxviewtestsapling1qqq"), "extended_full_viewing_key")
        for version in ExtendedKeyVersion.all {
            XCTAssertEqual(KeyTokens.field(of: version.publicPrefix + "6C"), "extended_key")
            XCTAssertEqual(KeyTokens.field(of: version.privatePrefix + "6C"), "extended_key")
            XCTAssertNil(KeyTokens.field(of: version.publicPrefix))  // the prefix alone is a word
        }
        XCTAssertNil(KeyTokens.field(of: "abandon"))
        XCTAssertNil(KeyTokens.field(of: "Xpub6C"))  // BIP32 prefixes are case-sensitive
    }
}
