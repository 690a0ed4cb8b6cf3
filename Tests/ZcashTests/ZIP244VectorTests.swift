import Foundation
import SatchelTestSupport
import WalletCore
import XCTest
@testable import Zcash

/// zcash-test-vectors' `zip_0244.json`: ten random v5 transactions, each with its txid, its
/// authorizing digest, the shielded signature hash and, where it has a transparent input, that
/// input's hash under each of the six hash types. The signature hashes are the signer's own:
/// each transaction is made a PCZT (its effecting data, the input's amount and script) and
/// `PCZT.shieldedSighash`/`transparentSighash` computes them.
final class ZIP244VectorTests: XCTestCase {
    private static let hashTypes: [(field: String, type: UInt8)] = [
        ("sighash_all", 0x01), ("sighash_none", 0x02), ("sighash_single", 0x03),
        ("sighash_all_anyone", 0x81), ("sighash_none_anyone", 0x82), ("sighash_single_anyone", 0x83),
    ]

    func testEveryVector() throws {
        let rows = try XCTUnwrap(try TestPaths.json(TestPaths.vector("zcash/zip_0244.json")) as? [[Any]])
        XCTAssertEqual(
            rows[1] as? [String],
            [
                "tx, txid, auth_digest, amounts, script_pubkeys, transparent_input, sighash_shielded, sighash_all, sighash_none, "
                    + "sighash_single, sighash_all_anyone, sighash_none_anyone, sighash_single_anyone"
            ])
        let vectors = rows.dropFirst(2)
        XCTAssertEqual(vectors.count, 10)
        var transparentHashes = 0
        for (n, v) in vectors.enumerated() {
            let tx = try ZcashFullTransaction(try Hex.decode(try XCTUnwrap(v[0] as? String)))
            XCTAssertEqual(Hex.encode(ZcashTransactionID.of(tx)), v[1] as? String, "vector \(n) txid")
            XCTAssertEqual(ZcashTransactionID.authDigest(tx).map(Hex.encode), v[2] as? String, "vector \(n) auth digest")
            let amounts = try XCTUnwrap(v[3] as? [NSNumber]).map(\.uint64Value)
            let scripts = try XCTUnwrap(v[4] as? [String]).map { try Hex.decode($0) }
            var pczt = PCZTSighashFixtureTests.pczt(of: tx, amounts: amounts, scripts: scripts)
            // The PCZT encoder and parser keep what the hashes read.
            XCTAssertEqual(try PCZT(parsing: try pczt.serialized()), pczt, "vector \(n)")
            XCTAssertEqual(Hex.encode(try pczt.shieldedSighash()), v[6] as? String, "vector \(n) shielded")
            guard let input = v[5] as? Int else {
                XCTAssertTrue(v[7...].allSatisfy { $0 is NSNull }, "vector \(n)")
                continue
            }
            for (offset, hashType) in Self.hashTypes.enumerated() {
                guard let expected = v[7 + offset] as? String else {
                    // Only SIGHASH_SINGLE without an output at the input's index is left out.
                    XCTAssertEqual(hashType.type & 0x1F, PCZT.SighashType.single, "vector \(n) \(hashType.field)")
                    XCTAssertGreaterThanOrEqual(input, tx.outputs.count, "vector \(n)")
                    continue
                }
                pczt.transparent!.inputs[input].sighashType = hashType.type
                XCTAssertEqual(Hex.encode(try pczt.transparentSighash(input: input)), expected, "vector \(n) \(hashType.field)")
                transparentHashes += 1
            }
        }
        XCTAssertEqual(transparentHashes, 32)
    }

    /// The digests can fail: another amount, script or hash type gives another hash.
    func testEachInputFieldIsCommitted() throws {
        let rows = try XCTUnwrap(try TestPaths.json(TestPaths.vector("zcash/zip_0244.json")) as? [[Any]])
        let v = rows[5]  // vector 3: one input, one output
        let tx = try ZcashFullTransaction(try Hex.decode(try XCTUnwrap(v[0] as? String)))
        let amounts = try XCTUnwrap(v[3] as? [NSNumber]).map(\.uint64Value)
        let scripts = try XCTUnwrap(v[4] as? [String]).map { try Hex.decode($0) }
        let expected = try XCTUnwrap(v[7] as? String)
        var pczt = PCZTSighashFixtureTests.pczt(of: tx, amounts: amounts, scripts: scripts)
        pczt.transparent!.inputs[0].sighashType = PCZT.SighashType.all
        XCTAssertEqual(Hex.encode(try pczt.transparentSighash(input: 0)), expected)
        for change in [
            { (p: inout PCZT) in p.transparent!.inputs[0].value += 1 },
            { (p: inout PCZT) in p.transparent!.inputs[0].scriptPubKey += [0x51] },
            { (p: inout PCZT) in p.transparent!.inputs[0].sighashType = PCZT.SighashType.none },
            { (p: inout PCZT) in p.transparent!.outputs[0].value += 1 },
            { (p: inout PCZT) in p.global.expiryHeight += 1 },
        ] {
            var changed = pczt
            change(&changed)
            XCTAssertNotEqual(Hex.encode(try changed.transparentSighash(input: 0)), expected)
        }
    }
}
