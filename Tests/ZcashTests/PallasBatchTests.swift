import Foundation
import WalletCore
import XCTest
@testable import Zcash
import WalletCrypto

/// CCurveBatch's GLV ladder (`PallasBatch`'s kernel) against the Swift ladder as the oracle:
/// repr_P([k]P) on every path this CPU runs (the portable kernel too, which the scanner does
/// not use), over 10^5 random points in batches of 1, 7, 8, 9, 63, 64, 65
/// and 200 (partial vectors included), and on edge scalars and points; and the batched point
/// decoding against `PallasPoint(bytes:)`.
final class PallasBatchTests: XCTestCase {
    private static let g = PallasGroupHash.hash(domain: "z.cash:Orchard", message: Array("G".utf8))
    private static let paths = CurveBatchPath.allCases.filter(\.isSupported)

    private static func scalar<R: RandomNumberGenerator>(_ generator: inout R) -> PallasScalar {
        PallasScalar(wide: (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// The oracle: the Swift GLV ladder, then one inversion for all encodings.
    private static func expected(_ points: [PallasPoint], _ k: PallasGLVScalar) -> [[UInt8]] {
        PallasPoint.encodeAll(points.map { $0.times(k) })
    }

    /// Mismatches, as messages, for `points` times `k` on every path.
    private static func compare(_ points: [PallasPoint], _ k: PallasScalar, _ what: String) -> [String] {
        let split = PallasGLVScalar(k)
        let want = expected(points, split)
        return paths.compactMap { path in
            PallasBatch.kernelMultiples(points, by: split, path: path) == want ? nil : "\(what) on \(path.rawValue) differs"
        }
    }

    func testRandomPointsAgainstTheSwiftLadder() {
        let sizes = [1, 7, 8, 9, 63, 64, 65, 200]
        let rounds = 240  // 240 × 417 = 100,080 points
        let failures = Locked([String]())
        DispatchQueue.concurrentPerform(iterations: 8) { chunk in
            var generator = SystemRandomNumberGenerator()
            // A random walk with a random step: each point is new, and costs one addition.
            var point = Self.g.times(Self.scalar(&generator))
            let step = Self.g.times(Self.scalar(&generator))
            for round in stride(from: chunk, to: rounds, by: 8) {
                for size in sizes {
                    var points = [PallasPoint]()
                    for _ in 0..<size {
                        point = point + step
                        points.append(point)
                    }
                    // Affine, as the scanner's decoded epks are (the batch also normalizes).
                    if round % 2 == 0 { points = points.map { PallasPoint(affineX: $0.affine!.x, affineY: $0.affine!.y) } }
                    let found = Self.compare(points, Self.scalar(&generator), "round \(round), batch of \(size)")
                    if !found.isEmpty { failures.withLock { $0 += found } }
                }
            }
        }
        XCTAssertEqual(failures.get(), [])
    }

    func testEdgeScalarsAndPoints() throws {
        var generator = SystemRandomNumberGenerator()
        let p = Self.g.times(Self.scalar(&generator))
        let edges: [PallasScalar] = [
            .zero, .one, PallasScalar.one.negated, PallasScalar(2), PallasScalar(15), PallasScalar(16),
            PallasGLV.lambda, PallasGLV.lambda.negated, PallasGLV.lambda + .one,
            PallasScalar(canonical: PallasScalarModulus.modulus.shiftedRight(1)),
            PallasScalar(canonical: Limbs(0, 0, 1, 0)), PallasScalar(canonical: Limbs(0, 0, 0, 1 << 61)),
        ]
        // The identity first, inside a vector and last; P beside −P and beside itself; G.
        let points = [PallasPoint.identity, p, p.negated, p, Self.g, .identity, Self.g.doubled(), p + Self.g, .identity]
        for (i, k) in edges.enumerated() {
            XCTAssertEqual(Self.compare(points, k, "edge scalar \(i)"), [])
            XCTAssertEqual(Self.compare([p], k, "edge scalar \(i) alone"), [])
        }
        // [k]P for the point's own order's neighbours: [q − 1]P = −P, [1]P = P.
        for path in Self.paths {
            XCTAssertEqual(
                PallasBatch.kernelMultiples([p, .identity], by: PallasGLVScalar(PallasScalar.one.negated), path: path),
                [p.negated.bytes, [UInt8](repeating: 0, count: 32)])
            XCTAssertEqual(PallasBatch.kernelMultiples([p], by: PallasGLVScalar(.one), path: path), [p.bytes])
            XCTAssertEqual(PallasBatch.kernelMultiples([], by: PallasGLVScalar(.one), path: path), [])
            // The scanner's entry: the kernel where the path has one, the Swift code elsewhere.
            let k = PallasGLVScalar(Self.scalar(&generator))
            XCTAssertEqual(PallasBatch.encodedMultiples(points, by: k, path: path), Self.expected(points, k))
            XCTAssertEqual(
                PallasBatch.decodeAll(points.map(\.bytes) + [[1], p.bytes.map { ~$0 }], path: path).map { $0?.bytes },
                (points.map(\.bytes) + [[1], p.bytes.map { ~$0 }]).map { PallasPoint(bytes: $0)?.bytes })
            XCTAssertEqual(
                PallasBatch.kernelMultiples([.identity], by: PallasGLVScalar(.one), path: path), [[UInt8](repeating: 0, count: 32)])
        }
    }

    /// Random encodings (about half of all x have a point), encodings of points with either
    /// sign, non-canonical x, zeros, the identity with the sign bit, wrong lengths: every path
    /// decodes as `PallasPoint(bytes:)` does, in batches of every size up to 17 and of 200.
    func testDecodingAgainstPallasPoint() throws {
        var generator = SystemRandomNumberGenerator()
        func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        let p = PallasBaseModulus.modulus.littleEndianBytes
        var pPlusOne = p
        pPlusOne[0] += 1
        var pMinusOne = p
        pMinusOne[0] -= 1
        let point = Self.g.times(Self.scalar(&generator))
        var edges: [[UInt8]] = [
            [UInt8](repeating: 0, count: 32), [UInt8](repeating: 0, count: 31) + [0x80], p, pPlusOne,
            p.enumerated().map { $0 == 31 ? $1 | 0x80 : $1 }, [UInt8](repeating: 0xFF, count: 32),
            pMinusOne, [1] + [UInt8](repeating: 0, count: 31), [], bytes(31), bytes(33),
            point.bytes, point.negated.bytes, Self.g.bytes,
        ]
        edges += (0..<8).map { _ in Self.g.times(Self.scalar(&generator)).bytes }
        var batches = [edges]
        for size in Array(1...17) + [200] {
            batches += (0..<20).map { _ in
                (0..<size).map { i -> [UInt8] in
                    if i % 3 == 0 { return Self.g.times(Self.scalar(&generator)).bytes }
                    var b = bytes(32)
                    b[31] &= i % 2 == 0 ? 0xBF : 0xFF  // x mostly below p, sometimes not
                    return b
                }
            }
        }
        var decoded = 0
        for (b, batch) in batches.enumerated() {
            let want = batch.map { PallasPoint(bytes: $0) }
            decoded += want.filter { $0 != nil }.count
            for path in Self.paths {
                let got = PallasBatch.kernelDecode(batch, path: path)
                let differ = batch.indices.filter { got[$0]?.bytes != want[$0]?.bytes }
                XCTAssertEqual(differ, [], "batch \(b) on \(path.rawValue): these decode otherwise")
                XCTAssertTrue(got.allSatisfy { $0 == nil || $0!.isIdentity || $0!.z == .one }, "decoded points are affine")
            }
        }
        XCTAssertGreaterThan(decoded, 2_000)
        XCTAssertLessThan(decoded, 5_000)
    }
}
