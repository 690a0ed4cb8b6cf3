import CCurveBatch
import WalletCore
import XCTest

/// CCurveBatch's secp256k1 ladder (BIP352's shared points, issue 46) against libsecp256k1's
/// ECDH as the oracle, on every path this CPU runs: the plain product (portable and AVX2) and
/// the Montgomery one (what the IFMA kernels run, here on the portable and AVX2 ladders), random
/// keys and points, batches that are not a multiple of 8, and the edges of the scalar's range.
/// `make check-long` runs the same comparison on 10^6 cases (bitcoin-bench --oracle).
final class Secp256k1BatchTests: XCTestCase {
    private var rng = SystemRandomNumberGenerator()

    private func randomKey() -> SecureBytes {
        while true {
            let k = SecureBytes((0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) })
            if Secp256k1.isValidPrivateKey(k) { return k }
        }
    }

    private func oracle(_ key: SecureBytes, _ points: [Secp256k1.PublicKey]) throws -> [[UInt8]] {
        try points.map { try Secp256k1.ecdhPoint(privateKey: key, publicKey: $0).bytes }
    }

    /// The Montgomery field's ladder through the C calls (the IFMA path's arithmetic).
    private func montgomery(_ key: SecureBytes, _ points: [Secp256k1.PublicKey], path: CurveBatchPath) throws -> [[UInt8]] {
        var d1 = [Int8](repeating: 0, count: 33), d2 = [Int8](repeating: 0, count: 33)
        let status = key.withUnsafeBytes { satchel_secp256k1_split($0.baseAddress!.assumingMemoryBound(to: UInt8.self), &d1, &d2) }
        XCTAssertEqual(status, 0)
        var field = satchel_mod52()
        satchel_secp256k1_field(&field, 0)
        XCTAssertEqual(field.k1, 0)
        let beta: [UInt64] = [0xC139_6C28_7195_01EE, 0x9CF0_4975_12F5_8995, 0x6E64_479E_AC34_34E9, 0x7AE9_6A2B_657C_0710]
        let words = Secp256k1Batch.affineWords(points)
        var out = [UInt8](repeating: 0, count: 33 * points.count)
        XCTAssertEqual(satchel_glv_batch_sec1(path.c, &field, beta, d1, d2, 33, words, points.count, &out), 0)
        return (0..<points.count).map { Array(out[33 * $0..<33 * $0 + 33]) }
    }

    func testEveryPathAgreesWithLibsecp256k1() throws {
        let paths = CurveBatchPath.allCases.filter(\.isSupported)
        XCTAssertTrue(paths.contains(.portable))
        for round in 0..<120 {
            let key = randomKey()
            let points = try (0..<(1 + round % 19)).map { _ in try Secp256k1.publicKey(of: randomKey()) }
            let want = try oracle(key, points)
            for path in paths {
                let got = try Secp256k1Batch.kernelSharedPoints(privateKey: key, points: points, path: path).map(\.bytes)
                XCTAssertEqual(got, want, "the \(path) kernel, round \(round)")
                XCTAssertEqual(try montgomery(key, points, path: path), want, "the Montgomery field on the \(path) ladder, round \(round)")
                XCTAssertEqual(try Secp256k1Batch.sharedPoints(privateKey: key, points: points, path: path).map(\.bytes), want)
            }
        }
    }

    /// Scalars at the ends of the range and of the GLV split's bound, and points whose x is
    /// above 2^255 (the top bit SEC1 keeps and repr_P would not).
    func testEdges() throws {
        let n = try Hex.decode("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")
        func minus(_ k: UInt8) -> [UInt8] {
            var v = n
            v[31] -= k
            return v
        }
        let keys: [[UInt8]] = [
            [UInt8](repeating: 0, count: 31) + [1], minus(1), minus(2), [0x80] + [UInt8](repeating: 0, count: 31),
            [UInt8](repeating: 0, count: 16) + [UInt8](repeating: 0xFF, count: 16),
            [UInt8](repeating: 0, count: 15) + [1] + [UInt8](repeating: 0, count: 16),
            try Hex.decode("5363ad4cc05c30e0a5261c028812645a122e22ea20816678df02967c1b23bd72"),  // λ
        ]
        var points = [try Secp256k1.publicKey(of: SecureBytes([UInt8](repeating: 0, count: 31) + [1]))]
        points.append(points[0].negated)
        while points.count < 12 {
            let p = try Secp256k1.publicKey(of: randomKey())
            if p.compressed[1] >= 0x80 { points.append(p) }
        }
        for k in keys {
            let key = SecureBytes(k)
            let want = try oracle(key, points)
            for path in CurveBatchPath.allCases where path.isSupported {
                XCTAssertEqual(
                    try Secp256k1Batch.kernelSharedPoints(privateKey: key, points: points, path: path).map(\.bytes), want,
                    "\(path) \(Hex.encode(k))")
                XCTAssertEqual(try montgomery(key, points, path: path), want, "Montgomery, \(path) \(Hex.encode(k))")
            }
        }
        // 0, n and above n are no keys: refused before any ladder runs.
        for bad in [[UInt8](repeating: 0, count: 32), n, [UInt8](repeating: 0xFF, count: 32)] {
            for path in CurveBatchPath.allCases where path.isSupported {
                XCTAssertThrowsError(try Secp256k1Batch.kernelSharedPoints(privateKey: SecureBytes(bad), points: points, path: path)) {
                    XCTAssertEqual($0 as? CurveError, .invalidPrivateKey)
                }
            }
        }
        XCTAssertEqual(try Secp256k1Batch.kernelSharedPoints(privateKey: randomKey(), points: [], path: .portable).count, 0)
    }
}
