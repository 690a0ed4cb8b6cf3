import WalletCore
import XCTest
@testable import Monero
import WalletScan
@testable import MoneroScan
import WalletCrypto

/// RingCT types 1–3 (mainnet 2017–2018). No official vector covers them and the regtest
/// fixture is all type 6, so these transactions and amounts are built here by the definitions
/// in Monero's rctTypes.h (serialize_rctsig_base) and rctOps.cpp (ecdhEncode, v1).
final class RingCTOldTypesTests: XCTestCase {

    private func filled(_ byte: UInt8, _ i: Int) -> [UInt8] { [UInt8](repeating: byte &+ UInt8(i), count: 32) }

    /// A v2 transaction with 2 inputs and 3 outputs; base and prunable as for `type`.
    private func transaction(type: UInt8) -> (blob: [UInt8], prefix: [UInt8], base: [UInt8], prunable: [UInt8]) {
        var prefix = varintBytes(2) + varintBytes(0) + varintBytes(2)
        for i in 0..<2 { prefix += [0x02] + varintBytes(0) + varintBytes(1) + varintBytes(UInt64(7 + i)) + filled(0x10, i) }
        prefix += varintBytes(3)
        for i in 0..<3 { prefix += varintBytes(0) + [0x02] + filled(0x20, i) }
        prefix += varintBytes(0)  // no extra
        var base = [type] + varintBytes(30_000_000)
        if type == 2 { for i in 0..<2 { base += filled(0xA0, i) } }  // pseudoOuts
        for i in 0..<3 { base += filled(0xB0, i) + filled(0xC0, i) }  // ecdhInfo: mask, amount
        for i in 0..<3 { base += filled(0xD0, i) }  // outPk
        let prunable = [UInt8](repeating: 0xEE, count: 40)
        return (prefix + base + prunable, prefix, base, prunable)
    }

    func testBaseLayoutAndIDForTypes1To3() throws {
        for type: UInt8 in [1, 2, 3] {
            let t = transaction(type: type)
            let tx = try MoneroTransaction(blob: t.blob)
            XCTAssertEqual(tx.rctType, type)
            XCTAssertEqual(tx.fee, 30_000_000)
            XCTAssertEqual(tx.encryptedMasks, (0..<3).map { filled(0xB0, $0) }, "type \(type)")
            XCTAssertEqual(tx.encryptedAmounts, (0..<3).map { filled(0xC0, $0) }, "type \(type)")
            XCTAssertEqual(tx.commitments, (0..<3).map { filled(0xD0, $0) }, "type \(type)")
            // id = H(H(prefix) ‖ H(base) ‖ H(prunable)): the base must end where outPk ends.
            let id = Keccak256.hash(Keccak256.hash(t.prefix) + Keccak256.hash(t.base) + Keccak256.hash(t.prunable))
            XCTAssertEqual(tx.id, id, "type \(type)")
        }
    }

    func testAmountOpensAndIsCheckedAgainstTheCommitment() throws {
        let hs = Ed25519.hashToScalar(Array("an output's shared scalar".utf8)).bytes
        let mask = Ed25519.hashToScalar(Array("a blinding mask".utf8)).bytes
        let amount: UInt64 = 1_234_567_890_123
        var amountScalar = [UInt8](repeating: 0, count: 32)
        for k in 0..<8 { amountScalar[k] = UInt8(truncatingIfNeeded: amount >> (8 * UInt64(k))) }
        let zero = [UInt8](repeating: 0, count: 32)
        func add(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] { Ed25519.scalarSubtract(a, Ed25519.scalarSubtract(zero, b)) }
        // ecdhEncode v1: mask + Hs(hs), amount + Hs(Hs(hs)).
        let first = Ed25519.hashToScalar(hs).bytes
        let second = Ed25519.hashToScalar(first).bytes
        let encryptedMask = add(mask, first), encryptedAmount = add(amountScalar, second)
        let commitment = try Ed25519.add(
            try XCTUnwrap(Ed25519.basePointMultiple(bytes: mask)),
            try XCTUnwrap(Ed25519.multiply(bytes: amountScalar, PedersenH.encoded)))
        for type: UInt8 in [1, 2, 3] {
            XCTAssertEqual(
                MoneroDetector.openAmount(
                    rctType: type, encryptedAmount: encryptedAmount, encryptedMask: encryptedMask,
                    commitment: commitment, sharedScalar: hs), amount)
        }
        // A commitment to another amount does not open: the output is not counted.
        let other = try Ed25519.add(try XCTUnwrap(Ed25519.basePointMultiple(bytes: mask)), PedersenH.encoded)
        XCTAssertNil(
            MoneroDetector.openAmount(
                rctType: 2, encryptedAmount: encryptedAmount, encryptedMask: encryptedMask,
                commitment: other, sharedScalar: hs))
        // Hashing once for the amount (Hs(hs), the mask's key) is wrong, and caught.
        XCTAssertNil(
            MoneroDetector.openAmount(
                rctType: 2, encryptedAmount: add(amountScalar, first), encryptedMask: encryptedMask,
                commitment: commitment, sharedScalar: hs))
    }
}
