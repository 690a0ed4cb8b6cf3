import Foundation
import SatchelTestSupport
import WalletCore
import XCTest
@testable import Zcash

/// Transaction ids: ZIP 244 (v5) and the Version 6 Transaction Format's (NU6.3: the Ironwood
/// bundle's digest, anchors moved to the authorizing data), against every full transaction of
/// the three fixtures (their ids made with the reference code) and zcash-test-vectors' v6 rows.
final class TransactionIDTests: XCTestCase {
    private func text(_ value: Any?) -> String { value as? String ?? (value as? NSNumber)?.stringValue ?? "" }

    /// Every transaction of the three fixtures (Sapling spends and outputs, Orchard, Ironwood,
    /// transparent, coinbases; their ids checked against the reference ZIP-244 code — the
    /// sapling fixture's since its txid correction of 2026-11-29, whose 98 transactions that
    /// spend Sapling notes had ids ZIP 244 does not give before).
    func testEveryFixtureTransaction() throws {
        var versions = [UInt32: Int](), saplingSpends = 0
        for fixture in ["zcash-sapling", "zcash-orchard", "zcash-ironwood"] {
            for row in try TestPaths.jsonLines(TestPaths.fixture("\(fixture)/transactions.jsonl")) {
                let tx = try ZcashFullTransaction(try Hex.decode(text(row["raw_tx"])))
                XCTAssertEqual(Hex.encode(ZcashTransactionID.of(tx)), text(row["txid"]), "\(fixture) \(text(row["txid"]))")
                if fixture == "zcash-sapling" && !tx.spends.isEmpty { saplingSpends += 1 }
                versions[tx.version, default: 0] += 1
            }
        }
        XCTAssertEqual(versions[6], 93)
        XCTAssertEqual(versions[5], 241 + 192 + 65)
        XCTAssertEqual(saplingSpends, 98)
    }

    /// zcash-test-vectors' v6 rows: an empty transaction whole, and two whose one non-empty
    /// Orchard-shaped bundle (Orchard's, then Ironwood's) is given up to its value balance — the
    /// anchor, proofs and signatures that follow feed only the authorizing digest in v6, so any
    /// bytes complete them: the id, and each bundle's digest, are the vectors'.
    func testV6Vectors() throws {
        let data = try Data(contentsOf: TestPaths.vector("zcash/ironwood/ironwood_v6_tx_hash.subset.json"))
        let rows = try XCTUnwrap((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["rows"] as? [[String: Any]])
        XCTAssertEqual(rows.count, 3)
        for row in rows {
            var raw = try Hex.decode(text(row["tx"]))
            let scenario = text(row["scenario"])
            // anchor, no proof bytes, one spend authorization signature, the binding signature
            let auth = [UInt8](repeating: 0xA5, count: 32) + [0] + [UInt8](repeating: 0x5A, count: 64 + 64)
            if scenario == "orchard_anchor_a" { raw += auth + [0] }  // then no Ironwood action
            if scenario == "ironwood_anchor_a" { raw += auth }
            let tx = try ZcashFullTransaction(raw, experimentalGroup: 0xFFFF_FFFF)
            XCTAssertTrue(tx.isV6, scenario)
            XCTAssertEqual(Hex.encode(ZcashTransactionID.of(tx)), text(row["txid"]), scenario)
            XCTAssertEqual(Hex.encode(ZcashTransactionID.sapling(tx)), text(row["sapling_digest"]), scenario)
            XCTAssertEqual(
                Hex.encode(ZcashTransactionID.bundle(tx.orchard, ZcashTransactionID.orchardV6)), text(row["orchard_digest"]), scenario)
            XCTAssertEqual(
                Hex.encode(ZcashTransactionID.bundle(tx.ironwood!, ZcashTransactionID.ironwood)), text(row["ironwood_digest"]), scenario)
        }
        // The empty bundles' digests differ between the pools (their personalizations).
        XCTAssertNotEqual(
            ZcashTransactionID.bundle(.init(), ZcashTransactionID.orchardV6),
            ZcashTransactionID.bundle(.init(), ZcashTransactionID.ironwood))
    }
}
