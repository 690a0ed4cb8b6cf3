@testable import WalletKeys
import Foundation
@testable import Monero
import SatchelTestSupport
import WalletCore
import XCTest

final class MoneroKeyTests: XCTestCase {
    func testMoneroNetworkPrefixes() throws {
        let keys = try MoneroKeys(spendSecret: try Hex.decodeSecret("01" + String(repeating: "0", count: 62)))
        // Monero's own prefixes: mainnet 4…/8…, testnet 9…/B…, stagenet 5…/7….
        XCTAssertEqual(keys.primaryAddress(.mainnet).first, "4")
        XCTAssertEqual(keys.primaryAddress(.testnet).first, "9")
        XCTAssertEqual(keys.primaryAddress(.stagenet).first, "5")
        XCTAssertEqual(try keys.subaddress(major: 0, minor: 1, .mainnet).address.first, "8")
        XCTAssertEqual(try keys.subaddress(major: 0, minor: 1, .testnet).address.first, "B")
        XCTAssertEqual(try keys.subaddress(major: 0, minor: 1, .stagenet).address.first, "7")
        XCTAssertEqual(try MoneroBase58.decode(keys.primaryAddress(.stagenet)).first, 24)
    }

    func testRegtestWalletKeysAndAddresses() throws {
        let doc = try TestPaths.json(TestPaths.fixture("monero-regtest/expected.json")) as! [String: Any]
        let k = doc["keys"] as! [String: Any]
        let phrase = try MoneroSeed().parse(k["mnemonic"] as! String, language: nil)
        let keys = try MoneroKeys(seed: try MoneroSeed().seed(of: phrase, passphrase: nil))
        XCTAssertEqual(keys.spendSecret?.hex, k["private_spend_key"] as? String)
        XCTAssertEqual(keys.viewSecret.hex, k["private_view_key"] as? String)
        XCTAssertEqual(Hex.encode(keys.spendPublic), k["public_spend_key"] as? String)
        XCTAssertEqual(Hex.encode(keys.viewPublic), k["public_view_key"] as? String)
        XCTAssertEqual(keys.primaryAddress(.mainnet), k["primary_address"] as? String)

        let integrated = doc["integrated_address"] as! [String: String]
        XCTAssertEqual(
            try keys.integratedAddress(.mainnet, paymentID: try Hex.decode(integrated["payment_id"]!)), integrated["integrated_address"])

        // View-only keys give the same subaddresses.
        let viewOnly = try MoneroKeys(viewSecret: keys.viewSecret, spendPublic: keys.spendPublic)
        var checked = 0
        for entry in doc["subaddresses_all_created"] as! [[String: Any]] {
            let (major, minor) = (UInt32(entry["major"] as! Int), UInt32(entry["minor"] as! Int))
            for wallet in [keys, viewOnly] {
                let sub = try wallet.subaddress(major: major, minor: minor, .mainnet)
                XCTAssertEqual(sub.address, entry["address"] as? String, "(\(major),\(minor))")
                XCTAssertEqual(Hex.encode(sub.spendPublic), entry["public_spend_key"] as? String)
                XCTAssertEqual(Hex.encode(sub.viewPublic), entry["public_view_key"] as? String)
            }
            checked += 1
        }
        XCTAssertEqual(checked, 6)
        // Monero Base58 round trip of a real address.
        let raw = try MoneroBase58.decode(k["primary_address"] as! String)
        XCTAssertEqual(raw.count, 69)
        XCTAssertEqual(MoneroBase58.encode(raw), k["primary_address"] as? String)
    }

    func testInvalidMoneroKeys() throws {
        XCTAssertThrowsError(try MoneroKeys(spendSecret: SecureBytes(Array(repeating: 0xFF, count: 32))))
        XCTAssertThrowsError(try MoneroKeys(viewSecret: SecureBytes(count: 32), spendPublic: Array(repeating: 0, count: 32)))
    }
}
