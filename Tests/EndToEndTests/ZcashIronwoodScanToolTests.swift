import Foundation
import SatchelTestSupport
import XCTest

/// `scan-blocks --chain zcash` on fixtures/zcash-ironwood (50 blocks across NU6.3 at 3,428,143):
/// Orchard, Ironwood and Sapling in one pass, with the same Orchard keys for both
/// Orchard-protocol pools.
final class ZcashIronwoodScanToolTests: XCTestCase {
    let fixture = TestPaths.fixture("zcash-ironwood").path
    var dir = ""

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-iw-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    private func text(_ value: Any?) -> String { value as? String ?? (value as? NSNumber)?.stringValue ?? "" }

    private func wallet() throws -> [String: Any] { try XCTUnwrap(TestPaths.json(TestPaths.fixture("zcash-ironwood/wallet.json")) as? [String: Any]) }

    /// From the seed: the 27 notes (11 Orchard, 14 Ironwood, 2 Sapling) exactly — pool, txid,
    /// index, amount, position in its own pool's tree, nullifier, change — and nothing of the
    /// 7 look-alike notes; the 9 spends, each in its note's own pool (the 2 cross-pool
    /// nullifiers spend nothing: O6 is spent later in Orchard, I4 stays unspent); balances per
    /// pool and in all; the .jsonl and the .pb alike, with nothing on stderr.
    func testThreePoolsAcrossNU63() throws {
        let wallet = try wallet()
        let expected = try TestPaths.jsonLines(TestPaths.fixture("zcash-ironwood/expected_notes.jsonl"))
        let spends = try TestPaths.jsonLines(TestPaths.fixture("zcash-ironwood/expected_spends.jsonl"))
        let negatives = try TestPaths.jsonLines(TestPaths.fixture("zcash-ironwood/negative_cases.jsonl"))
        let summary = try XCTUnwrap(TestPaths.json(TestPaths.fixture("zcash-ironwood/expected_summary.json")) as? [String: Any])
        let perPool = try XCTUnwrap(summary["perPool"] as? [String: [String: Any]])
        XCTAssertEqual(expected.count, 27)
        XCTAssertEqual(spends.count, 9)
        XCTAssertEqual(negatives.count, 9)
        for file in ["compact_blocks.jsonl", "compact_blocks.pb"] {
            let r = try Shell.run("scan-blocks --chain zcash --blocks \(fixture)/\(file) --birthday 3428123 --state-dir \(dir)/\(file) --progress none",
                                  stdin: Shell.lines([["mnemonic": wallet["mnemonic"]!]]))
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(r.stderr, "", file)
            let received = r.records.filter { $0["type"] as? String == "received" }
            XCTAssertEqual(received.map { "\(text($0["pool"]))/\(text($0["txid"]))/\(text($0["index"]))/\(text($0["height"]))" },
                           expected.map { "\(text($0["pool"]))/\(text($0["txid"]))/\(text($0["actionIndex"] ?? $0["outputIndex"]))/\(text($0["height"]))" }, file)
            XCTAssertEqual(received.map { $0["amount"] as? String }, expected.map { text($0["value"]) }, file)
            XCTAssertEqual(received.map { $0["position"] as? Int }, expected.map { Int(text($0["position"])) }, file)
            XCTAssertEqual(received.map { $0["nullifier"] as? String }, expected.map { text($0["nullifier"]) }, file)
            XCTAssertEqual(received.map { $0["change"] as? Bool ?? false }, expected.map { text($0["scope"]) == "internal" }, file)
            XCTAssertEqual(received.map { $0["diversifier_index"] as? Int }, expected.map { Int(text($0["diversifier_index"])) }, file)
            // No look-alike note: none of their (pool, txid, index) is reported.
            let reported = Set(received.map { "\(text($0["pool"]))/\(text($0["txid"]))/\(text($0["index"]))" })
            for n in negatives where text(n["kind"]) == "note" {
                XCTAssertFalse(reported.contains("\(text(n["pool"]))/\(text(n["txid"]))/\(text(n["actionIndex"]))"), text(n["reason"]))
            }
            // The spends, each in its note's own pool, where the fixture has them.
            let spent = r.records.filter { $0["type"] as? String == "spent" }
            XCTAssertEqual(spent.map { "\(text($0["pool"]))/\(text($0["txid"]))/\(text($0["height"]))/\(text($0["nullifier"]))" },
                           spends.map { "\(text($0["pool"]))/\(text($0["txid"]))/\(text($0["height"]))/\(text($0["nullifier"]))" }, file)
            // The cross-pool nullifiers: O6 is spent once, in Orchard; I4 stays unspent.
            let o6 = try XCTUnwrap(expected.first { text($0["id"]) == "O6" }), i4 = try XCTUnwrap(expected.first { text($0["id"]) == "I4" })
            XCTAssertEqual(spent.filter { text($0["nullifier"]) == text(o6["nullifier"]) }.map { text($0["pool"]) }, ["orchard"])
            XCTAssertTrue(spent.allSatisfy { text($0["nullifier"]) != text(i4["nullifier"]) })
            let balance = try XCTUnwrap(r.records.last)
            XCTAssertEqual(balance["type"] as? String, "balance")
            XCTAssertEqual(balance["total"] as? String, text(summary["unspentBalanceAllPools"]))
            let pools = try XCTUnwrap(balance["pools"] as? [String: [String: String]])
            XCTAssertEqual(Set(pools.keys), ["orchard", "ironwood", "sapling"])
            for pool in ["orchard", "ironwood", "sapling"] {
                XCTAssertEqual(pools[pool]?["total"], text(perPool[pool]?["unspentBalance"]), pool)
            }
            XCTAssertEqual(balance["spends_known"] as? Bool, true)
        }
    }

    /// The UIVK: the external notes of every pool, no change, no spends; each pool's total is
    /// what its external notes received.
    func testIncomingViewingKeySeesPaymentsOnly() throws {
        let unified = try XCTUnwrap(try wallet()["unified"] as? [String: Any])
        let expected = try TestPaths.jsonLines(TestPaths.fixture("zcash-ironwood/expected_notes.jsonl")).filter { text($0["scope"]) == "external" }
        let r = try Shell.run("scan-blocks --chain zcash --blocks \(fixture)/compact_blocks.pb --birthday 3428123 --state-dir \(dir)/uivk --progress none",
                              stdin: Shell.lines([["uivk": unified["uivk"]!]]))
        XCTAssertEqual(r.status, 0, r.stderr)
        let received = r.records.filter { $0["type"] as? String == "received" }
        XCTAssertEqual(received.map { "\(text($0["pool"]))/\(text($0["txid"]))/\(text($0["index"]))/\(text($0["amount"]))" },
                       expected.map { "\(text($0["pool"]))/\(text($0["txid"]))/\(text($0["actionIndex"] ?? $0["outputIndex"]))/\(text($0["value"]))" })
        XCTAssertEqual(received.count, 16)
        XCTAssertTrue(received.allSatisfy { $0["nullifier"] == nil && $0["change"] == nil })
        XCTAssertEqual(r.records.filter { $0["type"] as? String == "spent" }.count, 0)
        let balance = try XCTUnwrap(r.records.last)
        XCTAssertEqual(balance["spends_known"] as? Bool, false)
        let pools = try XCTUnwrap(balance["pools"] as? [String: [String: String]])
        for pool in ["orchard", "ironwood", "sapling"] {
            let sum = expected.filter { text($0["pool"]) == pool }.reduce(UInt64(0)) { $0 + UInt64(text($1["value"]))! }
            XCTAssertEqual(pools[pool]?["total"], String(sum), pool)
        }
    }

    /// A reorg after NU6.3 (Ironwood notes and spends on both branches): undone, found again,
    /// the balances per pool as a scan of the new branch alone gives them.
    func testReorgAcrossNU63() throws {
        try assertZcashReorgIsFollowed(blocks: "\(fixture)/compact_blocks.jsonl", birthday: 3_428_123, forkAt: 3_428_150,
                                       key: ["mnemonic": try wallet()["mnemonic"]!], dir: dir)
    }

    /// kill -9 during scans across NU6.3: the 27 notes and 9 spends exactly once, in order.
    func testKilledRunsLoseAndRepeatNothing() throws {
        try assertKilledZcashRunsLoseAndRepeatNothing(blocks: "\(fixture)/compact_blocks.pb", birthday: 3_428_123,
                                                     key: ["mnemonic": try wallet()["mnemonic"]!], events: 36, dir: dir)
    }
}
