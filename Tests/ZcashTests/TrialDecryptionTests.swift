import SatchelTestSupport
import WalletCore
import XCTest
@testable import Zcash
@testable import ZcashScan

/// ZIP-307 trial decryption on fixtures/zcash-sapling: 50 synthetic but protocol-correct blocks,
/// 520 Sapling outputs, the wallet's 14 notes (11 external, 3 internal) and 4 outputs that look
/// like its notes but must be refused.
final class TrialDecryptionTests: XCTestCase {
    struct Output {
        let height: UInt64, txid: String, outputIndex: Int, position: UInt64
        let compact: CompactSaplingOutput
    }

    /// Every Sapling output of the fixture's compact blocks, with its tree position.
    static func outputs() throws -> [Output] {
        var out = [Output]()
        var position = UInt64(1_330_155)  // the tree size before the first block (expected_summary.json)
        for block in try TestPaths.jsonLines(TestPaths.fixture("zcash-sapling/compact_blocks.jsonl")) {
            let height = UInt64(block["height"] as! Int)
            for tx in block["vtx"] as! [[String: Any]] {
                for (i, o) in (tx["outputs"] as! [[String: Any]]).enumerated() {
                    out.append(
                        Output(
                            height: height, txid: tx["txid"] as! String, outputIndex: i, position: position,
                            compact: CompactSaplingOutput(
                                cmu: HexString.bytes(o["cmu"] as! String),
                                ephemeralKey: HexString.bytes(o["ephemeralKey"] as! String),
                                ciphertext: HexString.bytes(o["ciphertext"] as! String))))
                    position += 1
                }
            }
            XCTAssertEqual(UInt64((block["chainMetadata"] as! [String: Any])["saplingCommitmentTreeSize"] as! Int), position)
        }
        return out
    }

    static func walletKeys() throws -> (external: SaplingFullViewingKey, internal: SaplingFullViewingKey) {
        let w = try XCTUnwrap(TestPaths.json(TestPaths.fixture("zcash-sapling/wallet.json")) as? [String: Any])
        let seed = HexString.bytes(try XCTUnwrap(w["seed"] as? String ?? w["bip39_seed"] as? String))
        let fvk = SaplingExtendedSpendingKey.account(seed: seed, network: .main, account: 0).fullViewingKey
        return (fvk, fvk.internal)
    }

    /// KA, KDF and the 52-byte plaintext, step by step, for every row of decryption_intermediates.jsonl.
    func testIntermediates() throws {
        let outputs = try Self.outputs()
        let rows = try TestPaths.jsonLines(TestPaths.fixture("zcash-sapling/decryption_intermediates.jsonl"))
        XCTAssertGreaterThanOrEqual(rows.count, 14)
        for row in rows {
            let label = row["tag"] as? String ?? "?"
            let o = try XCTUnwrap(
                outputs.first { $0.txid == row["txid"] as? String && $0.outputIndex == row["outputIndex"] as? Int }, label)
            let ivk = try XCTUnwrap(Fr(bytes: HexString.bytes(try XCTUnwrap(row["ivk_used"] as? String))))
            let decryptor = SaplingDecryptor(ivk: ivk, consensus: .main)
            let shared = try XCTUnwrap(decryptor.sharedSecret(o.compact.ephemeralKey), label)
            XCTAssertEqual(Hex.encode(shared), row["sharedSecret"] as? String, label)
            // The same secret from the sender's side: [8·esk]pk_d is what the row's esk gives.
            let key = SaplingDecryptor.key(sharedSecret: shared, ephemeralKey: o.compact.ephemeralKey)
            XCTAssertEqual(Hex.encode(key), row["kEnc"] as? String, label)
            XCTAssertEqual(
                Hex.encode(SaplingDecryptor.plaintext52(key: key, ciphertext: o.compact.ciphertext)), row["plaintext52"] as? String, label)
        }
    }

    /// Both IVKs over every output: exactly the expected notes (with values, diversifiers,
    /// rcm, positions and nullifiers), none of the negative cases.
    func testExactlyTheExpectedNotes() throws {
        let outputs = try Self.outputs()
        XCTAssertEqual(outputs.count, 520)
        let (external, internalKey) = try Self.walletKeys()
        var found = [String: (Output, DecryptedNote, String)]()
        for (scope, fvk) in [("external", external), ("internal", internalKey)] {
            let decryptor = SaplingDecryptor(ivk: fvk.incomingViewingKey.ivk, consensus: .main)
            for o in outputs {
                if let note = decryptor.tryDecrypt(o.compact, height: o.height) {
                    XCTAssertNil(found["\(o.txid):\(o.outputIndex)"], "found twice")
                    found["\(o.txid):\(o.outputIndex)"] = (o, note, scope)
                }
            }
        }
        let expected = try TestPaths.jsonLines(TestPaths.fixture("zcash-sapling/expected_notes.jsonl"))
        XCTAssertEqual(expected.count, 14)
        XCTAssertEqual(Set(found.keys), Set(expected.map { "\($0["txid"] as! String):\($0["outputIndex"] as! Int)" }))
        for e in expected {
            let key = "\(e["txid"] as! String):\(e["outputIndex"] as! Int)"
            guard let (o, note, scope) = found[key] else { continue }
            XCTAssertEqual(scope, e["scope"] as? String, key)
            XCTAssertEqual(o.position, UInt64(e["position"] as! Int), key)
            XCTAssertEqual(note.note.value, (e["value"] as? NSNumber)?.uint64Value, key)
            XCTAssertEqual(Hex.encode(note.note.diversifier), e["diversifier"] as? String, key)
            XCTAssertEqual(Hex.encode(note.rseed), e["rseed"] as? String, key)
            XCTAssertEqual(Hex.encode(note.note.rcm.bytes), e["rcm"] as? String, key)
            XCTAssertEqual(Int(note.leadByte), e["leadByte"] as? Int, key)
            let nk = scope == "external" ? external.nk : internalKey.nk
            XCTAssertEqual(note.note.nullifier(nk: nk, position: o.position).map(Hex.encode), e["nullifier"] as? String, key)
            let address = SaplingPaymentAddress(diversifier: note.note.diversifier, transmissionKey: note.note.transmissionKey)
            XCTAssertEqual(address.encoded(.main), e["address"] as? String, key)
        }
        let negatives = try TestPaths.jsonLines(TestPaths.fixture("zcash-sapling/negative_cases.jsonl"))
        XCTAssertEqual(negatives.count, 4)
        for n in negatives {
            XCTAssertNil(found["\(n["txid"] as! String):\(n["outputIndex"] as! Int)"], n["reason"] as? String ?? "")
        }
    }

    /// The negative cases are refused after decryption, not by accident before it: under the
    /// wallet's key each plaintext shows the expected diversifier and lead byte (the account-1
    /// note, for another key, shows garbage).
    func testNegativeCasesFailTheirOwnCheck() throws {
        let outputs = try Self.outputs()
        let (external, _) = try Self.walletKeys()
        let decryptor = SaplingDecryptor(ivk: external.incomingViewingKey.ivk, consensus: .main)
        for n in try TestPaths.jsonLines(TestPaths.fixture("zcash-sapling/negative_cases.jsonl")) {
            let reason = n["reason"] as? String ?? ""
            let o = try XCTUnwrap(outputs.first { $0.txid == n["txid"] as? String && $0.outputIndex == n["outputIndex"] as? Int })
            let k = SaplingDecryptor.key(
                sharedSecret: try XCTUnwrap(decryptor.sharedSecret(o.compact.ephemeralKey)), ephemeralKey: o.compact.ephemeralKey)
            let p = SaplingDecryptor.plaintext52(key: k, ciphertext: o.compact.ciphertext)
            if reason.contains("account 1") {
                XCTAssertNotEqual(Hex.encode(Array(p[1..<12])), n["diversifier"] as? String, reason)  // garbage under our key
                continue
            }
            XCTAssertEqual(Hex.encode(Array(p[1..<12])), n["diversifier"] as? String, reason)
            if reason.contains("lead byte") {
                XCTAssertEqual(p[0], 0x01, reason)
                // At a height inside the grace period the same plaintext passes the lead-byte rule.
                XCTAssertTrue(SaplingConsensus.main.allows(leadByte: 0x01, height: 1_046_400 + 100))
            } else {
                XCTAssertEqual(p[0], 0x02, reason)
            }
        }
    }

    func testLeadByteRules() {
        let c = SaplingConsensus.main
        XCTAssertTrue(c.allows(leadByte: 1, height: 1_046_399))
        XCTAssertFalse(c.allows(leadByte: 2, height: 1_046_399))
        XCTAssertTrue(c.allows(leadByte: 1, height: 1_078_655))
        XCTAssertTrue(c.allows(leadByte: 2, height: 1_046_400))
        XCTAssertFalse(c.allows(leadByte: 1, height: 1_078_656))
        XCTAssertTrue(c.allows(leadByte: 2, height: 1_078_656))
        XCTAssertFalse(c.allows(leadByte: 3, height: 2_000_000))
    }
}
