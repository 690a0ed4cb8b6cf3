import Foundation
import SatchelTestSupport
import XCTest

/// A light client trusts its server for what exists, never for what cannot be: blocks of
/// fixtures/zcash-ironwood altered as a hostile lightwalletd would serve them (a note
/// repeated, a pool's actions before its activation, a tree size offset from the pool's first
/// block on), each with the tree sizes kept consistent so that only the new rule can refuse it.
/// Before these rules each gave a wrong balance with exit 0.
final class ZcashHostileBlockTests: XCTestCase {
    let fixture = TestPaths.fixture("zcash-ironwood")
    var dir = ""
    var blocks: [[String: Any]] = []
    var notes: [String: [String: Any]] = [:]

    override func setUpWithError() throws {
        dir = try temporaryDirectory("zh")
        blocks = try TestPaths.jsonLines(fixture.appendingPathComponent("compact_blocks.jsonl"))
        for n in try TestPaths.jsonLines(fixture.appendingPathComponent("expected_notes.jsonl")) { notes[n["id"] as! String] = n }
    }

    private func index(ofBlock height: Int) throws -> Int { try XCTUnwrap(blocks.firstIndex { $0["height"] as? Int == height }) }

    /// The block's transaction `txid`, as (block index, transaction index).
    private func place(of note: String) throws -> (block: Int, tx: Int) {
        let n = try XCTUnwrap(notes[note])
        let b = try index(ofBlock: n["height"] as! Int)
        let vtx = try XCTUnwrap(blocks[b]["vtx"] as? [[String: Any]])
        return (b, try XCTUnwrap(vtx.firstIndex { $0["txid"] as? String == n["txid"] as? String }))
    }

    /// The note's action (its pool's list, at its index) as the compact block holds it.
    private func action(of note: String) throws -> (list: String, action: [String: Any]) {
        let n = try XCTUnwrap(notes[note])
        let (b, t) = try place(of: note)
        let list = n["pool"] as? String == "ironwood" ? "ironwoodActions" : n["pool"] as? String == "orchard" ? "actions" : "outputs"
        let vtx = try XCTUnwrap(blocks[b]["vtx"] as? [[String: Any]])
        let actions = try XCTUnwrap(vtx[t][list] as? [[String: Any]])
        return (list, actions[try XCTUnwrap((n["actionIndex"] ?? n["outputIndex"]) as? Int)])
    }

    /// Appends `action` to the list of the block's transaction `tx`, and adds one to the pool's
    /// tree size from that block on (the sizes stay consistent, as a careful attacker keeps them).
    private func append(_ action: [String: Any], to list: String, block b: Int, tx t: Int) {
        var vtx = blocks[b]["vtx"] as! [[String: Any]]
        vtx[t][list] = (vtx[t][list] as? [[String: Any]] ?? []) + [action]
        blocks[b]["vtx"] = vtx
        let size =
            ["ironwoodActions": "ironwoodCommitmentTreeSize", "actions": "orchardCommitmentTreeSize"][list]
            ?? "saplingCommitmentTreeSize"
        for k in b..<blocks.count { addToTreeSize(size, 1, block: k) }
    }

    private func addToTreeSize(_ key: String, _ n: Int, block k: Int) {
        var meta = blocks[k]["chainMetadata"] as! [String: Any]
        meta[key] = (meta[key] as! Int) + n
        blocks[k]["chainMetadata"] = meta
    }

    private func scan(_ name: String) throws -> Shell.Result {
        let path = "\(dir)/\(name).jsonl"
        try Shell.lines(blocks).write(to: URL(fileURLWithPath: path))
        let wallet = try XCTUnwrap(TestPaths.json(fixture.appendingPathComponent("wallet.json")) as? [String: Any])
        return try Shell.run(
            "scan-blocks --chain zcash --blocks \(path) --birthday 3428123 --state-dir \(dir)/state-\(name) --progress none",
            stdin: Shell.lines([["mnemonic": wallet["mnemonic"]!]]))
    }

    private func prefix(_ height: Int) -> String { "scan-blocks: scan.malformed: block \(height) is malformed: " }

    /// I1 (2 ZEC) repeated in its own transaction: its nullifier twice in one block.
    func testIronwoodActionRepeatedInItsBlock() throws {
        let (list, a) = try action(of: "I1")
        let (b, t) = try place(of: "I1")
        append(a, to: list, block: b, tx: t)
        let r = try scan("iw-repeat")
        XCTAssertEqual(r.status, 65, r.stderr)
        XCTAssertEqual(
            r.stderr,
            prefix(3_428_144)
                + "compact block at height 3428144: the Ironwood nullifier \(a["nullifier"] as! String) is revealed twice in transaction \(blocks[b]["vtx"].map { ($0 as! [[String: Any]])[t]["index"] as! Int }!): a nullifier is revealed once on a chain, so this is no chain's block (a repeated action would credit its note twice); check the server or file\n"
        )
        XCTAssertEqual(r.records.filter { $0["type"] as? String == "balance" }.count, 0)
    }

    /// A new transaction `txid` at `height` holding a copy of `note`'s action (or output), the
    /// pool's tree size grown by it from that block on when `treeSize` names it.
    private func copy(_ note: String, inNewTransaction txid: String, at height: Int, treeSize: String?) throws {
        let (list, a) = try action(of: note)
        let b = try index(ofBlock: height)
        var vtx = blocks[b]["vtx"] as! [[String: Any]]
        vtx.append(["index": vtx.count, "txid": txid, list: [a]])
        blocks[b]["vtx"] = vtx
        if let treeSize { for k in b..<blocks.count { addToTreeSize(treeSize, 1, block: k) } }
    }

    /// The scan of a chain where an Orchard note of the wallet's is copied into a new
    /// transaction: refused, naming both places.
    private func assertCopyRefused(_ note: String, at height: Int, name: String) throws {
        let held = try XCTUnwrap(notes[note])
        let copyID = String(repeating: "ab", count: 32)
        try copy(note, inNewTransaction: copyID, at: height, treeSize: "orchardCommitmentTreeSize")
        let r = try scan(name)
        XCTAssertEqual(r.status, 65, r.stderr)
        XCTAssertEqual(
            r.stderr,
            prefix(height)
                + "its transaction \(copyID) orchard output 0 has the spend tag of the wallet's orchard output \(held["actionIndex"] as! Int) of transaction \(held["txid"] as! String) (block \(held["height"] as! Int)): on this chain an output is its spend tag, so this one is a copy, not a payment; check the server or file\n"
        )
    }

    /// O2 (0.1234 ZEC) repeated in the next block with a transaction of its own: the note's
    /// nullifier is one the wallet already holds.
    func testOrchardNoteRepeatedInALaterBlock() throws { try assertCopyRefused("O2", at: 3_428_126, name: "orchard-copy") }

    /// O1 (2.5 ZEC, spent at 3428139) repeated after its spend: before the rule, the copy
    /// stayed unspent for good.
    func testSpentOrchardNoteRepeatedAfterItsSpend() throws {
        try assertCopyRefused("O1", at: 3_428_140, name: "orchard-after-spend")
    }

    /// I2 (3.1415 ZEC) served again below NU6.3's height: no Ironwood action can be there.
    func testIronwoodActionBeforeNU63() throws {
        try copy("I2", inNewTransaction: String(repeating: "ef", count: 32), at: 3_428_130, treeSize: nil)
        let r = try scan("iw-early")
        XCTAssertEqual(r.status, 65, r.stderr)
        XCTAssertEqual(
            r.stderr,
            prefix(3_428_130)
                + "it holds 1 Ironwood actions, but the Ironwood pool begins at block 3428143 on mainnet: they cannot exist; the server or file is not serving this chain\n"
        )
    }

    /// The Ironwood tree size offset from NU6.3's first block on (+1, +1000, near 2^32), every
    /// later block consistent with it: the pool's first block must count its own actions.
    func testIronwoodTreeSizeOffsetFromItsFirstBlock() throws {
        let original = blocks
        let first = try index(ofBlock: 3_428_143)
        for offset in [1, 1000, Int(UInt32.max) - 200] {
            blocks = original
            for k in first..<blocks.count { addToTreeSize("ironwoodCommitmentTreeSize", offset, block: k) }
            let r = try scan("iw-offset-\(offset)")
            XCTAssertEqual(r.status, 65, "\(offset): \(r.stderr)")
            XCTAssertEqual(
                r.stderr,
                prefix(3_428_143)
                    + "the Ironwood pool begins at this block, whose 9 Ironwood actions make its note-commitment tree size 9, but the block says \(9 + offset): every Ironwood note's position, and so its nullifier, would be wrong; the server or file is not serving this chain\n",
                "\(offset)")
        }
    }

    /// A Sapling output repeated in a later block is another note (its nullifier hashes its
    /// position): counted, with a nullifier of its own, exit 0.
    func testRepeatedSaplingOutputIsAnotherNote() throws {
        try copy("S1", inNewTransaction: String(repeating: "12", count: 32), at: 3_428_133, treeSize: "saplingCommitmentTreeSize")
        let r = try scan("sapling-copy")
        XCTAssertEqual(r.status, 0, r.stderr)
        let sapling = r.records.filter { $0["type"] as? String == "received" && $0["pool"] as? String == "sapling" }
        XCTAssertEqual(sapling.map { $0["height"] as? Int }, [3_428_131, 3_428_133, 3_428_160])
        XCTAssertEqual(sapling.map { $0["amount"] as? String }, ["42000000", "42000000", "3000000"])
        XCTAssertEqual(Set(sapling.compactMap { $0["nullifier"] as? String }).count, 3)
    }
}
