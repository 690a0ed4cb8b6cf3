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
            let secret = try XCTUnwrap(
                MoneroOutputSecret.secret(
                    sharedScalar: try Hex.decode(row["derivation_scalar_Hs"] as! String),
                    keys: wallet, major: UInt32(sub["major"]!), minor: UInt32(sub["minor"]!)))
            XCTAssertEqual(
                MoneroHashToPoint.keyImage(outputKey: try Hex.decode(row["output_key"] as! String), secret: secret).map { Hex.encode($0) },
                expected)
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

    /// The branch-free canonical form (ref10's carry) against a schoolbook reduction, on the
    /// values around p and 2^255 and on random ones, also after arithmetic (unreduced limbs).
    func testCanonicalFormAgainstAReference() throws {
        // v mod p for 32 little-endian bytes: fold bit 255 in as 19, then subtract p while ≥ p.
        func reference(_ bytes: [UInt8]) -> [UInt8] {
            var w = (0..<4).map { i in (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[8 * i + $1]) << UInt64(8 * $1) } }
            let p: [UInt64] = [0xFFFF_FFFF_FFFF_FFED, .max, .max, 0x7FFF_FFFF_FFFF_FFFF]
            let top = w[3] >> 63
            w[3] &= 0x7FFF_FFFF_FFFF_FFFF
            var carry = 19 * top
            for i in 0..<4 { (w[i], carry) = (w[i] &+ carry, w[i] > UInt64.max - carry ? 1 : 0) }
            while !(w[3] < p[3] || (w[3] == p[3] && w[2] == p[2] && w[1] == p[1] && w[0] < p[0])) {
                var borrow: UInt64 = 0
                for i in 0..<4 {
                    let (d1, o1) = w[i].subtractingReportingOverflow(p[i])
                    let (d2, o2) = d1.subtractingReportingOverflow(borrow)
                    (w[i], borrow) = (d2, (o1 || o2) ? 1 : 0)
                }
            }
            return w.flatMap { word in (0..<8).map { UInt8(truncatingIfNeeded: word >> UInt64(8 * $0)) } }
        }
        var inputs = [[UInt8]]()
        for low in [0xEB, 0xEC, 0xED, 0xEE, 0xFE, 0xFF] as [UInt8] {  // p − 2 … p + 1, 2^255 − 19 …
            for top in [0x7F, 0xFF] as [UInt8] { inputs.append([low] + [UInt8](repeating: 0xFF, count: 30) + [top]) }
        }
        inputs.append([UInt8](repeating: 0, count: 32))
        for _ in 0..<2000 { inputs.append((0..<32).map { _ in UInt8.random(in: 0...255) }) }
        for input in inputs {
            let x = F(bytes: input)
            XCTAssertEqual(x.bytes, reference(input), Hex.encode(input))
            // After arithmetic the limbs are not canonical: x + 0 − 0 and −(−x) give the same bytes.
            XCTAssertEqual((x + F.zero - F.zero).bytes, reference(input), Hex.encode(input))
            XCTAssertEqual((-(-x)).bytes, reference(input), Hex.encode(input))
        }
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
