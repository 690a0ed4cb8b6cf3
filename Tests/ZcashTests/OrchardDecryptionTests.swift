import Foundation
import WalletCore
import XCTest
@testable import Zcash
@testable import ZcashScan

/// Orchard note encryption against orchard_note_encryption (10 notes): KA, KDF, the compact
/// 52 bytes found by their key and by no other, the full 580 bytes' memo, and the checks
/// that refuse a plaintext whose cmx or ephemeral key does not recompute.
final class OrchardDecryptionTests: XCTestCase {

    /// The batch key agreement (one ivk, many ephemeral keys) gives the vectors' shared secret
    /// at each key's own row, and at every row what the one-at-a-time path gives.
    func testBatchedKeyAgreement() throws {
        let rows = try ZcashVectors.rows("orchard/orchard_note_encryption.json")
        let epks = try rows.map { try XCTUnwrap(PallasPoint(bytes: try XCTUnwrap($0.bytes("ephemeral_key"), "ephemeral_key"))) }
        for (n, row) in rows.enumerated() {
            let key = try XCTUnwrap(
                OrchardIncomingViewingKey(bytes: try XCTUnwrap(row.bytes("incoming_viewing_key"), "incoming_viewing_key")))
            let decryptor = OrchardDecryptor(key: key)
            let batch = decryptor.sharedSecrets(epks)
            XCTAssertEqual(Hex.encode(batch[n]), row["shared_secret"] as? String, "row \(n)")
            XCTAssertEqual(batch, epks.map { decryptor.sharedSecret($0) }, "row \(n)")
        }
    }

    func testNoteEncryptionVectors() throws {
        let rows = try ZcashVectors.rows("orchard/orchard_note_encryption.json")
        let values = try ZcashVectors.exactIntegers("orchard/orchard_note_encryption.json", field: "v")
        XCTAssertEqual(rows.count, 10)
        let keys = try rows.map {
            try XCTUnwrap(OrchardIncomingViewingKey(bytes: try XCTUnwrap($0.bytes("incoming_viewing_key"), "incoming_viewing_key")))
        }
        for (n, (row, value)) in zip(rows, values).enumerated() {
            let encrypted = try XCTUnwrap(row.bytes("c_enc"), "c_enc")
            let action = CompactOrchardAction(
                nullifier: try XCTUnwrap(row.bytes("rho"), "rho"), cmx: try XCTUnwrap(row.bytes("cmx"), "cmx"),
                ephemeralKey: try XCTUnwrap(row.bytes("ephemeral_key"), "ephemeral_key"), ciphertext: Array(encrypted.prefix(52)))
            let decryptor = OrchardDecryptor(key: keys[n])
            let epk = try XCTUnwrap(OrchardDecryptor.ephemeralPoint(action))
            XCTAssertEqual(Hex.encode(decryptor.sharedSecret(epk)), row["shared_secret"] as? String)
            let found = try XCTUnwrap(decryptor.tryDecrypt(action), "row \(n)")
            XCTAssertEqual(Hex.encode(found.key), row["k_enc"] as? String)
            XCTAssertEqual(found.note.value, value)
            XCTAssertEqual(Hex.encode(found.note.address.diversifier), row["default_d"] as? String)
            XCTAssertEqual(Hex.encode(found.note.address.transmissionKey), row["default_pk_d"] as? String)
            XCTAssertEqual(Hex.encode(found.note.rseed), row["rseed"] as? String)
            XCTAssertEqual(Hex.encode(found.note.esk.bytes), row["esk"] as? String)
            // The full ciphertext: the plaintext, the memo at 52..<564.
            let plaintext = try XCTUnwrap(SaplingMemo.plaintext(encCiphertext: encrypted, key: found.key))
            XCTAssertEqual(Hex.encode(plaintext), row["p_enc"] as? String)
            XCTAssertEqual(Hex.encode(Array(plaintext[52..<564])), row["memo"] as? String)
            // Every other row's key finds nothing.
            for (m, other) in keys.enumerated() where m != n && other != keys[n] {
                XCTAssertNil(OrchardDecryptor(key: other).tryDecrypt(action), "row \(n) with key \(m)")
            }
            // A cmx, an ephemeral key or a rho that is not the note's is refused.
            var cmx = action.cmx
            cmx[0] ^= 1
            XCTAssertNil(
                decryptor.tryDecrypt(
                    CompactOrchardAction(
                        nullifier: action.nullifier, cmx: cmx, ephemeralKey: action.ephemeralKey, ciphertext: action.ciphertext)))
            var rho = action.nullifier
            rho[0] ^= 1
            XCTAssertNil(
                decryptor.tryDecrypt(
                    CompactOrchardAction(nullifier: rho, cmx: action.cmx, ephemeralKey: action.ephemeralKey, ciphertext: action.ciphertext))
            )
            XCTAssertNil(
                decryptor.tryDecrypt(
                    CompactOrchardAction(
                        nullifier: action.nullifier, cmx: action.cmx,
                        ephemeralKey: [UInt8](repeating: 0, count: 32), ciphertext: action.ciphertext)))
        }
    }
}
