import Foundation
import SatchelTestSupport
import WalletCore
import XCTest
@testable import Zcash

/// Pallas, GroupHash^P and Sinsemilla against zcash-test-vectors (orchard_map_to_curve,
/// orchard_group_hash, orchard_generators, orchard_sinsemilla), and the group law against
/// itself on random scalars.
final class PallasTests: XCTestCase {

    func testFieldsAndSquareRoots() throws {
        // p − 1 and q − 1 are −1; 5 is p's least non-residue.
        XCTAssertEqual(PallasBase(hex: "40000000000000000000000000000000224698fc094cf91b992d30ed00000000"), PallasBase.one.negated)
        XCTAssertEqual(PallasScalar(hex: "40000000000000000000000000000000224698fc0994a8dd8c46eb2100000000"), PallasScalar.one.negated)
        XCTAssertNil(PallasBase(5).squareRoot)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let bytes = (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let a = PallasBase(wide: bytes)
            let root = try XCTUnwrap(a.squared().squareRoot)
            XCTAssertTrue(root == a || root == a.negated)
            if !a.isZero { XCTAssertNil((a.squared() * PallasBase(5)).squareRoot) }
            XCTAssertEqual(a * a.inverse, a.isZero ? .zero : .one)
        }
    }

    /// One inversion for many (Montgomery's trick) against one each, on both curves' fields.
    func testInvertedAll() {
        let values = (1...65).map { PallasBase(UInt64($0) &* 0x9E37_79B9_7F4A_7C15) }
        XCTAssertEqual(PallasBase.invertedAll(values), values.map(\.inverse))
        let fq = (1...9).map { Fq(UInt64($0) &* 0xC2B2_AE3D_27D4_EB4F) }
        XCTAssertEqual(Fq.invertedAll(fq), fq.map(\.inverse))
        XCTAssertEqual(Fq.invertedAll([]), [])
    }

    func testMapToCurve() throws {
        let rows = try ZcashVectors.rows("orchard/orchard_map_to_curve.json")
        XCTAssertEqual(rows.count, 13)
        for row in rows {
            let u = try XCTUnwrap(PallasBase(bytes: try XCTUnwrap(row.bytes("u"), "u")))
            XCTAssertEqual(Hex.encode(PallasPoint.encode(PallasGroupHash.mapToIsoCurve(u))), row["point"] as? String)
        }
    }

    func testGroupHash() throws {
        let rows = try ZcashVectors.rows("orchard/orchard_group_hash.json")
        XCTAssertEqual(rows.count, 11)
        for row in rows {
            let point = PallasGroupHash.hash(
                domain: try XCTUnwrap(row.bytes("domain"), "domain"), message: try XCTUnwrap(row.bytes("msg"), "msg"))
            XCTAssertEqual(Hex.encode(point.bytes), row["point"] as? String)
            // The encoding reads back as the same point.
            XCTAssertEqual(PallasPoint(bytes: point.bytes).map { $0 == point }, true)
        }
    }

    func testGenerators() throws {
        let row = try XCTUnwrap(try ZcashVectors.rows("orchard/orchard_generators.json").first)
        let q = { (d: String) in PallasGroupHash.hash(domain: Array("z.cash:SinsemillaQ".utf8), message: Array(d.utf8)) }
        let cases: [(String, PallasPoint)] = [
            ("skb", PallasGroupHash.hash(domain: "z.cash:Orchard", message: Array("G".utf8))),
            ("nkb", PallasGroupHash.hash(domain: "z.cash:Orchard", message: Array("K".utf8))),
            ("vcvb", PallasGroupHash.hash(domain: "z.cash:Orchard-cv", message: Array("v".utf8))),
            ("vcrb", PallasGroupHash.hash(domain: "z.cash:Orchard-cv", message: Array("r".utf8))),
            ("cmb", PallasGroupHash.hash(domain: "z.cash:Orchard-NoteCommit-r", message: [])),
            ("cmq", q("z.cash:Orchard-NoteCommit-M")),
            ("ivkb", PallasGroupHash.hash(domain: "z.cash:Orchard-CommitIvk-r", message: [])),
            ("ivkq", q("z.cash:Orchard-CommitIvk-M")),
            ("mcq", q("z.cash:Orchard-MerkleCRH")),
        ]
        for (name, point) in cases { XCTAssertEqual(Hex.encode(point.bytes), row[name] as? String, name) }
    }

    func testSinsemilla() throws {
        let rows = try ZcashVectors.rows("orchard/orchard_sinsemilla.json")
        XCTAssertEqual(rows.count, 11)
        for row in rows {
            // The message is a list of bits, or hex of one byte per bit.
            let bits: [UInt8]
            if let list = row["msg"] as? [Int] { bits = list.map(UInt8.init) } else { bits = try XCTUnwrap(row.bytes("msg"), "msg") }
            XCTAssertTrue(bits.allSatisfy { $0 <= 1 })
            let point = Sinsemilla.hashToPoint(domain: try XCTUnwrap(row.bytes("domain"), "domain"), bits: bits)
            XCTAssertEqual(Hex.encode(point.bytes), row["point"] as? String)
            XCTAssertEqual(Hex.encode(point.extracted.bytes), row["hash"] as? String)
        }
    }

    /// [a]G + [b]G = [a + b]G, [a]([b]G) = [ab]G, [q]G = O, doubling = adding to itself, and
    /// encodings round-trip, on random scalars.
    func testGroupLaw() throws {
        let g = PallasGroupHash.hash(domain: "z.cash:Orchard", message: Array("G".utf8))
        var generator = SystemRandomNumberGenerator()
        func scalar() -> PallasScalar { PallasScalar(wide: (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) }) }
        let order = Array(try Hex.decode("40000000000000000000000000000000224698fc0994a8dd8c46eb2100000001").reversed())
        XCTAssertTrue(g.times(order).isIdentity)
        XCTAssertTrue((g + .identity) == g && (PallasPoint.identity + g) == g && (g - g).isIdentity)
        XCTAssertEqual(PallasPoint.identity.bytes, [UInt8](repeating: 0, count: 32))
        // Extract_P without a branch: 0 for the identity in any projective form, x otherwise.
        XCTAssertTrue(PallasPoint.identity.extracted.isZero)
        XCTAssertTrue(PallasPoint(x: .zero, y: PallasBase(7), z: .zero).extracted.isZero)
        let twice = g.doubled()
        XCTAssertEqual(twice.extracted, twice.affine!.x)
        XCTAssertEqual(twice.bytes, PallasPoint.encode(twice.affine!))
        for _ in 0..<40 {
            let a = scalar(), b = scalar()
            let ag = g.times(a), bg = g.times(b)
            XCTAssertTrue(ag + bg == g.times(a + b))
            XCTAssertTrue(ag.times(b) == g.times(a * b))
            XCTAssertTrue(ag.doubled() == ag + ag)
            let back = try XCTUnwrap(PallasPoint(bytes: ag.bytes))
            XCTAssertTrue(back == ag)
            XCTAssertEqual(back.bytes, ag.bytes)
        }
        // A non-canonical x, and an x with no point, are refused.
        XCTAssertNil(
            PallasPoint(bytes: Array(try Hex.decode("40000000000000000000000000000000224698fc094cf91b992d30ed00000002").reversed())))
    }

    /// The GLV constants against their definitions: ζ and λ are nontrivial cube roots of unity
    /// with [λ]P = (ζx, y); (a1, −|b1|) and (a2, b2) lie in the lattice and span it (their
    /// determinant is q); g1 and g2 are ⌊b2·2^256/q⌋ and ⌊|b1|·2^256/q⌋.
    func testGLVConstants() throws {
        let (zeta, lambda) = (PallasGLV.zeta, PallasGLV.lambda)
        XCTAssertTrue(zeta != .one && zeta * zeta * zeta == .one)
        XCTAssertTrue(lambda != .one && lambda * lambda * lambda == .one)
        XCTAssertTrue(PallasGLV.a1 - PallasGLV.b1abs * lambda == .zero)
        XCTAssertTrue(PallasGLV.a2 + PallasGLV.b2 * lambda == .zero)
        let g = PallasGroupHash.hash(domain: "z.cash:Orchard", message: Array("G".utf8))
        let (x, y) = try XCTUnwrap(g.affine)
        XCTAssertTrue(g.times(lambda.bytes) == PallasPoint(affineX: zeta * x, affineY: y))
        // Whole numbers as little-endian words, for the determinant and the floors.
        func words(_ s: PallasScalar) -> [UInt64] { let c = s.canonical; return [c.l0, c.l1, c.l2, c.l3] }
        func product(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
            var r = [UInt64](repeating: 0, count: a.count + b.count)
            for i in a.indices {
                var carry: UInt64 = 0
                for j in b.indices { r[i + j] = mac(r[i + j], a[i], b[j], &carry) }
                r[i + b.count] = carry
            }
            return r
        }
        func sum(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
            var r = [UInt64](), carry: UInt64 = 0
            for i in 0..<max(a.count, b.count) { r.append(adc(i < a.count ? a[i] : 0, i < b.count ? b[i] : 0, &carry)) }
            return r + [carry]
        }
        func less(_ a: [UInt64], _ b: [UInt64]) -> Bool {
            for i in stride(from: max(a.count, b.count) - 1, through: 0, by: -1) {
                let (x, y) = (i < a.count ? a[i] : 0, i < b.count ? b[i] : 0)
                if x != y { return x < y }
            }
            return false
        }
        let q = [
            PallasScalarModulus.modulus.l0, PallasScalarModulus.modulus.l1, PallasScalarModulus.modulus.l2, PallasScalarModulus.modulus.l3,
        ]
        // a1·b2 + |b1|·a2 = q (the determinant, with b1 < 0).
        XCTAssertFalse(
            less(sum(product(words(PallasGLV.a1), words(PallasGLV.b2)), product(words(PallasGLV.b1abs), words(PallasGLV.a2))), q))
        XCTAssertFalse(
            less(q, sum(product(words(PallasGLV.a1), words(PallasGLV.b2)), product(words(PallasGLV.b1abs), words(PallasGLV.a2)))))
        for (g, b) in [(PallasGLV.g1, PallasGLV.b2), (PallasGLV.g2, PallasGLV.b1abs)] {
            let shifted = [0, 0, 0, 0] + words(b)  // b·2^256
            let below = product([g.0, g.1, g.2], q)
            XCTAssertFalse(less(shifted, below), "g·q ≤ b·2^256")
            XCTAssertTrue(less(shifted, sum(below, q)), "b·2^256 < (g + 1)·q")
        }
    }

    /// Splitting recomposes: k1 + k2·λ = k with |k1|, |k2| < 2^129, on edge and random scalars;
    /// and [k]P by GLV equals the plain window's [k]P.
    func testGLVSplitAndMultiplication() throws {
        var generator = SystemRandomNumberGenerator()
        func scalar() -> PallasScalar { PallasScalar(wide: (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) }) }
        func signedHalf(_ digits: [Int8]) -> PallasScalar {
            digits.reversed().reduce(PallasScalar.zero) { acc, d in
                acc * PallasScalar(16) + (d < 0 ? PallasScalar(UInt64(-Int(d))).negated : PallasScalar(UInt64(d)))
            }
        }
        func half(_ digits: [UInt8], _ negative: Bool) -> PallasScalar {
            let m = digits.reversed().reduce(PallasScalar.zero) { $0 * PallasScalar(16) + PallasScalar(UInt64($1)) }
            return negative ? m.negated : m
        }
        let edges: [PallasScalar] = [
            .zero, .one, PallasScalar.one.negated, PallasGLV.lambda, PallasGLV.lambda.negated,
            PallasScalar(canonical: PallasScalarModulus.modulus.shiftedRight(1)),
            PallasScalar(canonical: Limbs(0, 0, 1, 0)), PallasScalar(canonical: Limbs(0, 0, 0, 1 << 61)),
        ]
        for k in edges + (0..<5000).map({ _ in scalar() }) {
            let split = PallasGLVScalar(k)
            XCTAssertEqual(split.digits1.count, PallasGLVScalar.windows)
            XCTAssertTrue(split.digits1[32] <= 1 && split.digits2[32] <= 1, "a half of 2^129 or more")
            XCTAssertTrue(half(split.digits1, split.negative1) + half(split.digits2, split.negative2) * PallasGLV.lambda == k)
            // The signed digits (CCurveBatch's) give the same halves, each digit in [−8, 8].
            XCTAssertTrue((split.signed1 + split.signed2).allSatisfy { (-8...8).contains($0) })
            XCTAssertTrue(signedHalf(split.signed1) + signedHalf(split.signed2) * PallasGLV.lambda == k)
        }
        var point = PallasGroupHash.hash(domain: "z.cash:Orchard", message: Array("G".utf8))
        for k in edges + (0..<30).map({ _ in scalar() }) {
            XCTAssertTrue(point.times(k) == point.times(k.bytes))
            XCTAssertTrue(point.times(PallasGLVScalar(k)) == point.times(k.bytes))
            point = point.times(scalar().bytes)
        }
        XCTAssertTrue(point.times(PallasScalar.zero).isIdentity)
        XCTAssertTrue(PallasPoint.identity.times(scalar()).isIdentity)
    }

    /// One inversion for many points gives each point's own encoding, the identity's included.
    func testEncodeAll() throws {
        let g = PallasGroupHash.hash(domain: "z.cash:Orchard", message: Array("G".utf8))
        var generator = SystemRandomNumberGenerator()
        let points = (0..<9).map { i in
            i == 4 ? PallasPoint.identity : g.times((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
        XCTAssertEqual(PallasPoint.encodeAll(points), points.map(\.bytes))
        XCTAssertEqual(PallasPoint.encodeAll([]), [])
        XCTAssertEqual(PallasPoint.encodeAll([.identity]), [[UInt8](repeating: 0, count: 32)])
    }

    func testPoseidon() throws {
        let permutations = try ZcashVectors.rows("orchard/orchard_poseidon.json")
        XCTAssertEqual(permutations.count, 11)
        for row in permutations {
            var state = try XCTUnwrap(row["initial_state"] as? [String]).map { try XCTUnwrap(PallasBase(bytes: try Hex.decode($0))) }
            Poseidon.permute(&state)
            XCTAssertEqual(state.map { Hex.encode($0.bytes) }, row["final_state"] as? [String])
        }
        let hashes = try ZcashVectors.rows("orchard/orchard_poseidon_hash.json")
        XCTAssertEqual(hashes.count, 11)
        for row in hashes {
            let input = try XCTUnwrap(row["input"] as? [String]).map { try XCTUnwrap(PallasBase(bytes: try Hex.decode($0))) }
            XCTAssertEqual(Hex.encode(Poseidon.hash(input[0], input[1]).bytes), row["output"] as? String)
        }
    }

    /// The constants in Poseidon.swift are what scripts/poseidon-params.py makes from their
    /// definition (the Poseidon paper's Grain LFSR), not copied numbers.
    func testPoseidonConstantsComeFromTheirDefinition() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [TestPaths.packageRoot.appendingPathComponent("scripts/poseidon-params.py").path]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let generated = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        let source = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("Sources/Zcash/Poseidon.swift"), encoding: .utf8)
        XCTAssertEqual(generated.split(separator: "\n").count, 1 + 64 + 1 + 1 + 3 + 1)
        XCTAssertTrue(source.contains(generated), "Poseidon.swift's constants differ from the script's")
    }
}
