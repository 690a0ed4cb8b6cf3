import Foundation
import SatchelTestSupport
import WalletCore
import XCTest
@testable import Zcash
@testable import ZcashScan
import WalletCrypto

/// CCurveBatch's Edwards ladder and decoding (`JubjubBatch`'s kernel) against the Swift Jubjub
/// code as the oracle, on every path this CPU runs: repr_J([k]P) and repr_J([k]([8]P)) (Sapling's
/// KA) over 10^5 random points on the IFMA and AVX2 paths (10^4 on the portable kernel, which the
/// scanner does not use: the Swift code is the portable path), in batches of 1, 7, 8, 9, 63, 64, 65 and
/// 200, points with a small-order part included; and the decodings (the kernel's, and
/// `JubjubPoint.decodeAll`'s) against `JubjubPoint(bytes:)`.
final class JubjubBatchTests: XCTestCase {
    private static let paths = CurveBatchPath.allCases.filter(\.isSupported)

    private static func scalar<R: RandomNumberGenerator>(_ generator: inout R) -> Fr {
        Fr(wide: (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// A random point of the whole curve (a small-order part and all): a random v until one decodes.
    private static func anyPoint<R: RandomNumberGenerator>(_ generator: inout R) -> JubjubPoint {
        while true {
            var b = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
            b[31] &= 0xBF
            if let p = JubjubPoint(bytes: b) { return p }
        }
    }

    func testRandomPointsAgainstTheSwiftCode() {
        let sizes = [1, 7, 8, 9, 63, 64, 65, 200]
        let rounds = 240  // 240 × 417 = 100,080 points
        let failures = Locked([String]())
        DispatchQueue.concurrentPerform(iterations: 8) { chunk in
            var generator = SystemRandomNumberGenerator()
            // A walk from a point with a small-order part by a step with none: each point new.
            var point = Self.anyPoint(&generator)
            let step = SaplingGenerators.spendAuth.times(Self.scalar(&generator))
            for round in stride(from: chunk, to: rounds, by: 8) {
                for size in sizes {
                    var points = [JubjubPoint]()
                    for _ in 0..<size {
                        point = point + step
                        points.append(point)
                    }
                    let k = JubjubBatch.Scalar(Self.scalar(&generator))
                    let cofactor = round % 2 == 0
                    let want = points.map { (cofactor ? $0.timesCofactor() : $0).times(k.value).bytes }
                    for path in Self.paths where path != .portable || round % 10 == 0 {
                        if JubjubBatch.kernelMultiples(points, by: k, cofactor: cofactor, path: path) != want {
                            failures.withLock { $0.append("round \(round), batch of \(size) on \(path.rawValue) differs") }
                        }
                    }
                }
            }
        }
        XCTAssertEqual(failures.get(), [])
    }

    func testEdgeScalarsAndTheScannersEntry() throws {
        var generator = SystemRandomNumberGenerator()
        let p = Self.anyPoint(&generator)
        let minusOne = Fr.one.negated
        let edges: [Fr] = [
            .zero, .one, minusOne, Fr(2), Fr(8), Fr(15), Fr(16), Fr(17), Fr(UInt64.max),
            Fr(canonical: FrModulus.modulus.shiftedRight(1)), minusOne - Fr(7),
        ]
        let points = [JubjubPoint.identity, p, p.negated, p, SaplingGenerators.spendAuth, p.timesCofactor()]
        for path in Self.paths {
            for (i, k) in edges.enumerated() {
                let s = JubjubBatch.Scalar(k)
                XCTAssertTrue(s.digits.allSatisfy { (-8...8).contains($0) })
                for cofactor in [false, true] {
                    XCTAssertEqual(
                        JubjubBatch.kernelMultiples(points, by: s, cofactor: cofactor, path: path),
                        points.map { (cofactor ? $0.timesCofactor() : $0).times(k).bytes }, "edge scalar \(i) on \(path.rawValue)")
                }
            }
            let k = JubjubBatch.Scalar(Self.scalar(&generator))
            XCTAssertEqual(
                JubjubBatch.encodedMultiples(points, by: k, cofactor: true, path: path),
                points.map { $0.timesCofactor().times(k.value).bytes })
            XCTAssertEqual(JubjubBatch.kernelMultiples([], by: k, cofactor: true, path: path), [])
        }
        // The Swift code's batch encoding (the portable path's), on points with Z ≠ 1.
        let multiples = (0..<65).map { _ in Self.anyPoint(&generator).times(Self.scalar(&generator)) }
        XCTAssertEqual(JubjubPoint.encodeAll(multiples), multiples.map(\.bytes))
        XCTAssertEqual(JubjubPoint.encodeAll([]), [])
    }

    /// Random encodings (about half decode), points' own encodings with either sign, v ≥ q, the
    /// points u = 0 (v = ±1) with and without the sign bit (ZIP 216), v = 0, wrong lengths.
    func testDecodingAgainstJubjubPoint() {
        var generator = SystemRandomNumberGenerator()
        func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        let q = FqModulus.modulus.littleEndianBytes
        var qMinusOne = q
        qMinusOne[0] -= 1
        let one = [1] + [UInt8](repeating: 0, count: 31)
        func signed(_ b: [UInt8]) -> [UInt8] { var s = b; s[31] |= 0x80; return s }
        let p = Self.anyPoint(&generator)
        var edges: [[UInt8]] = [
            [UInt8](repeating: 0, count: 32), signed([UInt8](repeating: 0, count: 32)), one, signed(one),
            qMinusOne, signed(qMinusOne), q, signed(q), [UInt8](repeating: 0xFF, count: 32), [], bytes(31), bytes(33),
            p.bytes, p.negated.bytes, SaplingGenerators.spendAuth.bytes,
        ]
        edges += (0..<8).map { _ in Self.anyPoint(&generator).bytes }
        var batches = [edges]
        for size in Array(1...17) + [200] {
            batches += (0..<20).map { _ in
                (0..<size).map { i -> [UInt8] in
                    if i % 3 == 0 { return Self.anyPoint(&generator).bytes }
                    var b = bytes(32)
                    b[31] &= i % 2 == 0 ? 0xBF : 0xFF
                    return b
                }
            }
        }
        var decoded = 0
        for (b, batch) in batches.enumerated() {
            let want = batch.map { JubjubPoint(bytes: $0)?.bytes }
            decoded += want.filter { $0 != nil }.count
            for path in Self.paths {
                let got = JubjubBatch.kernelDecode(batch, path: path)
                let differ = batch.indices.filter { got[$0]?.bytes != want[$0] }
                XCTAssertEqual(differ, [], "batch \(b) on \(path.rawValue): these decode otherwise")
            }
            XCTAssertEqual(JubjubBatch.decodeAll(batch).map { $0?.bytes }, want)
            // The Swift code's batch decoding (the portable path's), u itself compared: its parity
            // alone would let a wrong u through half the time.
            let one = batch.map { JubjubPoint(bytes: $0).map { [$0.x, $0.y, $0.z] } }
            XCTAssertEqual(JubjubPoint.decodeAll(batch).map { $0.map { [$0.x, $0.y, $0.z] } }, one, "batch \(b), JubjubPoint.decodeAll")
        }
        XCTAssertGreaterThan(decoded, 2_000)
    }

    /// A block's Sapling epks are decoded when it is parsed, all together, as one at a time:
    /// the sandblasted mainnet block's 2,005.
    func testOutputEphemeralPointsDecodedWithTheBlock() throws {
        let path = TestPaths.fixture("zcash-mainnet-sample").appendingPathComponent("mainnet_1735000_sandblasted.compact.pb").path
        let data = try CompactBlockFileSource(path: path).blocks(from: 1_735_000, count: 1)
        let transactions = try ZcashCompactBlock.parse(XCTUnwrap(data.first).blob, expectedHeight: 1_735_000).transactions
        XCTAssertEqual(transactions.reduce(0) { $0 + $1.outputEphemeralPoints.count }, 2_005)
        for tx in transactions {
            XCTAssertEqual(tx.outputEphemeralPoints.map { $0?.bytes }, tx.outputs.map { JubjubPoint(bytes: $0.ephemeralKey)?.bytes })
        }
    }
}
