import Foundation
import SatchelTestSupport
import WalletCore
import WalletKeys
import XCTest
@testable import WalletScan

final class HashToPointTests: XCTestCase {
    /// Monero's own generate_key_image cases: x·hash_to_ec(P).
    func testMoneroKeyImageVectors() throws {
        let lines = try String(contentsOf: TestPaths.vector("monero/crypto-tests-subset.txt"), encoding: .utf8)
            .split(separator: "\n").filter { $0.hasPrefix("generate_key_image ") }
        XCTAssertEqual(lines.count, 6)
        for line in lines {
            let f = line.split(separator: " ").map(String.init)
            let image = MoneroHashToPoint.keyImage(outputKey: try Hex.decode(f[1]), secret: try Hex.decodeSecret(f[2]))
            XCTAssertEqual(image.map { Hex.encode($0) }, f[3])
        }
    }

    /// The regtest wallet's key images, as monero-wallet-rpc listed them.
    func testRegtestKeyImages() throws {
        let rows = try TestPaths.jsonLines(TestPaths.fixture("monero-regtest/scan_intermediates.jsonl"))
        let doc = try TestPaths.json(TestPaths.fixture("monero-regtest/expected.json")) as! [String: Any]
        let keys = doc["keys"] as! [String: Any]
        let wallet = try MoneroKeys(spendSecret: try Hex.decodeSecret(keys["private_spend_key"] as! String))
        XCTAssertEqual(wallet.viewSecret.hex, keys["private_view_key"] as? String)
        var checked = 0
        for row in rows {
            guard let expected = row["key_image"] as? String else { continue }
            let sub = row["subaddr_index"] as! [String: Int]
            let secret = try XCTUnwrap(MoneroOutputSecret.secret(sharedScalar: try Hex.decode(row["derivation_scalar_Hs"] as! String),
                                                               keys: wallet, major: UInt32(sub["major"]!), minor: UInt32(sub["minor"]!)))
            XCTAssertEqual(MoneroHashToPoint.keyImage(outputKey: try Hex.decode(row["output_key"] as! String), secret: secret).map { Hex.encode($0) }, expected)
            checked += 1
        }
        XCTAssertEqual(checked, 13)
    }
}
