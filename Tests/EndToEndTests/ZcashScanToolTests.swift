import Foundation
import SatchelTestSupport
import XCTest

/// `scan-blocks --chain zcash` on fixtures/zcash-sapling: 50 compact blocks, the "abandon … art"
/// wallet's 14 notes (11 external, 3 change), 2 spends, 4 look-alikes that must not count.
final class ZcashScanToolTests: XCTestCase {
    var dir = ""
    let fixture = TestPaths.fixture("zcash-sapling").path

    override func setUpWithError() throws {
        dir = try temporaryDirectory("zscan")
    }

    private func wallet() throws -> [String: Any] {
        try XCTUnwrap(TestPaths.json(TestPaths.fixture("zcash-sapling/wallet.json")) as? [String: Any])
    }

    private func scan(
        _ key: [String: Any], _ extra: String = "", blocks: String = "compact_blocks.jsonl", state: String = "s"
    ) throws -> Shell.Result {
        try Shell.run(
            "scan-blocks --chain zcash --blocks \(fixture)/\(blocks) --birthday 2900000 --state-dir \(dir)/\(state) --progress none \(extra)",
            stdin: Shell.lines([key]))
    }

    func testTheWalletsNotesSpendsAndBalance() throws {
        let w = try wallet()
        let expected = try TestPaths.jsonLines(TestPaths.fixture("zcash-sapling/expected_notes.jsonl"))
        let summary = try XCTUnwrap(TestPaths.json(TestPaths.fixture("zcash-sapling/expected_summary.json")) as? [String: Any])
        let r = try scan(["mnemonic": w["mnemonic"]!])
        XCTAssertEqual(r.status, 0, r.stderr)
        let received = r.records.filter { $0["type"] as? String == "received" }
        func key(_ txid: Any?, _ index: Any?) -> String { "\(txid as? String ?? "?"):\(index as? Int ?? -1)" }
        XCTAssertEqual(received.map { key($0["txid"], $0["index"]) }, expected.map { key($0["txid"], $0["outputIndex"]) })
        XCTAssertEqual(received.map { $0["amount"] as? String }, expected.map { ($0["value"] as? NSNumber)?.stringValue })
        XCTAssertEqual(received.map { $0["nullifier"] as? String }, expected.map { $0["nullifier"] as? String })
        XCTAssertEqual(received.map { $0["position"] as? Int }, expected.map { $0["position"] as? Int })
        XCTAssertEqual(received.map { $0["address"] as? String }, expected.map { $0["address"] as? String })
        XCTAssertEqual(received.map { $0["height"] as? Int }, expected.map { $0["height"] as? Int })
        XCTAssertEqual(received.map { $0["change"] as? Bool ?? false }, expected.map { $0["scope"] as? String == "internal" })
        let spent = r.records.filter { $0["type"] as? String == "spent" }
        let spentNotes = expected.filter { $0["spent"] is [String: Any] }
        XCTAssertEqual(spent.count, summary["spentNotes"] as? Int)
        XCTAssertEqual(spent.map { $0["nullifier"] as? String }, spentNotes.map { $0["nullifier"] as? String })
        XCTAssertEqual(spent.map { $0["txid"] as? String }, spentNotes.map { ($0["spent"] as? [String: Any])?["txid"] as? String })
        XCTAssertEqual(spent.map { $0["height"] as? Int }, spentNotes.map { ($0["spent"] as? [String: Any])?["height"] as? Int })
        let balance = try XCTUnwrap(r.records.last)
        XCTAssertEqual(balance["type"] as? String, "balance")
        XCTAssertEqual(balance["total"] as? String, (summary["unspentBalanceAllScopes"] as? NSNumber)?.stringValue)
        XCTAssertEqual(balance["spends_known"] as? Bool, true)
        // A balance names the pools it counts, with each one's sums (a seed has Orchard keys:
        // none of this chain's notes are Orchard's).
        let pools = try XCTUnwrap(balance["pools"] as? [String: [String: String]], "a balance says which pools it counts")
        XCTAssertEqual(pools["orchard"], ["total": "0", "unlocked": "0"])
        XCTAssertEqual(pools["sapling"]?["total"], balance["total"] as? String)
        XCTAssertEqual(pools["sapling"]?["unlocked"], balance["unlocked"] as? String)
        XCTAssertEqual(pools["ironwood"], ["total": "0", "unlocked": "0"])
        XCTAssertEqual(Set(pools.keys), ["orchard", "ironwood", "sapling"])
        XCTAssertEqual(received.map { $0["pool"] as? String }, Array(repeating: "sapling", count: received.count))
        XCTAssertEqual(balance["height"] as? Int, 2_900_050)
        // 10 blocks deep to spend: notes from 2,900,041 on are not yet unlocked.
        let spentNullifiers = Set(spent.compactMap { $0["nullifier"] as? String })
        let locked = received.filter {
            ($0["height"] as? Int ?? 0) > 2_900_040 && !spentNullifiers.contains($0["nullifier"] as? String ?? "")
        }
        .compactMap { UInt64($0["amount"] as? String ?? "") }.reduce(0, +)
        XCTAssertGreaterThan(locked, 0)
        let total = try XCTUnwrap(UInt64(balance["total"] as? String ?? ""))
        XCTAssertEqual(UInt64(balance["unlocked"] as? String ?? ""), total - locked)

        // The protobuf stream gives the same records; a second run finds nothing new.
        let pb = try scan(["mnemonic": w["mnemonic"]!], blocks: "compact_blocks.pb", state: "pb")
        XCTAssertEqual(pb.status, 0, pb.stderr)
        XCTAssertEqual(pb.out, r.out)
        let again = try scan(["mnemonic": w["mnemonic"]!])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(again.records.map { $0["type"] as? String }, ["balance"])
        XCTAssertEqual(again.records.first?["total"] as? String, balance["total"] as? String)
    }

    /// With the full transactions (--txs) each note's memo: its 512 bytes in hex, and its text
    /// when it is text (ZIP-302); "no memo" gives neither. A full transaction that does not
    /// match its compact form is refused.
    func testMemosFromFullTransactions() throws {
        let w = try wallet()
        let expected = try TestPaths.jsonLines(TestPaths.fixture("zcash-sapling/expected_notes.jsonl"))
        let r = try scan(["mnemonic": w["mnemonic"]!], "--txs \(fixture)/transactions.jsonl", blocks: "compact_blocks.pb", state: "memo")
        XCTAssertEqual(r.status, 0, r.stderr)
        let received = r.records.filter { $0["type"] as? String == "received" }
        XCTAssertEqual(received.count, 14)
        XCTAssertEqual(
            received.map { $0["memo_text"] as? String },
            expected.map { $0["memo_type"] as? String == "text" ? $0["memo_text"] as? String : nil })
        XCTAssertEqual(
            received.map { $0["memo"] as? String }, expected.map { $0["memo_type"] as? String == "empty" ? nil : $0["memo_hex"] as? String }
        )
        // A transaction record whose outputs are another transaction's: refused, nothing reported.
        let lines = try String(contentsOfFile: "\(fixture)/transactions.jsonl", encoding: .utf8).split(separator: "\n").map(String.init)
        let first = try XCTUnwrap(TestPaths.jsonLines(TestPaths.fixture("zcash-sapling/expected_notes.jsonl")).first)
        let victim = try XCTUnwrap(lines.firstIndex { $0.contains(first["txid"] as! String) })
        let donor = try XCTUnwrap(
            lines.firstIndex { $0.contains("\"height\": 2900001") && $0.contains("raw_tx") && !$0.contains("\"txIndex\": 0") })
        let donorRaw = try XCTUnwrap(
            (try JSONSerialization.jsonObject(with: Data(lines[donor].utf8)) as? [String: Any])?["raw_tx"] as? String)
        var victimRecord = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(lines[victim].utf8)) as? [String: Any])
        victimRecord["raw_tx"] = donorRaw
        var forged = lines
        forged[victim] = String(decoding: try JSONSerialization.data(withJSONObject: victimRecord), as: UTF8.self)
        try (forged.joined(separator: "\n") + "\n").write(toFile: "\(dir)/forged.jsonl", atomically: true, encoding: .utf8)
        let bad = try scan(["mnemonic": w["mnemonic"]!], "--txs \(dir)/forged.jsonl", state: "forged")
        XCTAssertEqual(bad.status, 65, bad.stderr)
        // v5 ids are held to the block's as v6's are: the donor's own id tells first.
        let donorID = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(lines[donor].utf8)) as? [String: Any])?["txid"] as? String)
        XCTAssertTrue(
            bad.stderr.hasPrefix(
                "scan-blocks: scan.malformed: block 2900000 is malformed: compact block at height 2900000: the full transaction given for \(first["txid"] as! String) has the id \(donorID)\n"
            ), bad.stderr)
        XCTAssertEqual(bad.records.filter { $0["type"] as? String == "received" }.count, 0)
        // A v5 transaction altered where its compact form does not reach (its expiry height):
        // its recomputed id is not the block's (before, v5 ids were not checked, and it passed).
        var altered = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(lines[victim].utf8)) as? [String: Any])
        var raw = Array(try XCTUnwrap(altered["raw_tx"] as? String))
        XCTAssertEqual(String(raw[0..<8]), "05000080")
        raw[39] = raw[39] == "0" ? "1" : "0"  // the expiry height's last hex digit (bytes 16-19)
        altered["raw_tx"] = String(raw)
        var header = lines
        header[victim] = String(decoding: try JSONSerialization.data(withJSONObject: altered), as: UTF8.self)
        try (header.joined(separator: "\n") + "\n").write(toFile: "\(dir)/expiry.jsonl", atomically: true, encoding: .utf8)
        let expiry = try scan(["mnemonic": w["mnemonic"]!], "--txs \(dir)/expiry.jsonl", state: "expiry")
        XCTAssertEqual(expiry.status, 65, expiry.stderr)
        XCTAssertTrue(
            expiry.stderr.hasPrefix(
                "scan-blocks: scan.malformed: block 2900000 is malformed: compact block at height 2900000: the full transaction given for \(first["txid"] as! String) has the id "
            ), expiry.stderr)
        XCTAssertEqual(expiry.records.filter { $0["type"] as? String == "received" }.count, 0)
    }

    /// A branch that replaces blocks 2,900,030 on (same transactions, other hashes): the next
    /// run finds the stored block 2,900,039 is not the new one's parent, rolls back to the fork,
    /// says so, and finds the notes of the new branch again; the balance ends the same.
    func testReorgByPrevHash() throws {
        let w = try wallet()
        let key = ["mnemonic": w["mnemonic"]!]
        try assertZcashReorgIsFollowed(
            blocks: "\(fixture)/compact_blocks.jsonl", birthday: 2_900_000, forkAt: 2_900_030, key: key, dir: dir)
        // The same 10-block reorg past --max-reorg-depth 5: the run ends (76), nothing rolled back.
        let shallow = try scan(key, "--until-height 2900039", state: "shallow")
        XCTAssertEqual(shallow.status, 0, shallow.stderr)
        let refused = try Shell.run(
            "scan-blocks --chain zcash --blocks \(dir)/fork.jsonl --birthday 2900000 --state-dir \(dir)/shallow --progress none --max-reorg-depth 5",
            stdin: Shell.lines([key]))
        XCTAssertEqual(refused.status, 76, refused.stderr)
        XCTAssertTrue(
            refused.stderr.contains(
                "scan.reorg_limit: block 2900040 does not follow the stored chain, and neither do the 5 blocks below it"), refused.stderr)
        XCTAssertFalse(refused.records.contains { $0["type"] as? String == "reorg" }, refused.out)
        // With the default depth the same state follows it.
        let followed = try Shell.run(
            "scan-blocks --chain zcash --blocks \(dir)/fork.jsonl --birthday 2900000 --state-dir \(dir)/shallow --progress none",
            stdin: Shell.lines([key]))
        XCTAssertEqual(followed.status, 0, followed.stderr)
        XCTAssertEqual(followed.records.first { $0["type"] as? String == "reorg" }?["fork_height"] as? Int, 2_900_029)
    }

    /// Two wallets in one pass from a --wallets file (accounts 0 and 1 of the seed): each with
    /// its own name, state and notes. The same keys twice (a UIVK and its seed) are refused.
    func testTwoWalletsInOnePass() throws {
        let w = try wallet()
        let uivk = try XCTUnwrap((w["unified"] as? [String: Any])?["uivk"] as? String)
        func walletsFile(_ records: [[String: Any]]) throws -> String {
            let file = "\(dir)/wallets-\(UUID().uuidString).jsonl"
            try String(decoding: Shell.lines(records), as: UTF8.self).write(toFile: file, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
            return file
        }
        let two = try walletsFile([
            ["mnemonic": w["mnemonic"]!, "account": 1, "name": "till", "birthday": 2_900_000],
            ["mnemonic": w["mnemonic"]!, "name": "owner"],
        ])
        let r = try Shell.run(
            "scan-blocks --chain zcash --blocks \(fixture)/compact_blocks.pb --wallets \(two) --birthday 2900000 --state-dir \(dir)/two --progress none"
        )
        XCTAssertEqual(r.status, 0, r.stderr)
        func count(_ wallet: String, _ type: String) -> Int {
            r.records.filter { $0["wallet"] as? String == wallet && $0["type"] as? String == type }.count
        }
        XCTAssertEqual(count("till", "received"), 1)
        XCTAssertEqual(count("owner", "received"), 14)
        XCTAssertEqual(count("till", "spent"), 0)
        XCTAssertEqual(count("owner", "spent"), 2)
        XCTAssertEqual(r.records.filter { $0["wallet"] == nil }.count, 0)
        let same = try walletsFile([["uivk": uivk, "name": "till"], ["mnemonic": w["mnemonic"]!, "name": "owner"]])
        let twice = try Shell.run(
            "scan-blocks --chain zcash --blocks \(fixture)/compact_blocks.pb --wallets \(same) --birthday 2900000 --state-dir \(dir)/twice --progress none"
        )
        XCTAssertEqual(twice.status, 64, twice.stderr)
        XCTAssertTrue(twice.stderr.contains("scan.same_wallet_twice"), twice.stderr)
    }

    /// kill -9 at staggered moments: every event of a whole scan exactly once, in order.
    func testKilledRunsLoseAndRepeatNothing() throws {
        let w = try wallet()
        try assertKilledZcashRunsLoseAndRepeatNothing(
            blocks: "\(fixture)/compact_blocks.pb", birthday: 2_900_000, key: ["mnemonic": w["mnemonic"]!],
            events: 16, dir: dir)
    }

    /// An incoming viewing key sees the external notes only, and no spends.
    func testIncomingViewingKeySeesPaymentsOnly() throws {
        let w = try wallet()
        let uivk = try XCTUnwrap((w["unified"] as? [String: Any])?["uivk"] as? String)
        let expected = try TestPaths.jsonLines(TestPaths.fixture("zcash-sapling/expected_notes.jsonl")).filter {
            $0["scope"] as? String == "external"
        }
        let r = try scan(["uivk": uivk])
        XCTAssertEqual(r.status, 0, r.stderr)
        let received = r.records.filter { $0["type"] as? String == "received" }
        XCTAssertEqual(
            received.map { "\($0["txid"] as? String ?? ""):\($0["index"] as? Int ?? -1)" },
            expected.map { "\($0["txid"] as? String ?? ""):\($0["outputIndex"] as? Int ?? -1)" })
        XCTAssertTrue(received.allSatisfy { $0["nullifier"] == nil })
        // The position comes from the blocks, and an incoming viewing key has it too.
        XCTAssertEqual(received.map { $0["position"] as? Int }, expected.map { $0["position"] as? Int })
        XCTAssertEqual(r.records.filter { $0["type"] as? String == "spent" }.count, 0)
        XCTAssertEqual(r.records.last?["spends_known"] as? Bool, false)
        let total = expected.compactMap { ($0["value"] as? NSNumber)?.uint64Value }.reduce(0, +)
        XCTAssertEqual(r.records.last?["total"] as? String, String(total))
        // The UFVK (the file's own, with an Orchard item) finds change and spends as the seed does.
        let ufvk = try XCTUnwrap((w["unified"] as? [String: Any])?["ufvk"] as? String)
        let full = try scan(["ufvk": ufvk], state: "ufvk")
        XCTAssertEqual(full.status, 0, full.stderr)
        XCTAssertEqual(full.records.filter { $0["type"] as? String == "received" }.count, 14)
        XCTAssertEqual(full.records.filter { $0["type"] as? String == "spent" }.count, 2)
    }

    /// Another key (account 1 of the same seed) finds nothing: the look-alike note to it is
    /// in the chain, and the account-0 keys must not claim it, nor it theirs.
    func testAnotherAccountAndBadInput() throws {
        let w = try wallet()
        let r = try scan(["mnemonic": w["mnemonic"]!, "account": 1], state: "a1")
        XCTAssertEqual(r.status, 0, r.stderr)
        let received = r.records.filter { $0["type"] as? String == "received" }
        let negatives = try TestPaths.jsonLines(TestPaths.fixture("zcash-sapling/negative_cases.jsonl"))
        let toAccount1 = negatives.filter { ($0["reason"] as? String ?? "").contains("account 1") }
        XCTAssertEqual(received.map { $0["txid"] as? String }, toAccount1.map { $0["txid"] as? String })
        let cut = "\(dir)/cut.pb"
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(fixture)/compact_blocks.pb"))
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: cut))
        let bad = try Shell.run(
            "scan-blocks --chain zcash --blocks \(cut) --birthday 2900000 --state-dir \(dir)/cut --progress none",
            stdin: Shell.lines([["mnemonic": w["mnemonic"]!]]))
        XCTAssertEqual(bad.status, 65, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("scan."), bad.stderr)
        XCTAssertFalse(bad.stderr.contains("abandon"))
    }
}

/// Real mainnet compact blocks (fixtures/zcash-mainnet-sample): 1,851 Sapling-era blocks from an
/// old server (no tree sizes, shielded transactions only) and the sandblasted block 1,735,000
/// with 2,005 outputs. Any wallet must scan them without error and find nothing.
final class ZcashMainnetSampleTests: XCTestCase {
    func testRealBlocksScanCleanWithNoFalsePositive() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-zmain-\(UUID().uuidString)").path
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        let w = try XCTUnwrap(TestPaths.json(TestPaths.fixture("zcash-sapling/wallet.json")) as? [String: Any])
        let sample = TestPaths.fixture("zcash-mainnet-sample").path
        for (file, birthday, tip) in [
            ("mainnet_663150-665000.compact.pb", 663_150, 665_001), ("mainnet_1735000_sandblasted.compact.pb", 1_735_000, 1_735_001),
        ] {
            for (n, key) in [["mnemonic": w["mnemonic"]!], ["uivk": (w["unified"] as? [String: Any])?["uivk"] ?? ""]].enumerated() {
                let r = try Shell.run(
                    "scan-blocks --chain zcash --blocks \(sample)/\(file) --birthday \(birthday) --state-dir \(dir)/\(birthday)-\(n) --progress none",
                    stdin: Shell.lines([key]))
                XCTAssertEqual(r.status, 0, "\(file): \(r.stderr)")
                XCTAssertEqual(r.records.map { $0["type"] as? String }, ["balance"], file)
                XCTAssertEqual(r.records.first?["total"] as? String, "0", file)
                XCTAssertEqual(r.records.first?["height"] as? Int, tip, file)
            }
        }
    }
}

/// The zcash-sapling fixture's chain with blocks from `height` on replaced (same transactions,
/// other hashes: the first hash bit flipped, and the parent links after it to match), written
/// as JSON Lines to `out`: a branch that forks after `height` − 1.
/// A branch that replaces the blocks from `forkAt` on (same transactions, other hashes): a
/// run that stopped 10 blocks past the fork meets it next time, rolls back to the last block
/// both branches share, says what it undid, finds those notes again on the new branch, and
/// ends with the balance a scan of the new branch alone gives.
func assertZcashReorgIsFollowed(
    blocks: String, birthday: Int, forkAt: Int, key: [String: Any], dir: String,
    file: StaticString = #filePath, line: UInt = #line
) throws {
    func run(_ blocks: String, _ state: String, _ extra: String = "") throws -> Shell.Result {
        let r = try Shell.run(
            "scan-blocks --chain zcash --blocks \(blocks) --birthday \(birthday) --state-dir \(dir)/\(state) --progress none \(extra)",
            stdin: Shell.lines([key]))
        XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
        return r
    }
    let first = try run(blocks, "reorg", "--until-height \(forkAt + 9)")
    try writeZcashFork(of: blocks, from: forkAt, to: "\(dir)/fork.jsonl")
    let second = try run("\(dir)/fork.jsonl", "reorg")
    let reorg = try XCTUnwrap(second.records.first { $0["type"] as? String == "reorg" }, second.out, file: file, line: line)
    XCTAssertEqual(reorg["fork_height"] as? Int, forkAt - 1, file: file, line: line)
    let undone = first.records.filter {
        ($0["type"] as? String == "received" || $0["type"] as? String == "spent") && ($0["height"] as? Int ?? 0) >= forkAt
    }
    XCTAssertGreaterThan(undone.count, 0, file: file, line: line)
    XCTAssertEqual(reorg["undone_outputs"] as? Int, undone.filter { $0["type"] as? String == "received" }.count, file: file, line: line)
    XCTAssertEqual(reorg["undone_spends"] as? Int, undone.filter { $0["type"] as? String == "spent" }.count, file: file, line: line)
    // The same events again, from the new branch (the same transactions at the same heights).
    func stable(_ r: [String: Any]) -> String {
        ["type", "pool", "txid", "index", "amount", "nullifier", "position", "height"].map { "\(r[$0] ?? "-")" }.joined(separator: " ")
    }
    let again = second.records.filter {
        ($0["type"] as? String == "received" || $0["type"] as? String == "spent") && ($0["height"] as? Int ?? 0) < forkAt + 10
    }
    XCTAssertEqual(again.map(stable), undone.map(stable), file: file, line: line)
    let whole = try run("\(dir)/fork.jsonl", "whole")
    XCTAssertEqual(second.records.last?["total"] as? String, whole.records.last?["total"] as? String, file: file, line: line)
    XCTAssertEqual(
        second.records.last?["pools"] as? [String: [String: String]], whole.records.last?["pools"] as? [String: [String: String]],
        file: file, line: line)
}

/// kill -9 at staggered moments, appending to one file: every event of a whole scan is
/// there exactly once, event ids 1… in order (the engine's guarantee, here for Zcash).
func assertKilledZcashRunsLoseAndRepeatNothing(
    blocks: String, birthday: Int, key: [String: Any], events: Int, dir: String,
    file: StaticString = #filePath, line: UInt = #line
) throws {
    try Shell.lines([key]).write(to: URL(fileURLWithPath: "\(dir)/seed.json"))
    let chain = "--chain zcash --blocks \(blocks) --birthday \(birthday) --progress none"
    let clean = try Shell.run("scan-blocks \(chain) --state-dir \(dir)/clean < \(dir)/seed.json")
    XCTAssertEqual(clean.status, 0, clean.stderr, file: file, line: line)
    let wanted = clean.lines.filter { !$0.contains("\"balance\"") }
    XCTAssertEqual(wanted.count, events, file: file, line: line)
    var kills = 0
    for i in 0..<10 {
        let delay = String(format: "0.%03d", 15 + i * 17)
        let r = try Shell.run(
            "scan-blocks \(chain) --state-dir \(dir)/killed --max-blocks 7 < \(dir)/seed.json >> \(dir)/out.jsonl 2>/dev/null & p=$!; sleep \(delay); kill -9 $p 2>/dev/null && echo killed; wait $p; true"
        )
        if r.out.contains("killed") { kills += 1 }
    }
    XCTAssertEqual(
        try Shell.run("scan-blocks \(chain) --state-dir \(dir)/killed < \(dir)/seed.json >> \(dir)/out.jsonl").status, 0, file: file,
        line: line)
    let got = try String(contentsOfFile: "\(dir)/out.jsonl", encoding: .utf8).split(separator: "\n").map(String.init).filter {
        !$0.contains("\"balance\"")
    }
    func stable(_ line: String) -> String {
        line.replacingOccurrences(of: #","(confirmations|event_id)":[0-9]+"#, with: "", options: .regularExpression)
    }
    XCTAssertEqual(got.map(stable).sorted(), wanted.map(stable).sorted(), "an event was lost, repeated or changed", file: file, line: line)
    let ids = got.compactMap { line in line.range(of: #"(?<="event_id":)[0-9]+"#, options: .regularExpression).flatMap { Int(line[$0]) } }
    XCTAssertEqual(ids, Array(1...wanted.count), file: file, line: line)
    XCTAssertGreaterThan(kills, 0, "no run was killed", file: file, line: line)
}

func writeZcashFork(of path: String, from height: Int, to out: String) throws {
    let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    func flipped(_ hex: String) -> String { (hex.first == "0" ? "1" : "0") + hex.dropFirst() }
    var fork = [String]()
    for line in lines {
        var block = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let h = try XCTUnwrap(block["height"] as? Int)
        if h >= height { block["hash"] = flipped(try XCTUnwrap(block["hash"] as? String)) }
        if h >= height + 1 { block["prevHash"] = flipped(try XCTUnwrap(block["prevHash"] as? String)) }
        fork.append(String(decoding: try JSONSerialization.data(withJSONObject: block), as: UTF8.self))
    }
    try (fork.joined(separator: "\n") + "\n").write(toFile: out, atomically: true, encoding: .utf8)
}

/// `scan-blocks --chain zcash` on fixtures/zcash-orchard: Orchard and Sapling in one pass.
final class ZcashOrchardScanToolTests: XCTestCase {
    let fixture = TestPaths.fixture("zcash-orchard").path
    var dir = ""

    override func setUpWithError() throws {
        dir = try temporaryDirectory("zo")
    }

    private func text(_ value: Any?) -> String { value as? String ?? (value as? NSNumber)?.stringValue ?? "" }

    /// From the seed: the 16 Orchard and 2 Sapling notes (pool, txid, index, amount, position,
    /// address, nullifier, change), the 4 spends, and balances per pool and in all, from the .jsonl and
    /// the .pb alike; the UIVK alone sees the payments and no spend.
    func testBothPoolsInOnePass() throws {
        let wallet = try XCTUnwrap(TestPaths.json(TestPaths.fixture("zcash-orchard/wallet.json")) as? [String: Any])
        let unified = try XCTUnwrap(wallet["unified"] as? [String: Any])
        let expected = try TestPaths.jsonLines(TestPaths.fixture("zcash-orchard/expected_notes.jsonl"))
        let summary = try XCTUnwrap(TestPaths.json(TestPaths.fixture("zcash-orchard/expected_summary.json")) as? [String: Any])
        // An Orchard note's address: the Orchard-only UA of its scope and index, as derive
        // writes it, and derive's are the fixture's where the fixture has them.
        let derived = try Shell.run(
            "derive --coin zec --pool orchard --count 9 --change both", stdin: Shell.lines([["mnemonic": wallet["mnemonic"]!]]))
        XCTAssertEqual(derived.status, 0, derived.stderr)
        let orchardAddress = Dictionary(
            uniqueKeysWithValues: derived.records.map {
                ("\($0["change"] as? Int ?? -1)/\(text($0["diversifier_index"]))", text($0["address"]))
            })
        let fixtureAddresses = try XCTUnwrap(wallet["addresses"] as? [[String: Any]])
        XCTAssertEqual(orchardAddress["0/0"], fixtureAddresses.first { $0["label"] as? String == "orchard_default_j0" }?["ua"] as? String)
        XCTAssertEqual(orchardAddress["1/0"], fixtureAddresses.first { $0["label"] as? String == "orchard_internal_j0" }?["ua"] as? String)
        for file in ["compact_blocks.jsonl", "compact_blocks.pb"] {
            let r = try Shell.run(
                "scan-blocks --chain zcash --blocks \(fixture)/\(file) --birthday 2950000 --state-dir \(dir)/\(file) --progress none",
                stdin: Shell.lines([["mnemonic": wallet["mnemonic"]!]]))
            XCTAssertEqual(r.status, 0, r.stderr)
            let received = r.records.filter { $0["type"] as? String == "received" }
            XCTAssertEqual(
                received.map { "\($0["pool"] as? String ?? "")/\($0["txid"] as? String ?? "")/\($0["index"] as? Int ?? -1)" },
                expected.map { "\(text($0["pool"]))/\(text($0["txid"]))/\(text($0["actionIndex"] ?? $0["outputIndex"]))" }, file)
            XCTAssertEqual(received.map { $0["amount"] as? String }, expected.map { text($0["value"]) })
            XCTAssertEqual(received.map { $0["nullifier"] as? String }, expected.map { text($0["nullifier"]) })
            XCTAssertEqual(received.map { $0["position"] as? Int }, expected.map { Int(text($0["position"])) })
            XCTAssertEqual(received.map { $0["change"] as? Bool ?? false }, expected.map { text($0["scope"]) == "internal" })
            // A Sapling note's zs1 address; an Orchard note's is the unified address of its receiver alone.
            for (record, note) in zip(received, expected) {
                if text(note["pool"]) == "sapling" {
                    XCTAssertEqual(record["address"] as? String, text(note["address_zs"]))
                } else {
                    let key = "\(text(note["scope"]) == "internal" ? 1 : 0)/\(text(note["diversifier_index"]))"
                    XCTAssertEqual(record["address"] as? String, try XCTUnwrap(orchardAddress[key], key))
                    XCTAssertEqual(record["diversifier_index"] as? Int, Int(text(note["diversifier_index"])))
                }
            }
            let spent = r.records.filter { $0["type"] as? String == "spent" }
            XCTAssertEqual(spent.count, 4)
            XCTAssertEqual(spent.map { $0["pool"] as? String }, ["orchard", "orchard", "orchard", "orchard"])
            XCTAssertEqual(
                Set(spent.compactMap { $0["nullifier"] as? String }),
                Set(expected.filter { $0["spent"] is [String: Any] }.map { text($0["nullifier"]) }))
            let balance = try XCTUnwrap(r.records.last)
            XCTAssertEqual(balance["total"] as? String, text(summary["unspentBalanceAllPools"]))
            let pools = try XCTUnwrap(balance["pools"] as? [String: [String: String]])
            XCTAssertEqual(pools["orchard"]?["total"], text(summary["unspentBalanceOrchard"]))
            XCTAssertEqual(pools["sapling"]?["total"], text(summary["unspentBalanceSapling"]))
            XCTAssertEqual(balance["spends_known"] as? Bool, true)
            // The UIVK: Orchard and Sapling payments, no change, no spends.
            let view = try Shell.run(
                "scan-blocks --chain zcash --blocks \(fixture)/\(file) --birthday 2950000 --state-dir \(dir)/uivk-\(file) --progress none",
                stdin: Shell.lines([["uivk": unified["uivk"]!]]))
            XCTAssertEqual(view.status, 0, view.stderr)
            let payments = view.records.filter { $0["type"] as? String == "received" }
            XCTAssertEqual(payments.filter { $0["pool"] as? String == "orchard" }.count, 12)
            XCTAssertEqual(payments.count, 14)
            XCTAssertEqual(view.records.filter { $0["type"] as? String == "spent" }.count, 0)
            XCTAssertEqual(view.records.last?["spends_known"] as? Bool, false)
            XCTAssertEqual(
                ((view.records.last?["pools"] as? [String: [String: String]])?["orchard"])?["total"],
                text(summary["totalReceivedOrchardExternalOnly"]))
        }
    }

    /// --txs with the fixture's full v5 transactions: every note's memo as the fixture has it
    /// (text, with its text; arbitrary bytes; none for an empty memo), Orchard and Sapling, and
    /// the same notes as without memos.
    func testMemosFromFullTransactions() throws {
        let wallet = try XCTUnwrap(TestPaths.json(TestPaths.fixture("zcash-orchard/wallet.json")) as? [String: Any])
        let expected = try TestPaths.jsonLines(TestPaths.fixture("zcash-orchard/expected_notes.jsonl"))
        let r = try Shell.run(
            "scan-blocks --chain zcash --blocks \(fixture)/compact_blocks.pb --txs \(fixture)/transactions.jsonl --birthday 2950000 --state-dir \(dir)/m --progress none",
            stdin: Shell.lines([["mnemonic": wallet["mnemonic"]!]]))
        XCTAssertEqual(r.status, 0, r.stderr)
        let received = r.records.filter { $0["type"] as? String == "received" }
        XCTAssertEqual(received.map { $0["nullifier"] as? String }, expected.map { text($0["nullifier"]) })
        XCTAssertEqual(
            received.map { $0["memo"] as? String }, expected.map { text($0["memo_type"]) == "empty" ? nil : text($0["memo_hex"]) })
        XCTAssertEqual(received.map { $0["memo_text"] as? String }, expected.map { $0["memo_text"] as? String })
        XCTAssertEqual(Set(expected.map { text($0["memo_type"]) }), ["text", "empty", "arbitrary"])
    }

    /// A reorg across Orchard notes and spends: undone, found again on the new branch, the
    /// balances per pool as a scan of the new branch alone gives them.
    func testReorgAcrossOrchardNotes() throws {
        let wallet = try XCTUnwrap(TestPaths.json(TestPaths.fixture("zcash-orchard/wallet.json")) as? [String: Any])
        try assertZcashReorgIsFollowed(
            blocks: "\(fixture)/compact_blocks.jsonl", birthday: 2_950_000, forkAt: 2_950_030,
            key: ["mnemonic": wallet["mnemonic"]!], dir: dir)
    }

    /// kill -9 during Orchard scans: the 18 notes and 4 spends exactly once, in order.
    func testKilledOrchardRunsLoseAndRepeatNothing() throws {
        let wallet = try XCTUnwrap(TestPaths.json(TestPaths.fixture("zcash-orchard/wallet.json")) as? [String: Any])
        try assertKilledZcashRunsLoseAndRepeatNothing(
            blocks: "\(fixture)/compact_blocks.pb", birthday: 2_950_000,
            key: ["mnemonic": wallet["mnemonic"]!], events: 22, dir: dir)
    }

    /// A field this version does not read (a newer upgrade's pool, as Ironwood was) is said
    /// once per run, with how many parts carry it, and the rest scans. (A V2 note among
    /// Ironwood actions is fixtures/zcash-ironwood's negative case; Ironwood actions here,
    /// below NU6.3, would be refused as no chain's: ZcashHostileBlockTests.)
    func testUnreadFieldsAreNamedNotSkippedSilently() throws {
        let wallet = try XCTUnwrap(TestPaths.json(TestPaths.fixture("zcash-orchard/wallet.json")) as? [String: Any])
        var lines = try String(contentsOfFile: "\(fixture)/compact_blocks.jsonl", encoding: .utf8).split(separator: "\n").map(String.init)
        for i in [3, 7] {
            var block = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(lines[i].utf8)) as? [String: Any])
            var vtx = try XCTUnwrap(block["vtx"] as? [[String: Any]])
            let tx = try XCTUnwrap(vtx.indices.first { !(vtx[$0]["actions"] as? [Any] ?? []).isEmpty })
            vtx[tx]["futurePoolActions"] = [(vtx[tx]["actions"] as! [Any])[0]]
            block["vtx"] = vtx
            lines[i] = String(decoding: try JSONSerialization.data(withJSONObject: block), as: UTF8.self)
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: "\(dir)/future.jsonl", atomically: true, encoding: .utf8)
        let r = try Shell.run(
            "scan-blocks --chain zcash --blocks \(dir)/future.jsonl --birthday 2950000 --state-dir \(dir)/iw --progress none",
            stdin: Shell.lines([["mnemonic": wallet["mnemonic"]!]]))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(
            r.stderr,
            "scan-blocks: warning: 2 compact block parts (transactions or blocks) carry fields this version does not read, perhaps a newer network upgrade's pool: notes there are not scanned, so a balance may miss funds; a newer version may read them\n"
        )
        let received = r.records.filter { $0["type"] as? String == "received" }
        XCTAssertEqual(received.count, 18)
        XCTAssertFalse(received.contains { $0["pool"] as? String == "ironwood" })
        // The whole fixture again, untouched: no warning.
        let clean = try Shell.run(
            "scan-blocks --chain zcash --blocks \(fixture)/compact_blocks.jsonl --birthday 2950000 --state-dir \(dir)/clean --progress none",
            stdin: Shell.lines([["mnemonic": wallet["mnemonic"]!]]))
        XCTAssertEqual(clean.status, 0, clean.stderr)
        XCTAssertEqual(clean.stderr, "")
    }

    /// The fake lightwalletd serves the fixture's actions as lightwalletd does: the live source
    /// finds what the file gives.
    func testOrchardFromALightwalletd() throws {
        let wallet = try XCTUnwrap(TestPaths.json(TestPaths.fixture("zcash-orchard/wallet.json")) as? [String: Any])
        let key = Shell.lines([["mnemonic": wallet["mnemonic"]!]])
        let file = try Shell.run(
            "scan-blocks --chain zcash --blocks \(fixture)/compact_blocks.pb --birthday 2950000 --state-dir \(dir)/f --progress none",
            stdin: key)
        XCTAssertEqual(file.status, 0, file.stderr)
        let server = try FakeLightwalletd(blocks: "\(fixture)/compact_blocks.jsonl")
        let live = try Shell.run(
            "scan-blocks --chain zcash --lightwalletd 127.0.0.1:\(server.port) --plaintext --birthday 2950000 --state-dir \(dir)/l --progress none",
            stdin: key)
        XCTAssertEqual(live.status, 0, live.stderr)
        XCTAssertEqual(live.lines, file.lines)
        XCTAssertEqual(live.records.filter { $0["pool"] as? String == "orchard" && $0["type"] as? String == "received" }.count, 16)
    }
}

/// A reorg that a compact-block file tells (#42), as for Bitcoin: a second run over a file that
/// begins with the replacement block 2,900,030′ (its parent the stored 2,900,029), and one file
/// holding the orphaned blocks and then the replacing branch.
extension ZcashScanToolTests {
    private func lines(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    private func height(_ line: String) -> Int {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["height"] as? Int ?? -1
    }

    private func write(_ lines: [String], _ name: String) throws -> String {
        try (lines.joined(separator: "\n") + "\n").write(toFile: "\(dir)/\(name)", atomically: true, encoding: .utf8)
        return "\(dir)/\(name)"
    }

    private func run(_ blocks: String, state: String, _ extra: String = "") throws -> Shell.Result {
        let r = try Shell.run(
            "scan-blocks --chain zcash --blocks \(blocks) --birthday 2900000 --state-dir \(dir)/\(state) --progress none \(extra)",
            stdin: Shell.lines([["mnemonic": try wallet()["mnemonic"]!]]))
        XCTAssertEqual(r.status, 0, r.stderr)
        return r
    }

    private func reorgs(_ r: Shell.Result) -> [[Int]] {
        r.records.filter { $0["type"] as? String == "reorg" }.map {
            [$0["fork_height"] as? Int ?? -2, $0["undone_outputs"] as? Int ?? -2, $0["undone_spends"] as? Int ?? -2]
        }
    }

    func testAFileThatBeginsWithAReplacementBlockOrHoldsAReorg() throws {
        let original = "\(fixture)/compact_blocks.jsonl"
        try writeZcashFork(of: original, from: 2_900_030, to: "\(dir)/fork.jsonl")
        let branch = try lines("\(dir)/fork.jsonl").filter { height($0) >= 2_900_030 }
        let whole = try run("\(dir)/fork.jsonl", state: "whole")
        let first = try run(original, state: "s")
        let undone = first.records.filter { $0["type"] as? String == "received" && ($0["height"] as? Int ?? 0) >= 2_900_030 }.count
        let undoneSpends = first.records.filter { $0["type"] as? String == "spent" && ($0["height"] as? Int ?? 0) >= 2_900_030 }.count
        XCTAssertGreaterThan(undone, 0)
        // The new branch alone: a reorg at 2,900,029, only what 2,900,030 on said undone.
        let second = try run(try write(branch, "branch.jsonl"), state: "s")
        XCTAssertEqual(reorgs(second), [[2_900_029, undone, undoneSpends]])
        XCTAssertEqual(second.records.last?["total"] as? String, whole.records.last?["total"] as? String)
        XCTAssertEqual(second.records.last?["height"] as? Int, 2_900_050)
        // Its first block alone, on another copy of the first run's state.
        let copy = try run(original, state: "t")
        XCTAssertEqual(copy.records.last?["total"] as? String, first.records.last?["total"] as? String)
        let alone = try run(try write(Array(branch.prefix(1)), "one.jsonl"), state: "t")
        XCTAssertEqual(reorgs(alone), [[2_900_029, undone, undoneSpends]])
        XCTAssertEqual(alone.records.last?["height"] as? Int, 2_900_031)
        // One file: the original to 2,900,039, then the branch from 2,900,030. A first run
        // stops at 2,900,039 (the branch not yet read); the next reads on and follows it.
        let feed = try write(try lines(original).filter { height($0) < 2_900_040 } + branch, "feed.jsonl")
        _ = try run(feed, state: "feed", "--until-height 2900039")
        let followed = try run(feed, state: "feed")
        XCTAssertEqual(reorgs(followed).map { $0[0] }, [2_900_029])
        XCTAssertEqual(followed.records.last?["total"] as? String, whole.records.last?["total"] as? String)
        // In one run the replaced blocks are dropped before they are scanned: no reorg at all.
        let once = try run(feed, state: "once")
        XCTAssertEqual(reorgs(once), [])
        XCTAssertEqual(once.lines, whole.lines)
    }
}
