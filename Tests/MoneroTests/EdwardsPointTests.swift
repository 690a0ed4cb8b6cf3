import WalletCore
import XCTest
@testable import Monero
import WalletScan
import WalletCrypto

/// The scan's own point arithmetic against libsodium's, on points and scalars drawn at random
/// (libsodium is the reference; the vectors for hash_to_ec are in HashToPointTests).
final class EdwardsPointTests: XCTestCase {
    private func randomPoint() -> [UInt8] {
        let scalar = (0..<32).map { _ in UInt8.random(in: 0...255) }
        return Ed25519.basePointMultiple(bytes: Ed25519Scalar.reduce32(SecureBytes(scalar)).bytes)!
    }

    func testDecodeEncodeAddAndDoubleAgreeWithLibsodium() throws {
        for _ in 0..<50 {
            let p = randomPoint(), q = randomPoint()
            let pp = try XCTUnwrap(EdwardsPoint(bytes: p)), qq = try XCTUnwrap(EdwardsPoint(bytes: q))
            XCTAssertEqual(pp.bytes, p)
            XCTAssertEqual((pp + qq).bytes, try Ed25519.add(p, q))
            XCTAssertEqual(pp.doubled().bytes, try Ed25519.add(p, p))
            XCTAssertEqual((pp + .identity).bytes, p)
        }
        // y = 2 gives u/v a non-square: no point (libsodium agrees).
        var notOnCurve = [UInt8](repeating: 0, count: 32)
        notOnCurve[0] = 2
        XCTAssertNil(EdwardsPoint(bytes: notOnCurve))
        XCTAssertFalse(Ed25519.isValidPoint(notOnCurve))
    }

    func testAmountTimesHAgreesWithLibsodium() throws {
        var amounts: [UInt64] = [1, 2, 255, 256, 0x0100_0000_0000_0000, UInt64.max, 1_234_567_890_123]
        amounts += (0..<40).map { _ in max(1, UInt64.random(in: 1...UInt64.max) >> UInt64.random(in: 0...63)) }  // 0 is checked below
        for amount in amounts {
            var scalar = [UInt8](repeating: 0, count: 32)
            for k in 0..<8 { scalar[k] = UInt8(truncatingIfNeeded: amount >> (8 * UInt64(k))) }
            XCTAssertEqual(PedersenH.times(amount), Ed25519.multiply(bytes: scalar, PedersenH.encoded), "\(amount)")
        }
        XCTAssertEqual(PedersenH.times(0), EdwardsPoint.identity.bytes)
    }
}
