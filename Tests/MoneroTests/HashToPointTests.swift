import Foundation
import SatchelTestSupport
import WalletCore
import WalletKeys
import XCTest
@testable import Monero
import WalletScan

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

final class FieldElementTests: XCTestCase {
    typealias F = FieldElement

    private func f(_ hex: String) throws -> F { F(bytes: try Hex.decode(hex)) }

    func testReductionAndEncoding() throws {
        // p itself, p + 1, and 2^256 − 1 (the top bit counts, as Monero's loader reads it).
        XCTAssertTrue(try f("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f").isZero)
        XCTAssertEqual(try f("eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"), F.one)
        XCTAssertEqual(try f(String(repeating: "ff", count: 32)).bytes, (F(37) + F(0)).bytes)  // 2^256−1 ≡ 2·19 − 1
        XCTAssertEqual(Hex.encode(F(5).bytes), "05" + String(repeating: "0", count: 62))
    }

    func testFieldLaws() throws {
        let x = try f("8b655970153799af2aeadc9ff1add0ea6c7251d54154cfa92c173a0dd39c1f94")
        let y = try f("c3da0d8e21269f08d9e1c6d9703a6f721fb7f0b3ced0e199f20b218c1bc877c4")
        let z = try f("0fc47054f355ced4d67de73bfa12e4c78ff19089548fffa7d07a674741860f97")
        XCTAssertEqual(((x * y) * z).bytes, (x * (y * z)).bytes)
        XCTAssertEqual((x * (y + z)).bytes, (x * y + x * z).bytes)
        XCTAssertEqual((x - x).bytes, F.zero.bytes)
        XCTAssertEqual((x - y + y).bytes, x.bytes)
        XCTAssertEqual((x * x.inverse()).bytes, F.one.bytes)
        XCTAssertEqual((MoneroHashToPoint.sqrtM1 * MoneroHashToPoint.sqrtM1).bytes, (-F.one).bytes)
        let s = MoneroHashToPoint.sqrt(x * x)
        XCTAssertTrue((s - x).isZero || (s + x).isZero)
    }
}
