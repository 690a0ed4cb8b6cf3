import SatchelTestSupport
import WalletCore
import XCTest
@testable import Zcash
import WalletCrypto

final class JubjubTests: XCTestCase {
    /// Every Sapling generator from its group hash, against sapling_generators.json.
    func testGeneratorsFromTheirGroupHashes() throws {
        let rows = try ZcashVectors.rows("sapling_generators.json")
        XCTAssertEqual(rows.count, 1)
        let v = rows[0]
        XCTAssertEqual(Hex.encode(SaplingGenerators.spendAuth.bytes), v.hex("skb"))
        XCTAssertEqual(Hex.encode(SaplingGenerators.proofGeneration.bytes), v.hex("pkb"))
        XCTAssertEqual(Hex.encode(SaplingGenerators.nullifierPosition.bytes), v.hex("npb"))
        XCTAssertEqual(Hex.encode(SaplingGenerators.noteCommitRandomness.bytes), v.hex("wprb"))
        XCTAssertEqual(Hex.encode(SaplingGenerators.valueCommitValue.bytes), v.hex("vcvb"))
        XCTAssertEqual(Hex.encode(SaplingGenerators.valueCommitRandomness.bytes), v.hex("vcrb"))
        for i in 0..<4 { XCTAssertEqual(Hex.encode(SaplingGenerators.pedersen(i + 1).bytes), v.hex("pb\(i)")) }
    }

    /// Field and group laws on random values: these fail on a wrong constant or carry.
    func testFieldAndGroupLaws() {
        for _ in 0..<20 {
            let a = Fq(wide: Sodium.randomBytes(64).bytes), b = Fq(wide: Sodium.randomBytes(64).bytes)
            XCTAssertEqual(a * a.inverse, a.isZero ? .zero : .one)
            XCTAssertEqual(a.squared(), a * a)
            XCTAssertEqual(b.negated.squared(), b * b)
            XCTAssertEqual((a + b) - b, a)
            XCTAssertEqual((a * b) * b.inverse, a)
            XCTAssertEqual(a.squared().squareRoot.map { $0 == a || $0 == a.negated }, true)
            XCTAssertEqual(Fq(bytes: a.bytes), a)
            let s = Fr(wide: Sodium.randomBytes(64).bytes), t = Fr(wide: Sodium.randomBytes(64).bytes)
            XCTAssertEqual(s.squared(), s * s)
            let g = SaplingGenerators.spendAuth
            XCTAssertTrue(g.times(s) + g.times(t) == g.times(s + t))
            XCTAssertTrue(g.times(s).times(t) == g.times(s * t))
            XCTAssertEqual(JubjubPoint(bytes: g.times(s).bytes)?.bytes, g.times(s).bytes)
        }
        // The subgroup's order sends a generator to the identity; the curve order is 8·r_J.
        XCTAssertTrue(SaplingGenerators.spendAuth.times(littleEndian: FrModulus.modulus.littleEndianBytes).isIdentity)
        XCTAssertEqual(Fr(bytes: FrModulus.modulus.littleEndianBytes), nil)
        XCTAssertEqual(Fq(bytes: FqModulus.modulus.littleEndianBytes), nil)
        // Squares at the edges: q − 1, 1, 0 and the largest limbs.
        let qMinus1 = Fq.zero - .one
        XCTAssertEqual(qMinus1.squared(), .one)
        XCTAssertEqual(Fq.one.squared(), .one)
        XCTAssertEqual(Fq.zero.squared(), .zero)
        let big = Fq(bytes: FqModulus.modulus.subtracting(Limbs(2, 0, 0, 0)).0.littleEndianBytes)!
        XCTAssertEqual(big.squared(), big * big)
    }

    /// ToScalar of 64 bytes equals the integer reduced mod r_J (checked with a known value:
    /// 2^256 mod r_J is the Montgomery R the design notes give).
    func testWideReduction() {
        var bytes = [UInt8](repeating: 0, count: 64)
        bytes[32] = 1  // 2^256
        XCTAssertEqual(Hex.encode(Fr(wide: bytes).bytes.reversed()), "09a6fc6f479155c6932514eeeb8814f4f315d62f66b6e75025f80bb3b99607d9")
        var q = [UInt8](repeating: 0, count: 64)
        q[32] = 1
        XCTAssertEqual(Hex.encode(Fq(wide: q).bytes.reversed()), "1824b159acc5056f998c4fefecbc4ff55884b7fa0003480200000001fffffffe")
    }
}
