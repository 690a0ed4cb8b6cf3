import CSodium
@testable import Monero
import WalletCore
import WalletScan
import XCTest
@testable import MoneroScan
import WalletCrypto

/// The filtered scan tries a view-tag candidate as the derivation before deriving exactly: an
/// output that a sender built on the other sign of D (which it can compute: it knows r) is not
/// the wallet's by Monero's rules, and must be refused as monero-wallet-rpc refuses it.
final class DetectorCandidateTests: XCTestCase {
    private func scalar() -> [UInt8] {
        var s = [UInt8](repeating: 0, count: 32)
        crypto_core_ed25519_scalar_random(&s)
        return s
    }

    /// A v2 miner-style transaction (clear amount, RingCT type 0) with one tagged output to the
    /// wallet's primary address, built on `derivation` for the sender's key R.
    private func transaction(paying keys: MoneroKeys, r: [UInt8], derivation: [UInt8], amount: UInt64) throws -> MoneroTransaction {
        let index: [UInt8] = [0]
        let hs = Ed25519.hashToScalar(derivation + index).bytes
        let outputKey = try Ed25519.add(try XCTUnwrap(Ed25519.basePointMultiple(bytes: hs)), keys.spendPublic)
        let tag = Keccak256.hash(Array("view_tag".utf8) + derivation + index)[0]
        let txKey = try XCTUnwrap(Ed25519.basePointMultiple(bytes: r))
        var blob: [UInt8] = [2, 0, 1, 0xFF, 5, 1]  // version, unlock time, 1 input: coinbase at 5, 1 output
        blob += varintBytes(amount) + [0x03] + outputKey + [tag]
        blob += [33, 0x01] + txKey  // extra: the transaction key
        blob += [0]  // RingCT type 0
        return try MoneroTransaction(blob: blob)
    }

    func testAnOutputOnTheOtherSignOfTheDerivationIsRefused() throws {
        let keys = try MoneroKeys(spendSecret: SecureBytes(scalar()))
        let detector = try MoneroDetector(keys: keys, majors: 1, minors: 5)
        for round in 0..<20 {
            let r = scalar()
            let d = try XCTUnwrap(Ed25519.moneroDerivation(secret: SecureBytes(r), publicKey: keys.viewPublic))
            var flipped = d
            flipped[31] ^= 0x80
            let honest = try transaction(paying: keys, r: r, derivation: d, amount: 1_000 + UInt64(round))
            let forged = try transaction(paying: keys, r: r, derivation: flipped, amount: 7)
            let found = detector.scan([honest, forged])
            XCTAssertEqual(found[0].map(\.amount), [1_000 + UInt64(round)], "round \(round): the honest output")
            XCTAssertEqual(found[0].first?.derivation, d)
            XCTAssertEqual(found[1].count, 0, "round \(round): an output on -D is not the wallet's")
            // The exact path (the reference) says the same.
            XCTAssertEqual(detector.scan(honest).count, 1)
            XCTAssertEqual(detector.scan(forged).count, 0)
        }
    }
}
