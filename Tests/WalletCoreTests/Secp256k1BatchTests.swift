import CCurveBatch
@testable import WalletCore
import XCTest
@testable import WalletCrypto

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

    /// Every vector path here passes the known-answer check that lets the scan use it, and the
    /// check fails a kernel with any of its three answers wrong by one bit (the kernels are
    /// the portable ones here, so that the check is seen to pass and fail on the same code).
    func testTheKnownAnswerCheckPassesEveryPathHereAndFailsAWrongKernel() throws {
        for path in CurveBatchPath.allCases where path != .portable {
            XCTAssertEqual(Secp256k1Batch.hasOwnKernel(path), path.isSupported, "\(path)")
            XCTAssertEqual(Secp256k1Batch.checkedPaths.contains(path), path.isSupported, "\(path)")
        }
        XCTAssertFalse(Secp256k1Batch.hasOwnKernel(.portable))
        func flip(_ points: [SecureBytes]) -> [SecureBytes] {
            var last = points.last!.bytes
            last[32] ^= 1
            return points.dropLast() + [SecureBytes(last)]
        }
        let single = { (k: SecureBytes, p: [Secp256k1.PublicKey]) in
            try Secp256k1Batch.kernelSharedPoints(privateKey: k, points: p, path: .portable)
        }
        let lanes = { (k: [SecureBytes], p: [Secp256k1.PublicKey]) in
            try Secp256k1Batch.kernelSharedPoints(privateKeys: k, points: p, path: .portable)
        }
        let generator = { (t: SecureBytes, q: [Secp256k1.PublicKey]) in
            Secp256k1Batch.kernelGeneratorSums(scalars: t, addends: q, path: .portable)
        }
        XCTAssertTrue(Secp256k1Batch.knownAnswersAgree(single: single, lanes: lanes, generator: generator))
        XCTAssertFalse(Secp256k1Batch.knownAnswersAgree(single: { flip(try single($0, $1)) }, lanes: lanes, generator: generator))
        XCTAssertFalse(Secp256k1Batch.knownAnswersAgree(single: single, lanes: { flip(try lanes($0, $1)) }, generator: generator))
        XCTAssertFalse(
            Secp256k1Batch.knownAnswersAgree(
                single: single, lanes: lanes,
                generator: { t, q in
                    generator(t, q).map {
                        var out = $0; out[40] ^= 1; return out
                    }
                }))
        // A kernel that refuses (a scalar it calls invalid) fails the check too.
        XCTAssertFalse(Secp256k1Batch.knownAnswersAgree(single: single, lanes: lanes, generator: { _, _ in nil }))
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

    /// The fixed-base kernel (BIP352's P_0 = B_spend + t_0·G for a block's transactions) against
    /// libsecp256k1's generator multiplication and point sum, on every path and on both fields
    /// (plain, and the Montgomery one of the IFMA kernels): random scalars in batches that are not
    /// a multiple of 8, the ends of the range, sums at infinity; t·G alone; 0 and n refused.
    func testGeneratorSumsAgreeWithLibsecp256k1() throws {
        let n = try Hex.decode("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")
        var minusOne = n
        minusOne[31] -= 1
        let one = [UInt8](repeating: 0, count: 31) + [1]
        let g = try Secp256k1.publicKey(of: SecureBytes(one))
        let paths = CurveBatchPath.allCases.filter(\.isSupported)
        let zero = [UInt8](repeating: 0, count: 33)
        func chunks(_ bytes: [UInt8]) -> [[UInt8]] { stride(from: 0, to: bytes.count, by: 33).map { Array(bytes[$0..<$0 + 33]) } }
        for round in 0..<30 {
            var scalars = (0..<(1 + round % 19)).map { _ in randomKey().bytes }
            if round == 0 {
                scalars += [
                    one, minusOne, [0x80] + [UInt8](repeating: 0, count: 31),
                    [UInt8](repeating: 0, count: 16) + [UInt8](repeating: 0xFF, count: 16),
                ]
            }
            let addends = [try Secp256k1.publicKey(of: randomKey()), g.negated, g]  // 1·G − G and (n − 1)·G + G: infinity
            let products = try scalars.map { try Secp256k1.publicKey(of: SecureBytes($0)) }
            let want = addends.flatMap { q in products.map { Secp256k1.PublicKey.sum([$0, q])?.compressed ?? zero } }
            let packed = SecureBytes(scalars.flatMap { $0 })
            let words = Secp256k1Batch.affineWords(addends)
            for path in paths {
                XCTAssertEqual(
                    Secp256k1Batch.kernelGeneratorSums(scalars: packed, addends: addends, path: path).map(chunks), want,
                    "the \(path) kernel, round \(round)")
                for plain in [Int32(0), 1] where plain == 0 || path != .ifma {
                    var out = [UInt8](repeating: 0xAA, count: 33 * scalars.count * addends.count)
                    let status = packed.withUnsafeBytes { t in
                        satchel_secp256k1_gen_batch_field(
                            path.c, plain, t.baseAddress!.assumingMemoryBound(to: UInt8.self), scalars.count, words, addends.count, &out)
                    }
                    XCTAssertEqual(status, 0)
                    XCTAssertEqual(chunks(out), want, "\(plain == 1 ? "plain" : "Montgomery") field on the \(path) kernel, round \(round)")
                    var alone = [UInt8](repeating: 0xAA, count: 33 * scalars.count)
                    XCTAssertEqual(
                        packed.withUnsafeBytes { t in
                            satchel_secp256k1_gen_batch_field(
                                path.c, plain, t.baseAddress!.assumingMemoryBound(to: UInt8.self), scalars.count, nil, 0, &alone)
                        }, 0)
                    XCTAssertEqual(chunks(alone), products.map(\.compressed), "t·G alone, \(path)")
                }
            }
        }
        // 0 and n are no scalars: the whole call says so, whichever scalar it is.
        for bad in [[UInt8](repeating: 0, count: 32), n] {
            for path in paths {
                XCTAssertNil(
                    Secp256k1Batch.kernelGeneratorSums(scalars: SecureBytes(randomKey().bytes + bad), addends: [g], path: path), "\(path)")
            }
        }
    }

    /// The ladder with a scalar per point (BIP352's (b_scan·input_hash)·A for a block's
    /// transactions) against libsecp256k1's ECDH, every path and both fields, batches that are
    /// not a multiple of 8, the ends of the scalar's range among random keys; 0 and n refused.
    func testOwnScalarPerPointAgreesWithLibsecp256k1() throws {
        let n = try Hex.decode("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")
        var minusOne = n
        minusOne[31] -= 1
        let g = try Secp256k1.publicKey(of: SecureBytes([UInt8](repeating: 0, count: 31) + [1]))
        let paths = CurveBatchPath.allCases.filter(\.isSupported)
        for round in 0..<40 {
            var keys = (0..<(1 + round % 19)).map { _ in randomKey() }
            var points = try keys.map { _ in try Secp256k1.publicKey(of: randomKey()) }
            if round == 0 {
                keys += [SecureBytes([UInt8](repeating: 0, count: 31) + [1]), SecureBytes(minusOne)]
                points += [g, g.negated]
            }
            let want = try zip(keys, points).map { try Secp256k1.ecdhPoint(privateKey: $0, publicKey: $1).bytes }
            var scalars = [UInt8]()
            for key in keys { scalars += key.bytes }
            let words = Secp256k1Batch.affineWords(points)
            for path in paths {
                XCTAssertEqual(
                    try Secp256k1Batch.kernelSharedPoints(privateKeys: keys, points: points, path: path).map(\.bytes), want,
                    "the \(path) kernel, round \(round)")
                XCTAssertEqual(try Secp256k1Batch.sharedPoints(privateKeys: keys, points: points, path: path).map(\.bytes), want)
                for plain in [Int32(0), 1] where plain == 0 || path != .ifma {
                    var out = [UInt8](repeating: 0xAA, count: 33 * keys.count)
                    XCTAssertEqual(satchel_secp256k1_mul_lanes_field(path.c, plain, scalars, words, keys.count, &out), 0)
                    XCTAssertEqual(
                        stride(from: 0, to: out.count, by: 33).map { Array(out[$0..<$0 + 33]) }, want,
                        "\(plain == 1 ? "plain" : "Montgomery") field on the \(path) kernel, round \(round)")
                }
            }
        }
        for bad in [[UInt8](repeating: 0, count: 32), n] {
            for path in paths {
                XCTAssertThrowsError(
                    try Secp256k1Batch.kernelSharedPoints(privateKeys: [randomKey(), SecureBytes(bad)], points: [g, g], path: path)
                ) { XCTAssertEqual($0 as? CurveError, .invalidPrivateKey) }
            }
        }
    }
}
