import Foundation
import SatchelTestSupport
import WalletCore
import XCTest
import Zcash

/// RedJubjub against zcash-test-vectors' sapling_signatures.json (the upstream Python's keys,
/// randomized keys and signatures), and our own signatures over the same messages.
final class RedJubjubTests: XCTestCase {
    func testUpstreamVectors() throws {
        let rows = try XCTUnwrap(try TestPaths.json(TestPaths.vector("zcash/sapling_signatures.json")) as? [[String]])
        XCTAssertEqual(rows[1], ["sk, vk, alpha, rsk, rvk, m, sig, rsig"])
        let vectors = rows.dropFirst(2).map { $0.map { try! Hex.decode($0) } }
        XCTAssertEqual(vectors.count, 10)
        for (n, v) in vectors.enumerated() {
            let (sk, vk, alpha, rsk, rvk, m, sig, rsig) = (v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7])
            let key = try XCTUnwrap(Fr(bytes: sk)), a = try XCTUnwrap(Fr(bytes: alpha))
            XCTAssertEqual(RedJubjub.verificationKey(key), vk, "vector \(n)")
            XCTAssertEqual((key + a).bytes, rsk, "vector \(n)")
            XCTAssertEqual(RedJubjub.verificationKey(key + a), rvk, "vector \(n)")
            XCTAssertTrue(RedJubjub.verify(sig, message: m, key: vk), "vector \(n)")
            XCTAssertTrue(RedJubjub.verify(rsig, message: m, key: rvk), "vector \(n)")
            // Under the other key, over another message, or with a byte changed: refused.
            XCTAssertFalse(RedJubjub.verify(sig, message: m, key: rvk), "vector \(n)")
            var other = m
            other[31] ^= 1
            XCTAssertFalse(RedJubjub.verify(sig, message: other, key: vk), "vector \(n)")
            var forged = sig
            forged[33] ^= 1
            XCTAssertFalse(RedJubjub.verify(forged, message: m, key: vk), "vector \(n)")
            // Ours verify too, and a fixed T gives a fixed signature (one key, one message).
            let ours = RedJubjub.sign(m, key: key + a)
            XCTAssertTrue(RedJubjub.verify(ours, message: m, key: rvk), "vector \(n)")
            let t = [UInt8](repeating: UInt8(n), count: 80)
            XCTAssertEqual(RedJubjub.sign(m, key: key, random: t), RedJubjub.sign(m, key: key, random: t))
            XCTAssertNotEqual(RedJubjub.sign(m, key: key), RedJubjub.sign(m, key: key))
        }
    }
}
