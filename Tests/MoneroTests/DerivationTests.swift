import CSodium
@testable import Monero
import WalletCore
import XCTest
import WalletCrypto

/// The scan's own variable-base multiplication against libsodium's, which refuses points
/// outside the prime-order subgroup (Monero's vectors for those are in MoneroFixtureTests).
final class DerivationTests: XCTestCase {
    /// libsodium: (8a mod ℓ)·R for R in the subgroup; for others, a·(8R) (three additions first).
    private func reference(_ a: [UInt8], _ r: [UInt8]) -> [UInt8]? {
        var eightA = [UInt8](repeating: 0, count: 32), out = [UInt8](repeating: 0, count: 32)
        crypto_core_ed25519_scalar_mul(&eightA, a, [8] + [UInt8](repeating: 0, count: 31))
        if crypto_scalarmult_ed25519_noclamp(&out, eightA, r) == 0 { return out }
        var p = r
        for _ in 0..<3 {
            var doubled = [UInt8](repeating: 0, count: 32)
            guard crypto_core_ed25519_add(&doubled, p, p) == 0 else { return nil }
            p = doubled
        }
        return crypto_scalarmult_ed25519_noclamp(&out, a, p) == 0 ? out : nil
    }

    private func randomScalar() -> [UInt8] {
        var s = [UInt8](repeating: 0, count: 32)
        crypto_core_ed25519_scalar_random(&s)
        return s
    }

    /// A point of order 8 (libsodium's blocklist holds such points): adding it gives keys
    /// with a small-order part, which Monero accepts and libsodium's multiplication refuses.
    private let order8 = try! Hex.decode("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")

    /// r·G for a random r, plus the order-8 point when `mixed`.
    private func randomKey(mixed: Bool) -> [UInt8] {
        var r = [UInt8](repeating: 0, count: 32)
        crypto_scalarmult_ed25519_base_noclamp(&r, randomScalar())
        guard mixed else { return r }
        var sum = [UInt8](repeating: 0, count: 32)
        XCTAssertEqual(crypto_core_ed25519_add(&sum, r, order8), 0)
        return sum
    }

    func testAgreesWithLibsodiumOnRandomKeys() throws {
        XCTAssertNotNil(EdwardsPoint(bytes: order8))
        var checked = 0
        for round in 0..<300 {
            let a = round == 0 ? [UInt8](repeating: 0, count: 32) : randomScalar()
            let r = randomKey(mixed: round % 3 == 1)
            if round % 3 == 1 { XCTAssertNotEqual(crypto_core_ed25519_is_valid_point(r), 1, "libsodium refuses it") }
            let mine = Ed25519.moneroDerivation(secret: SecureBytes(a), publicKey: r)
            if round == 0 {
                XCTAssertEqual(mine, [1] + [UInt8](repeating: 0, count: 31), "0·R is the identity")
                continue
            }
            XCTAssertEqual(mine, reference(a, r), "round \(round)")
            checked += 1
        }
        XCTAssertEqual(checked, 299)
        // The largest scalars (top digit carries) and small ones.
        for a in [
            [UInt8](repeating: 0xFF, count: 31) + [0x0F], [1] + [UInt8](repeating: 0, count: 31), [8] + [UInt8](repeating: 0, count: 31),
        ] {
            var reduced = [UInt8](repeating: 0, count: 32)
            crypto_core_ed25519_scalar_reduce(&reduced, a + [UInt8](repeating: 0, count: 32))
            let r = randomKey(mixed: false)
            XCTAssertEqual(Ed25519.moneroDerivation(secret: SecureBytes(reduced), publicKey: r), reference(reduced, r))
        }
    }

    /// The X25519 filter's candidates hold the exact derivation for every view key (both
    /// signs of a′), every key with or without a small-order part; keys that are no point or
    /// of small order get none (the exact path decides).
    /// Each batched-ladder path this CPU runs, in turn.
    func testFilterCandidatesHoldTheExactDerivation() throws {
        var viaNegation = 0
        let paths = CurveBatchPath.allCases.filter(\.isSupported)
        for round in 0..<40 * paths.count {
            let a = randomScalar()
            if a[31] < 0x08 { viaNegation += 1 }
            let filter = ViewTagFilter(viewSecret: SecureBytes(a), path: paths[round % paths.count])
            var keys = (0..<8).map { randomKey(mixed: $0 % 2 == 1) }
            keys.append(order8)  // small order: 8·a·R is the identity
            keys.append(try Hex.decode("0200000000000000000000000000000000000000000000000000000000000000"))  // not a point
            let candidates = filter.candidates(keys)
            for (key, pair) in zip(keys.prefix(8), candidates) {
                let exact = try XCTUnwrap(Ed25519.moneroDerivation(secret: SecureBytes(a), publicKey: key))
                let pair = try XCTUnwrap(pair, "round \(round)")
                XCTAssertTrue(pair.even == exact || pair.odd == exact, "round \(round)")
                XCTAssertEqual(pair.even[31] & 0x80, 0)
            }
            XCTAssertNil(candidates[8], "small order: the ladder's result is zero")
            // The identity, the point of order 2, one of order 4, and 1 encoded as p + 1.
            let edges = try [
                "0100000000000000000000000000000000000000000000000000000000000000",
                "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
                "0000000000000000000000000000000000000000000000000000000000000000",
                "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
            ].map { try Hex.decode($0) }
            let mixed = filter.candidates(edges + keys.prefix(3) + [[1, 2, 3]])
            XCTAssertTrue(mixed.prefix(4).allSatisfy { $0 == nil }, "round \(round)")
            XCTAssertTrue(zip(mixed[4..<7], candidates.prefix(3)).allSatisfy { $0?.even == $1?.even && $0?.odd == $1?.odd })
            XCTAssertNil(mixed[7], "not 32 bytes")
        }
        XCTAssertGreaterThan(viaNegation, 5, "both forms of the scalar were exercised")
    }

    func testRefusesWhatIsNotAPoint() throws {
        // y = p (non-canonical 0... encoded as p) and a y with no x.
        let p = try Hex.decode("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f")
        XCTAssertNil(Ed25519.moneroDerivation(secret: SecureBytes(randomScalar()), publicKey: p))
        let noX = try Hex.decode("0200000000000000000000000000000000000000000000000000000000000000")
        XCTAssertEqual(crypto_core_ed25519_is_valid_point(noX), 0)
        XCTAssertNil(Ed25519.moneroDerivation(secret: SecureBytes(randomScalar()), publicKey: noX))
    }
}
