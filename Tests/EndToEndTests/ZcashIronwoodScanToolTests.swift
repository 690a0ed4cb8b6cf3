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
        dir = try temporaryDirectory("iw")
    }

    private func text(_ value: Any?) -> String { value as? String ?? (value as? NSNumber)?.stringValue ?? "" }

    private func wallet() throws -> [String: Any] {
        try XCTUnwrap(TestPaths.json(TestPaths.fixture("zcash-ironwood/wallet.json")) as? [String: Any])
    }

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
            let r = try Shell.run(
                "scan-blocks --chain zcash --blocks \(fixture)/\(file) --birthday 3428123 --state-dir \(dir)/\(file) --progress none",
                stdin: Shell.lines([["mnemonic": wallet["mnemonic"]!]]))
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(r.stderr, "", file)
            let received = r.records.filter { $0["type"] as? String == "received" }
            XCTAssertEqual(
                received.map { "\(text($0["pool"]))/\(text($0["txid"]))/\(text($0["index"]))/\(text($0["height"]))" },
                expected.map {
                    "\(text($0["pool"]))/\(text($0["txid"]))/\(text($0["actionIndex"] ?? $0["outputIndex"]))/\(text($0["height"]))"
                }, file)
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
            XCTAssertEqual(
                spent.map { "\(text($0["pool"]))/\(text($0["txid"]))/\(text($0["height"]))/\(text($0["nullifier"]))" },
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

    /// --txs with the fixture's full transactions (65 v5 and 93 v6: NU6.3's layout, with the
    /// Ironwood bundle after the Orchard one): every note's memo in all three pools as the
    /// fixture has it (text with its text, arbitrary bytes, none for an empty memo), and the
    /// same notes as without memos; a v6 transaction altered in a memo, or where its compact form
    /// does not reach, is refused by its recomputed id (exit 65, named).
    func testMemosFromV5AndV6Transactions() throws {
        let expected = try TestPaths.jsonLines(TestPaths.fixture("zcash-ironwood/expected_notes.jsonl"))
        let r = try Shell.run(
            "scan-blocks --chain zcash --blocks \(fixture)/compact_blocks.pb --txs \(fixture)/transactions.jsonl --birthday 3428123 --state-dir \(dir)/m --progress none",
            stdin: Shell.lines([["mnemonic": try wallet()["mnemonic"]!]]))
        XCTAssertEqual(r.status, 0, r.stderr)
        let received = r.records.filter { $0["type"] as? String == "received" }
        XCTAssertEqual(received.map { $0["nullifier"] as? String }, expected.map { text($0["nullifier"]) })
        XCTAssertEqual(
            received.map { $0["memo"] as? String }, expected.map { text($0["memo_type"]) == "empty" ? nil : text($0["memo_hex"]) })
        XCTAssertEqual(received.map { $0["memo_text"] as? String }, expected.map { $0["memo_text"] as? String })
        XCTAssertEqual(
            Set(expected.filter { text($0["pool"]) == "ironwood" }.map { text($0["memo_type"]) }), ["text", "empty", "arbitrary"])
        // A full v6 transaction whose Ironwood action differs from its compact form: refused, named.
        let lines = try String(contentsOfFile: "\(fixture)/transactions.jsonl", encoding: .utf8).split(separator: "\n").map(String.init)
        let i4 = try XCTUnwrap(expected.first { text($0["id"]) == "I4" })
        var changed = lines
        let k = try XCTUnwrap(lines.firstIndex { $0.contains(text(i4["txid"])) })
        var tx = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(lines[k].utf8)) as? [String: Any])
        // A byte of I4's memo: 100 bytes into the ciphertext that follows its ephemeral key.
        let hex = try XCTUnwrap(tx["raw_tx"] as? String)
        let epk = try XCTUnwrap(hex.range(of: text(i4["ephemeralKey"])))
        var raw = Array(hex)
        let at = hex.distance(from: hex.startIndex, to: epk.upperBound) + 200
        raw[at] = raw[at] == "0" ? "1" : "0"
        tx["raw_tx"] = String(raw)
        changed[k] = String(decoding: try JSONSerialization.data(withJSONObject: tx), as: UTF8.self)
        try (changed.joined(separator: "\n") + "\n").write(toFile: "\(dir)/changed.jsonl", atomically: true, encoding: .utf8)
        let bad = try Shell.run(
            "scan-blocks --chain zcash --blocks \(fixture)/compact_blocks.pb --txs \(dir)/changed.jsonl --birthday 3428123 --state-dir \(dir)/bad --progress none",
            stdin: Shell.lines([["mnemonic": try wallet()["mnemonic"]!]]))
        XCTAssertEqual(bad.status, 65, bad.stderr)
        // A v6 transaction altered where its compact form does not reach (its header's expiry
        // height): its id, recomputed, is not the block's.
        var header = lines
        var other = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(lines[k].utf8)) as? [String: Any])
        var otherRaw = Array(try XCTUnwrap(other["raw_tx"] as? String))
        otherRaw[39] = otherRaw[39] == "0" ? "1" : "0"  // the expiry height's last hex digit (bytes 16-19)
        other["raw_tx"] = String(otherRaw)
        header[k] = String(decoding: try JSONSerialization.data(withJSONObject: other), as: UTF8.self)
        try (header.joined(separator: "\n") + "\n").write(toFile: "\(dir)/header.jsonl", atomically: true, encoding: .utf8)
        let wrongID = try Shell.run(
            "scan-blocks --chain zcash --blocks \(fixture)/compact_blocks.pb --txs \(dir)/header.jsonl --birthday 3428123 --state-dir \(dir)/id --progress none",
            stdin: Shell.lines([["mnemonic": try wallet()["mnemonic"]!]]))
        XCTAssertEqual(wrongID.status, 65, wrongID.stderr)
        XCTAssertTrue(
            wrongID.stderr.hasPrefix(
                "scan-blocks: scan.malformed: block \(text(i4["height"])) is malformed: compact block at height \(text(i4["height"])): the full transaction given for \(text(i4["txid"])) has the id "
            ), wrongID.stderr)
        // v6's id covers the memos too: the recomputed id tells first (the tag would, after it).
        XCTAssertTrue(
            bad.stderr.hasPrefix(
                "scan-blocks: scan.malformed: block \(text(i4["height"])) is malformed: compact block at height \(text(i4["height"])): the full transaction given for \(text(i4["txid"])) has the id "
            ), bad.stderr)
    }

    /// The UIVK: the external notes of every pool, no change, no spends; each pool's total is
    /// what its external notes received.
    func testIncomingViewingKeySeesPaymentsOnly() throws {
        let unified = try XCTUnwrap(try wallet()["unified"] as? [String: Any])
        let expected = try TestPaths.jsonLines(TestPaths.fixture("zcash-ironwood/expected_notes.jsonl")).filter {
            text($0["scope"]) == "external"
        }
        let r = try Shell.run(
            "scan-blocks --chain zcash --blocks \(fixture)/compact_blocks.pb --birthday 3428123 --state-dir \(dir)/uivk --progress none",
            stdin: Shell.lines([["uivk": unified["uivk"]!]]))
        XCTAssertEqual(r.status, 0, r.stderr)
        let received = r.records.filter { $0["type"] as? String == "received" }
        XCTAssertEqual(
            received.map { "\(text($0["pool"]))/\(text($0["txid"]))/\(text($0["index"]))/\(text($0["amount"]))" },
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

    /// The man page's advice, the seed twice (once with "use_qsk": true): the use_qsk record
    /// scans Orchard and Ironwood only, so the seed's two Sapling notes (0.45 ZEC) are counted
    /// once, by the standard record; before, both wallets reported them.
    func testUseQskRecordBesideThePlainOneCountsSaplingOnce() throws {
        let wallet = try wallet()
        let r = try Shell.run(
            "scan-blocks --chain zcash --blocks \(fixture)/compact_blocks.pb --birthday 3428123 --state-dir \(dir)/both --progress none",
            stdin: Shell.lines([["mnemonic": wallet["mnemonic"]!, "use_qsk": true]]))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.records.filter { $0["type"] as? String != "balance" }.count, 0)
        let balance = try XCTUnwrap(r.records.last)
        XCTAssertEqual(balance["total"] as? String, "0")
        XCTAssertEqual((balance["pools"] as? [String: Any]).map { Set($0.keys) }, ["orchard", "ironwood"])
        let plain = try Shell.run(
            "scan-blocks --chain zcash --blocks \(fixture)/compact_blocks.pb --birthday 3428123 --state-dir \(dir)/plain --progress none",
            stdin: Shell.lines([["mnemonic": wallet["mnemonic"]!]]))
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertEqual(
            plain.records.filter { $0["type"] as? String == "received" && $0["pool"] as? String == "sapling" }.map {
                $0["amount"] as? String
            },
            ["42000000", "3000000"])
    }

    /// An account of ZIP 2005's use_qsk = true rule (account 2; its notes Q1 and Q2 are in
    /// optional_notes.jsonl): `derive --use-qsk` gives Q1's address, and so does a record's
    /// "use_qsk": true; a scan from the seed with it finds exactly Q1 (external) and Q2 (change)
    /// in Ironwood with their positions and nullifiers, Q1's spend, and Q2's value as the
    /// balance, as a scan of the UFVK derive wrote does; without the rule the same account
    /// finds nothing. use_qsk beside a viewing key, or --use-qsk without a shielded pool, is refused.
    func testAQuantumSecureRivkAccount() throws {
        let wallet = try wallet()
        let phrase = Shell.lines([["mnemonic": wallet["mnemonic"]!]])
        let notes = try TestPaths.jsonLines(TestPaths.fixture("zcash-ironwood/optional_notes.jsonl"))
        XCTAssertEqual(notes.map { text($0["id"]) }, ["Q1", "Q2"])
        let address = try Shell.run("derive --coin zec --pool orchard --account 2 --use-qsk", stdin: phrase)
        XCTAssertEqual(address.status, 0, address.stderr)
        XCTAssertEqual(address.records.first?["address"] as? String, text(notes[0]["address_ua"]))
        XCTAssertEqual(address.records.first?["use_qsk"] as? Bool, true)
        let byRecord = try Shell.run(
            "derive --coin zec --pool orchard --account 2",
            stdin: Shell.lines([["mnemonic": wallet["mnemonic"]!, "use_qsk": true]]))
        XCTAssertEqual(byRecord.status, 0, byRecord.stderr)
        XCTAssertEqual(byRecord.records.first?["address"] as? String, text(notes[0]["address_ua"]))
        let standard = try Shell.run("derive --coin zec --pool orchard --account 2", stdin: phrase)
        XCTAssertEqual(standard.status, 0, standard.stderr)
        XCTAssertNotEqual(standard.records.first?["address"] as? String, text(notes[0]["address_ua"]))
        let account = try Shell.run("derive account --coin zec --pool orchard --account 2 --use-qsk", stdin: phrase)
        XCTAssertEqual(account.status, 0, account.stderr)
        let ufvk = try XCTUnwrap(account.records.first?["ufvk"] as? String)

        let inputs: [(String, [String: Any])] = [
            ("seed", ["mnemonic": wallet["mnemonic"]!, "account": 2, "use_qsk": true]), ("ufvk", ["ufvk": ufvk]),
        ]
        for (name, input) in inputs {
            let r = try Shell.run(
                "scan-blocks --chain zcash --blocks \(fixture)/compact_blocks.pb --birthday 3428123 --state-dir \(dir)/qsk-\(name) --progress none",
                stdin: Shell.lines([input]))
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(r.stderr, "", name)
            let received = r.records.filter { $0["type"] as? String == "received" }
            XCTAssertEqual(
                received.map { "\(text($0["pool"]))/\(text($0["txid"]))/\(text($0["index"]))/\(text($0["height"]))/\(text($0["amount"]))" },
                notes.map {
                    "\(text($0["pool"]))/\(text($0["txid"]))/\(text($0["actionIndex"]))/\(text($0["height"]))/\(text($0["value"]))"
                }, name)
            XCTAssertEqual(received.map { $0["position"] as? Int }, notes.map { Int(text($0["position"])) }, name)
            XCTAssertEqual(received.map { $0["nullifier"] as? String }, notes.map { text($0["nullifier"]) }, name)
            XCTAssertEqual(received.map { $0["change"] as? Bool ?? false }, [false, true], name)
            let spent = r.records.filter { $0["type"] as? String == "spent" }
            let q1Spend = try XCTUnwrap(notes[0]["spent"] as? [String: Any])
            XCTAssertEqual(
                spent.map { "\(text($0["pool"]))/\(text($0["txid"]))/\(text($0["height"]))/\(text($0["nullifier"]))" },
                ["ironwood/\(text(q1Spend["txid"]))/\(text(q1Spend["height"]))/\(text(notes[0]["nullifier"]))"], name)
            let balance = try XCTUnwrap(r.records.last)
            XCTAssertEqual(balance["type"] as? String, "balance")
            XCTAssertEqual(balance["total"] as? String, text(notes[1]["value"]), name)
            XCTAssertEqual((balance["pools"] as? [String: [String: String]])?["ironwood"]?["total"], text(notes[1]["value"]), name)
        }
        let blind = try Shell.run(
            "scan-blocks --chain zcash --blocks \(fixture)/compact_blocks.pb --birthday 3428123 --state-dir \(dir)/qsk-not --progress none",
            stdin: Shell.lines([["mnemonic": wallet["mnemonic"]!, "account": 2]]))
        XCTAssertEqual(blind.status, 0, blind.stderr)
        XCTAssertEqual(blind.records.filter { $0["type"] as? String != "balance" }.count, 0)
        XCTAssertEqual(blind.records.last?["total"] as? String, "0")

        let withKey = try Shell.run("derive --coin zec --pool orchard", stdin: Shell.lines([["ufvk": ufvk, "use_qsk": true]]))
        XCTAssertEqual(withKey.status, 65)
        XCTAssertEqual(withKey.records.first?["code"] as? String, "derive.unsupported")
        let scanWithKey = try Shell.run(
            "scan-blocks --chain zcash --blocks \(fixture)/compact_blocks.pb --birthday 3428123 --state-dir \(dir)/qsk-key --progress none",
            stdin: Shell.lines([["ufvk": ufvk, "use_qsk": true]]))
        XCTAssertEqual(scanWithKey.status, 65, scanWithKey.stderr)
        let notBool = try Shell.run(
            "derive --coin zec --pool orchard", stdin: Shell.lines([["mnemonic": wallet["mnemonic"]!, "use_qsk": "yes"]]))
        XCTAssertEqual(notBool.status, 65)
        XCTAssertEqual(notBool.records.first?["code"] as? String, "record.wrong_type")
        let noPool = try Shell.run("derive --coin zec --use-qsk", stdin: phrase)
        XCTAssertEqual(noPool.status, 64)
    }

    /// A state the version before Ironwood took past NU6.3 (Tests/Fixtures/state-pre-ironwood:
    /// the 13 Orchard and Sapling notes and 6 spends, events 1–19): the first run of this
    /// version says so and scans blocks 3,428,143–3,428,172 again for Ironwood alone, reporting
    /// exactly the 14 Ironwood notes and 3 Ironwood spends as events 20–36 — nothing twice —
    /// and the balance of a scan from scratch; the next run reports nothing. A source that does
    /// not serve those blocks leaves the catch-up for a later run, and says so.
    func testAStateThatPassedNU63Blind() throws {
        let wallet = try wallet()
        let key = Shell.lines([["mnemonic": wallet["mnemonic"]!]])
        let expected = try TestPaths.jsonLines(TestPaths.fixture("zcash-ironwood/expected_notes.jsonl")).filter {
            text($0["pool"]) == "ironwood"
        }
        let spends = try TestPaths.jsonLines(TestPaths.fixture("zcash-ironwood/expected_spends.jsonl")).filter {
            text($0["pool"]) == "ironwood"
        }
        let summary = try XCTUnwrap(TestPaths.json(TestPaths.fixture("zcash-ironwood/expected_summary.json")) as? [String: Any])
        let state = TestPaths.fixtures.appendingPathComponent("state-pre-ironwood/zcash-main-ebe616d03e347ac80791700c.sqlite").path
        func copyState(_ name: String) throws -> String {
            let d = "\(dir)/\(name)"
            try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try FileManager.default.copyItem(atPath: state, toPath: "\(d)/zcash-main-ebe616d03e347ac80791700c.sqlite")
            return d
        }
        let old = try copyState("old")
        let r = try Shell.run(
            "scan-blocks --chain zcash --blocks \(fixture)/compact_blocks.pb --birthday 3428123 --state-dir \(old) --progress none",
            stdin: key)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(
            r.stderr,
            "scan-blocks: warning: blocks 3428143-3428172 were scanned by an earlier version that did not scan the ironwood pool: scanning them again for ironwood alone (once; what was reported stays as it is)\n"
        )
        let events = r.records.filter { $0["type"] as? String != "balance" }
        let received = events.filter { $0["type"] as? String == "received" }, spent = events.filter { $0["type"] as? String == "spent" }
        XCTAssertEqual(
            received.map { "\(text($0["pool"]))/\(text($0["txid"]))/\(text($0["index"]))/\(text($0["amount"]))/\(text($0["nullifier"]))" },
            expected.map { "ironwood/\(text($0["txid"]))/\(text($0["actionIndex"]))/\(text($0["value"]))/\(text($0["nullifier"]))" })
        XCTAssertEqual(
            spent.map { "\(text($0["pool"]))/\(text($0["txid"]))/\(text($0["nullifier"]))" },
            spends.map { "ironwood/\(text($0["txid"]))/\(text($0["nullifier"]))" })
        XCTAssertEqual(events.count, 17)
        XCTAssertEqual(events.compactMap { $0["event_id"] as? Int }.sorted(), Array(20...36))
        let balance = try XCTUnwrap(r.records.last)
        XCTAssertEqual(balance["total"] as? String, text(summary["unspentBalanceAllPools"]))
        XCTAssertEqual(
            (balance["pools"] as? [String: [String: String]])?["ironwood"]?["total"],
            text((summary["perPool"] as? [String: [String: Any]])?["ironwood"]?["unspentBalance"]))
        // Once: the next run reports nothing and says nothing.
        let again = try Shell.run(
            "scan-blocks --chain zcash --blocks \(fixture)/compact_blocks.pb --birthday 3428123 --state-dir \(old) --progress none",
            stdin: key)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(again.stderr, "")
        XCTAssertEqual(again.records.map { $0["type"] as? String }, ["balance"])
        XCTAssertEqual(again.records.last?["total"] as? String, text(summary["unspentBalanceAllPools"]))
        // A source without those blocks (a file of the last block alone): the catch-up waits, said.
        let lines = try String(contentsOfFile: "\(fixture)/compact_blocks.jsonl", encoding: .utf8).split(separator: "\n")
        try (String(lines.last!) + "\n").write(toFile: "\(dir)/last.jsonl", atomically: true, encoding: .utf8)
        let waiting = try copyState("waiting")
        let w = try Shell.run(
            "scan-blocks --chain zcash --blocks \(dir)/last.jsonl --birthday 3428123 --state-dir \(waiting) --progress none", stdin: key)
        XCTAssertEqual(w.status, 0, w.stderr)
        XCTAssertEqual(
            w.stderr,
            "scan-blocks: warning: the ironwood pool is still to be scanned in blocks 3428143-3428172, which an earlier version scanned without it, and the source does not serve them now: its notes there are missing from the balance until a run whose source does\n"
        )
        XCTAssertEqual(w.records.map { $0["type"] as? String }, ["balance"])
        let later = try Shell.run(
            "scan-blocks --chain zcash --blocks \(fixture)/compact_blocks.jsonl --birthday 3428123 --state-dir \(waiting) --progress none",
            stdin: key)
        XCTAssertEqual(later.status, 0, later.stderr)
        XCTAssertEqual(later.records.filter { $0["type"] as? String != "balance" }.count, 17)
        XCTAssertEqual(later.records.last?["total"] as? String, text(summary["unspentBalanceAllPools"]))
    }

    /// The chain moved since the old version stored it (a fork at 3,428,150): the catch-up
    /// reads Ironwood up to the fork, rolls the wallet back there with a reorg event, and the
    /// scan reads every pool from the fork on; the balance is that of a scan of the new branch
    /// from scratch, and no note is reported twice without the reorg between.
    func testACatchUpThatMeetsAFork() throws {
        let key = Shell.lines([["mnemonic": try wallet()["mnemonic"]!]])
        let d = "\(dir)/old"
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.copyItem(
            atPath: TestPaths.fixtures.appendingPathComponent("state-pre-ironwood/zcash-main-ebe616d03e347ac80791700c.sqlite").path,
            toPath: "\(d)/zcash-main-ebe616d03e347ac80791700c.sqlite")
        try writeZcashFork(of: "\(fixture)/compact_blocks.jsonl", from: 3_428_150, to: "\(dir)/fork.jsonl")
        let r = try Shell.run(
            "scan-blocks --chain zcash --blocks \(dir)/fork.jsonl --birthday 3428123 --state-dir \(d) --progress none", stdin: key)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(
            r.stderr,
            "scan-blocks: warning: blocks 3428143-3428172 were scanned by an earlier version that did not scan the ironwood pool: scanning them again for ironwood alone (once; what was reported stays as it is)\n"
        )
        let types = r.records.compactMap { $0["type"] as? String }
        let reorg = try XCTUnwrap(r.records.first { $0["type"] as? String == "reorg" })
        XCTAssertEqual(reorg["fork_height"] as? Int, 3_428_149)
        let k = try XCTUnwrap(types.firstIndex(of: "reorg"))
        // Before the reorg: Ironwood alone, below the fork; after it: every pool, from the fork on.
        let before = r.records[..<k], after = r.records[(k + 1)...].filter { $0["type"] as? String != "balance" }
        XCTAssertTrue(before.allSatisfy { $0["pool"] as? String == "ironwood" && ($0["height"] as? Int ?? 0) < 3_428_150 })
        XCTAssertEqual(before.filter { $0["type"] as? String == "received" }.count, 5)  // I1-I5
        XCTAssertTrue(after.allSatisfy { ($0["height"] as? Int ?? 0) >= 3_428_150 })
        XCTAssertEqual(Set(after.compactMap { $0["pool"] as? String }), ["orchard", "ironwood", "sapling"])
        let whole = try Shell.run(
            "scan-blocks --chain zcash --blocks \(dir)/fork.jsonl --birthday 3428123 --state-dir \(dir)/whole --progress none", stdin: key)
        XCTAssertEqual(whole.status, 0, whole.stderr)
        XCTAssertEqual(r.records.last?["total"] as? String, whole.records.last?["total"] as? String)
        XCTAssertEqual(r.records.last?["pools"] as? [String: [String: String]], whole.records.last?["pools"] as? [String: [String: String]])
    }

    /// Over the fake lightwalletd (which serves ironwoodActions and the Ironwood tree size as
    /// lightwalletd 0.5 does): the scan asks GetLightdInfo once it reaches NU6.3 and finds what the
    /// file gives; a server before 0.5.0 is refused (69, named) before any block past NU6.3, and
    /// serves a scan that ends before NU6.3 without being asked.
    func testIronwoodFromALightwalletd() throws {
        let key = Shell.lines([["mnemonic": try wallet()["mnemonic"]!]])
        let file = try Shell.run(
            "scan-blocks --chain zcash --blocks \(fixture)/compact_blocks.pb --birthday 3428123 --state-dir \(dir)/f --progress none",
            stdin: key)
        XCTAssertEqual(file.status, 0, file.stderr)
        let server = try FakeLightwalletd(blocks: "\(fixture)/compact_blocks.jsonl", ["--log", "\(dir)/calls.log"])
        let live = try Shell.run(
            "scan-blocks --chain zcash --lightwalletd 127.0.0.1:\(server.port) --plaintext --birthday 3428123 --state-dir \(dir)/l --progress none",
            stdin: key)
        XCTAssertEqual(live.status, 0, live.stderr)
        XCTAssertEqual(live.lines, file.lines)
        XCTAssertEqual(live.records.filter { $0["pool"] as? String == "ironwood" && $0["type"] as? String == "received" }.count, 14)
        let calls = try String(contentsOfFile: "\(dir)/calls.log", encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(calls.filter { $0 == "GetLightdInfo" }.count, 1)
        XCTAssertTrue(calls.allSatisfy { !$0.hasPrefix("GetBlockRange") || $0 == "GetBlockRange []" }, "\(calls)")
        let old = try FakeLightwalletd(
            blocks: "\(fixture)/compact_blocks.jsonl", ["--lightd-version", "v0.4.18", "--log", "\(dir)/old.log"])
        let refused = try Shell.run(
            "scan-blocks --chain zcash --lightwalletd 127.0.0.1:\(old.port) --plaintext --birthday 3428123 --state-dir \(dir)/o --progress none",
            stdin: key)
        XCTAssertEqual(refused.status, 69, refused.stderr)
        XCTAssertEqual(
            refused.stderr,
            "scan-blocks: source.too_old: the lightwalletd at 127.0.0.1:\(old.port) (ECC LightWalletD version v0.4.18, by GetLightdInfo) does not serve the Ironwood pool, where every shielded payment to an Orchard receiver lands since NU6.3 (height 3,428,143), which this scan reaches: a balance from it would miss them; use a lightwalletd of 0.5.0 or later\n"
        )
        XCTAssertEqual(refused.records.count, 0)
        // The same server for a scan that ends before NU6.3: not asked, and it serves.
        let before = try Shell.run(
            "scan-blocks --chain zcash --lightwalletd 127.0.0.1:\(old.port) --plaintext --birthday 3428123 --until-height 3428142 --state-dir \(dir)/b --progress none",
            stdin: key)
        XCTAssertEqual(before.status, 0, before.stderr)
        XCTAssertEqual(before.records.filter { $0["type"] as? String == "received" }.count, 11)
        let oldCalls = try String(contentsOfFile: "\(dir)/old.log", encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(oldCalls.filter { $0 == "GetLightdInfo" }.count, 1)  // the refused run's alone
        // A newer server that names its protocol version is served whatever its version string.
        let named = try FakeLightwalletd(
            blocks: "\(fixture)/compact_blocks.jsonl", ["--lightd-version", "zaino-0.1", "--protocol-version", "1.0.0"])
        let ok = try Shell.run(
            "scan-blocks --chain zcash --lightwalletd 127.0.0.1:\(named.port) --plaintext --birthday 3428123 --state-dir \(dir)/n --progress none",
            stdin: key)
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertEqual(ok.lines, file.lines)
    }

    /// A reorg after NU6.3 (Ironwood notes and spends on both branches): undone, found again,
    /// the balances per pool as a scan of the new branch alone gives them.
    func testReorgAcrossNU63() throws {
        try assertZcashReorgIsFollowed(
            blocks: "\(fixture)/compact_blocks.jsonl", birthday: 3_428_123, forkAt: 3_428_150,
            key: ["mnemonic": try wallet()["mnemonic"]!], dir: dir)
    }

    /// kill -9 during scans across NU6.3: the 27 notes and 9 spends exactly once, in order.
    func testKilledRunsLoseAndRepeatNothing() throws {
        try assertKilledZcashRunsLoseAndRepeatNothing(
            blocks: "\(fixture)/compact_blocks.pb", birthday: 3_428_123,
            key: ["mnemonic": try wallet()["mnemonic"]!], events: 36, dir: dir)
    }

    /// The pairing and the scanner agree (#58): `derive account --ur zcash-accounts` from W's
    /// phrase gives the UFVK and seed fingerprint a wallet pairs by (the independent UR decoder
    /// finds both in the UR's CBOR), and scan-blocks given that UFVK alone finds the very notes
    /// the seed finds.
    func testThePairingUFVKScansAsTheSeed() throws {
        let wallet = try wallet()
        let account = try Shell.run(
            "derive account --coin zec --pool orchard --ur zcash-accounts", stdin: Shell.lines([["mnemonic": wallet["mnemonic"]!]]))
        XCTAssertEqual(account.status, 0, account.stderr)
        let record = try XCTUnwrap(account.records.first)
        let ufvk = try XCTUnwrap(record["ufvk"] as? String), fingerprint = try XCTUnwrap(record["seed_fingerprint"] as? String)
        let decoded = try Shell.run("python3 scripts/qr-oracle.py ur-decode", stdin: Data(try XCTUnwrap(record["ur"] as? String).utf8))
        XCTAssertEqual(decoded.status, 0, decoded.stderr)
        let cbor = decoded.out.trimmingCharacters(in: .newlines)
        XCTAssertTrue(cbor.hasPrefix("zcash-accounts a2015820" + fingerprint + "0281d9c033a2"), cbor)
        XCTAssertTrue(cbor.contains(Data(ufvk.utf8).map { String(format: "%02x", $0) }.joined()), cbor)
        let key = "\(dir)/view.json"
        try Shell.lines([["ufvk": ufvk]]).write(to: URL(fileURLWithPath: key))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key)
        let expected = try TestPaths.jsonLines(TestPaths.fixture("zcash-ironwood/expected_notes.jsonl"))
        let r = try Shell.run(
            "scan-blocks --chain zcash --blocks \(fixture)/compact_blocks.pb --birthday 3428123 --key-file \(key) --state-dir \(dir)/s --progress none"
        )
        XCTAssertEqual(r.status, 0, r.stderr)
        let received = r.records.filter { $0["type"] as? String == "received" }
        XCTAssertEqual(
            received.map { "\(text($0["pool"]))/\(text($0["txid"]))/\(text($0["index"]))/\(text($0["amount"]))" },
            expected.map { "\(text($0["pool"]))/\(text($0["txid"]))/\(text($0["actionIndex"] ?? $0["outputIndex"]))/\(text($0["value"]))" })
    }
}
