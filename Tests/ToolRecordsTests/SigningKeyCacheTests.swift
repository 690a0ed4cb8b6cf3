import DeriveRecords
import KeySources
import ScanRecords
import SigningRecords
import WalletCore
import WalletKeys
import XCTest
import WalletRecords

/// The signing key cache sign-hash (and the transaction signer) derive their keys through.
final class SigningKeyCacheTests: XCTestCase {
    /// BIP32's test vector 1.
    private let root = try! ExtendedKey.master(seed: SecureBytes(try! Hex.decode("000102030405060708090a0b0c0d0e0f")))

    func testDerivesEachPathOnceInOneSpelling() throws {
        let cache = SigningKeyCache()
        let source = KeySource.bip32(root, origin: nil, fromSeed: true)
        let (key, path) = try cache.key(source, path: "m/0h/1", cacheable: true)
        XCTAssertEqual(Hex.encode(key.bytes), "3c6cb8d0f6a264c91ea8b5030fadaa8e538b020f0a387421a12de9319dc93368")
        XCTAssertEqual(path, "m/0'/1")
        // ' and h name the same key: the second spelling finds the first one's entry.
        let again = try cache.key(source, path: "m/0'/1", cacheable: true)
        XCTAssertTrue(again.key === key)
        XCTAssertEqual(again.path, "m/0'/1")
        // A record's own key is derived anew and not kept.
        XCTAssertFalse(try cache.key(source, path: "m/0'/1", cacheable: false).key === key)
    }

    func testRefusals() {
        let cache = SigningKeyCache()
        let one = SecureBytes([UInt8](repeating: 0, count: 31) + [1])
        XCTAssertThrowsError(try cache.key(.single(one), path: "m/0", cacheable: true)) {
            XCTAssertEqual($0 as? DerivationError, .unsupported("a lone private key has no paths; drop \"path\""))
        }
        XCTAssertTrue(try cache.key(.single(one), path: nil, cacheable: true).key === one)
        XCTAssertThrowsError(try cache.key(.bip32(root, origin: nil, fromSeed: true), path: nil, cacheable: true)) {
            XCTAssertEqual(($0 as? RecordError)?.code, "record.missing_field")
        }
        let watchOnly = KeySource.bip32(root.neutered, origin: nil, fromSeed: false)
        XCTAssertThrowsError(try cache.key(watchOnly, path: "m/0", cacheable: true)) {
            XCTAssertEqual($0 as? DerivationError, .unsupported("an extended public key cannot sign; give the xprv"))
        }
    }

    /// The public key is kept per tag: a tag names one key for the whole run.
    func testPublicKeysPerTag() throws {
        let cache = SigningKeyCache()
        let one = SecureBytes([UInt8](repeating: 0, count: 31) + [1])
        let two = SecureBytes([UInt8](repeating: 0, count: 31) + [2])
        let g = "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
        XCTAssertEqual(try cache.publicKeyHex(one, tag: "a", cacheable: true), g)
        XCTAssertEqual(try cache.publicKeyHex(two, tag: "a", cacheable: true), g)
        XCTAssertEqual(
            try cache.publicKeyHex(two, tag: "a", cacheable: false),
            "02c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5")
        let pair = try cache.schnorr(one, tag: "a", taproot: false, cacheable: true)
        XCTAssertTrue(try cache.schnorr(two, tag: "a", taproot: false, cacheable: true) === pair)
    }
}
