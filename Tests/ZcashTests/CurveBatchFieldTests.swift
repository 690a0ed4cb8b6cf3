import CCurveBatch
import XCTest
@testable import Zcash

/// The batched field kernels (issue 23) against the Swift field as the oracle: a·b·2^-260 mod p
/// on random and edge elements, for Pallas's two fields and Jubjub's base field, on every path
/// this CPU runs; every path gives the same bits. And the choice of path from SATCHEL_SIMD.
final class CurveBatchFieldTests: XCTestCase {
    typealias Lanes = (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
    typealias Batch = (Lanes, Lanes, Lanes, Lanes, Lanes)

    private static func limbs52(_ x: Limbs) -> [UInt64] {
        let w = [x.l0, x.l1, x.l2, x.l3]
        return (0..<5).map { j in
            let bit = 52 * j, word = bit / 64, shift = bit % 64
            var v = w[word] >> UInt64(shift)
            if shift > 12 && word + 1 < 4 { v |= w[word + 1] << UInt64(64 - shift) }
            return v & 0xF_FFFF_FFFF_FFFF
        }
    }

    private static func value(_ l: [UInt64]) -> Limbs {
        var w = [UInt64](repeating: 0, count: 4)
        for (j, limb) in l.enumerated() {
            let bit = 52 * j, word = bit / 64, shift = bit % 64
            w[word] |= limb << UInt64(shift)
            if shift > 12 && word + 1 < 4 { w[word + 1] |= limb >> UInt64(64 - shift) }
        }
        return Limbs(w[0], w[1], w[2], w[3])
    }

    /// 8 elements into the limb-major layout, and back.
    private static func pack(_ xs: [Limbs]) -> [UInt64] {
        var flat = [UInt64](repeating: 0, count: 40)
        for (lane, x) in xs.enumerated() {
            let l = limbs52(x)
            for j in 0..<5 { flat[8 * j + lane] = l[j] }
        }
        return flat
    }

    private static func unpack(_ flat: [UInt64]) -> [Limbs] {
        var out = [Limbs]()
        out.reserveCapacity(8)
        for lane in 0..<8 { out.append(value([flat[lane], flat[8 + lane], flat[16 + lane], flat[24 + lane], flat[32 + lane]])) }
        return out
    }

    private static func multiply(_ path: satchel_simd_path, _ m: inout satchel_mod52, _ a: [Limbs], _ b: [Limbs]) -> [Limbs] {
        var r = [UInt64](repeating: 0, count: 40)
        let (fa, fb) = (pack(a), pack(b))
        r.withUnsafeMutableBytes { rp in
            fa.withUnsafeBytes { ap in
                fb.withUnsafeBytes { bp in
                    satchel_fe52_mul8(
                        path, &m, rp.baseAddress!.assumingMemoryBound(to: Lanes.self),
                        ap.baseAddress!.assumingMemoryBound(to: Lanes.self), bp.baseAddress!.assumingMemoryBound(to: Lanes.self))
                }
            }
        }
        return unpack(r)
    }

    private func check<M: FieldModulus>(_ field: M.Type, batches: Int) {
        var m = satchel_mod52()
        var words = [M.modulus.l0, M.modulus.l1, M.modulus.l2, M.modulus.l3]
        satchel_mod52_init(&m, &words)
        let inverse = (0..<260).reduce(PrimeField<M>.one) { r, _ in r * PrimeField<M>(2) }.inverse
        var generator = SystemRandomNumberGenerator()
        func random() -> PrimeField<M> {
            var words = (
                generator.next(), generator.next(), generator.next(), generator.next(),
                generator.next(), generator.next(), generator.next(), generator.next()
            )
            return withUnsafeBytes(of: &words) { PrimeField<M>(wide: Array($0)) }
        }
        let minusOne = PrimeField<M>.one.negated
        let edges: [PrimeField<M>] = [
            .zero, .one, minusOne, PrimeField<M>(2), minusOne - .one, PrimeField<M>(1 << 52), PrimeField<M>(UInt64.max), random(),
        ]
        let paths = [SATCHEL_SIMD_PORTABLE, SATCHEL_SIMD_AVX2, SATCHEL_SIMD_IFMA].filter { satchel_simd_supported($0) != 0 }
        for batch in 0..<batches {
            let a = batch == 0 ? edges : (0..<8).map { _ in random() }
            let b = batch == 0 ? edges.reversed() : batch == 1 ? Array(repeating: minusOne, count: 8) : (0..<8).map { _ in random() }
            let want = zip(a, b).map { ($0 * $1 * inverse).canonical }
            for path in paths {
                let got = Self.multiply(path, &m, a.map(\.canonical), b.map(\.canonical))
                if got != want {
                    XCTFail("\(M.self) on \(String(cString: satchel_simd_path_name(path))): batch \(batch) differs")
                    return
                }
            }
        }
    }

    /// 10^5 random products per field (12,500 batches of 8) on each path, and the edges.
    func testProductsAgainstTheSwiftField() {
        check(PallasBaseModulus.self, batches: 12_500)
        check(PallasScalarModulus.self, batches: 12_500)
        check(FqModulus.self, batches: 12_500)
    }

    /// The complete formulas on 8 lanes give PallasPoint's own X, Y and Z, lane by lane, on
    /// random points in random projective scalings and on the identity, P + P and P + (−P).
    func testPointFormulasAgainstPallasPoint() throws {
        var m = satchel_mod52()
        var words = [
            PallasBaseModulus.modulus.l0, PallasBaseModulus.modulus.l1, PallasBaseModulus.modulus.l2, PallasBaseModulus.modulus.l3,
        ]
        satchel_mod52_init(&m, &words)
        satchel_mod52_set_b(&m, 5)
        let r260 = (0..<260).reduce(PallasBase.one) { x, _ in x + x }
        var generator = SystemRandomNumberGenerator()
        func bytes() -> [UInt8] { (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        let g = PallasGroupHash.hash(domain: "z.cash:Orchard", message: Array("G".utf8))
        func point() -> PallasPoint {
            let p = g.times(bytes()), s = PallasBase(wide: bytes() + bytes())
            return PallasPoint(x: p.x * s, y: p.y * s, z: p.z * s)  // the same point, another Z
        }
        typealias Coordinate = (Lanes, Lanes, Lanes, Lanes, Lanes)
        func coordinate(_ values: [PallasBase]) -> Coordinate {
            let flat = Self.pack(values.map { ($0 * r260).canonical })
            return flat.withUnsafeBytes { $0.load(as: Coordinate.self) }
        }
        func points(_ ps: [PallasPoint]) -> satchel_point8 {
            satchel_point8(x: coordinate(ps.map(\.x)), y: coordinate(ps.map(\.y)), z: coordinate(ps.map(\.z)))
        }
        func flat(_ c: Coordinate) -> [UInt64] { withUnsafeBytes(of: c) { Array($0.bindMemory(to: UInt64.self)) } }
        func same(_ r: satchel_point8, _ want: [PallasPoint]) -> Bool {
            let w = points(want)
            return flat(r.x) == flat(w.x) && flat(r.y) == flat(w.y) && flat(r.z) == flat(w.z)
        }
        let paths = [SATCHEL_SIMD_PORTABLE, SATCHEL_SIMD_AVX2, SATCHEL_SIMD_IFMA].filter { satchel_simd_supported($0) != 0 }
        for round in 0..<200 {
            var a = (0..<8).map { _ in point() }, b = (0..<8).map { _ in point() }
            if round == 0 {
                a[0] = .identity; b[1] = .identity; b[2] = a[2]; b[3] = a[3].negated; a[4] = .identity; b[4] = .identity
            }
            let (pa, pb) = (points(a), points(b))
            for path in paths {
                var sum = satchel_point8(), twice = satchel_point8()
                withUnsafePointer(to: pa) { ap in withUnsafePointer(to: pb) { bp in satchel_point52_add8(path, &m, &sum, ap, bp) } }
                withUnsafePointer(to: pa) { ap in satchel_point52_double8(path, &m, &twice, ap) }
                let name = String(cString: satchel_simd_path_name(path))
                XCTAssertTrue(same(sum, zip(a, b).map { $0 + $1 }), "\(name): round \(round), a + b")
                XCTAssertTrue(same(twice, a.map { $0.doubled() }), "\(name): round \(round), 2a")
            }
        }
    }

    func testThePathChoice() {
        var unavailable: Int32 = -1
        let best = satchel_simd_choose(nil, &unavailable)
        XCTAssertEqual(unavailable, 0)
        XCTAssertEqual(satchel_simd_supported(best), 1)
        XCTAssertEqual(satchel_simd_choose("portable", &unavailable), SATCHEL_SIMD_PORTABLE)
        XCTAssertEqual(unavailable, 0)
        XCTAssertEqual(satchel_simd_choose("sse9", &unavailable), best)
        XCTAssertEqual(unavailable, 1)
        for (name, path) in [("avx2", SATCHEL_SIMD_AVX2), ("ifma", SATCHEL_SIMD_IFMA)] {
            let chosen = satchel_simd_choose(name, &unavailable)
            XCTAssertEqual(chosen, satchel_simd_supported(path) != 0 ? path : best, name)
            XCTAssertEqual(unavailable, satchel_simd_supported(path) != 0 ? 0 : 1, name)
            XCTAssertEqual(String(cString: satchel_simd_path_name(path)), name)
        }
        // This machine class (the project's Zen 4) has IFMA: the fast path must not be lost.
        if let flags = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8), flags.contains(" avx512ifma") {
            XCTAssertEqual(best, SATCHEL_SIMD_IFMA)
        }
    }
}
