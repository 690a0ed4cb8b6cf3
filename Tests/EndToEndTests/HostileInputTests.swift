import Foundation
import SatchelTestSupport
import XCTest

/// Numbers from outside that crashed a tool (exit 132, a trapped conversion): each is now
/// checked where it is read and refused with a record error or a scan error.
final class HostileInputTests: XCTestCase {
    var dir = ""
    let fixture = TestPaths.fixture("zcash-sapling").path

    override func setUpWithError() throws {
        dir = try temporaryDirectory("hostile")
    }

    private func wallet() throws -> [String: Any] {
        try XCTUnwrap(TestPaths.json(TestPaths.fixture("zcash-sapling/wallet.json")) as? [String: Any])
    }

    /// A compact block whose height is 2^63 or more, as JSON Lines and as a .pb stream.
    func testCompactBlockHeightBeyondAnyChain() throws {
        let w = try wallet()
        let key = Shell.lines([["ufvk": (w["unified"] as? [String: Any])?["ufvk"] as Any]])
        var lines = try String(contentsOfFile: "\(fixture)/compact_blocks.jsonl", encoding: .utf8).split(separator: "\n").map(String.init)
        lines[1] = lines[1].replacingOccurrences(of: #""height": 2900001"#, with: #""height": 9223372036854775808"#)
        XCTAssertTrue(lines[1].contains("9223372036854775808"))
        try (lines.joined(separator: "\n") + "\n").write(toFile: "\(dir)/high.jsonl", atomically: true, encoding: .utf8)
        // A .pb stream of one block: field 2 (height) = 2^63, 32-byte hash and prevHash.
        var block: [UInt8] = [0x10] + [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]
        block += [0x1A, 0x20] + [UInt8](repeating: 0x11, count: 32) + [0x22, 0x20] + [UInt8](repeating: 0x22, count: 32)
        XCTAssertTrue(FileManager.default.createFile(atPath: "\(dir)/high.pb", contents: Data([UInt8(block.count)] + block)))
        for (file, birthday) in [("high.jsonl", 2_900_000), ("high.pb", 0)] {
            let r = try Shell.run(
                "scan-blocks --chain zcash --blocks \(dir)/\(file) --birthday \(birthday) --state-dir \(dir)/s-\(file) --progress none",
                stdin: key)
            XCTAssertEqual(r.status, 65, file + r.stderr)
            XCTAssertTrue(r.stderr.contains("height 9223372036854775808 is beyond any chain"), file + r.stderr)
        }
    }

    /// A Zcash key record's account must be a ZIP-32 account (below 2^31), and its birthday a
    /// height (as --birthday).
    func testZcashKeyRecordNumbers() throws {
        let w = try wallet()
        for (field, value) in [
            ("account", "-1"), ("account", "4294967296"), ("account", "2147483648"),
            ("birthday", "-5"), ("birthday", "1099511627777"), ("birthday", "18446744073709551616"),
        ] {
            let line = #"{"mnemonic":"\#(w["mnemonic"] as! String)","\#(field)":\#(value)}"# + "\n"
            let r = try Shell.run(
                "scan-blocks --chain zcash --blocks \(fixture)/compact_blocks.pb --state-dir \(dir)/s --progress none",
                stdin: Data(line.utf8))
            XCTAssertEqual(r.status, 65, "\(field) \(value): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("\"\(field)\": must be a whole number from 0 to "), "\(field) \(value): \(r.stderr)")
            XCTAssertEqual(r.out, "")
            // The same line in a --wallets file: refused with its line.
            try ("# wallets\n" + line).write(toFile: "\(dir)/wallets", atomically: true, encoding: .utf8)
            chmod("\(dir)/wallets", 0o600)
            let listed = try Shell.run(
                "scan-blocks --chain zcash --blocks \(fixture)/compact_blocks.pb --wallets \(dir)/wallets --state-dir \(dir)/s --progress none"
            )
            XCTAssertEqual(listed.status, 65, "\(field) \(value): \(listed.stderr)")
        }
        // The last ZIP-32 account is one (ZcashScanToolTests scans account 1); no note is there.
        let one = try Shell.run(
            "scan-blocks --chain zcash --blocks \(fixture)/compact_blocks.pb --birthday 2900000 --state-dir \(dir)/one --progress none",
            stdin: Data((#"{"mnemonic":"\#(w["mnemonic"] as! String)","account":2147483647}"# + "\n").utf8))
        XCTAssertEqual(one.status, 0, one.stderr)
        XCTAssertEqual(one.records.map { $0["type"] as? String }, ["balance"])
        XCTAssertEqual(one.records.first?["total"] as? String, "0")
    }

    /// A Monero key record's birthday is a height too.
    func testMoneroKeyRecordBirthday() throws {
        let monero = TestPaths.fixture("monero-regtest").path
        let keys = (try TestPaths.json(TestPaths.fixture("monero-regtest/expected.json")) as! [String: Any])["keys"] as! [String: Any]
        for birthday in ["-1", "1099511627777", "99999999999999999999"] {
            let line =
                #"{"view_key":"\#(keys["private_view_key"]!)","public_spend_key":"\#(keys["public_spend_key"]!)","birthday":\#(birthday)}"#
                + "\n"
            let r = try Shell.run(
                "scan-blocks --blocks \(monero)/blocks.jsonl --txs \(monero)/txs.jsonl --state-dir \(dir)/m --progress none",
                stdin: Data(line.utf8))
            XCTAssertEqual(r.status, 65, birthday + r.stderr)
            XCTAssertTrue(r.stderr.contains("\"birthday\": must be a whole number from 0 to 1099511627776"), birthday + r.stderr)
        }
    }

    /// A hostile monerod (scripts/hostile-monerod.py): one that accepts and never answers, or
    /// trickles, ends the run after --timeout per call and the retries (69), never hangs; an
    /// answer that never ends, or a height that is not one, is not monerod's (76).
    func testHostileMonerod() throws {
        let keys = (try TestPaths.json(TestPaths.fixture("monero-regtest/expected.json")) as! [String: Any])["keys"] as! [String: Any]
        let key = Shell.lines([["view_key": keys["private_view_key"]!, "public_spend_key": keys["public_spend_key"]!]])
        // (mode, --timeout, exit status, what stderr says); an endless answer gets a deadline it
        // does not reach, so that the size cap is what ends it.
        for (mode, timeout, status, message) in [
            ("silent", 2, 69, "no complete answer within 2.0 s"), ("trickle", 2, 69, "no complete answer within 2.0 s"),
            ("endless", 100, 76, "an answer over 536870912 bytes"), ("heights=-1", 2, 76, "get_height"),
            // Data from a node that does not parse is the node's fault, named (76; 65 before).
            (
                "epee=garbage", 2, 76,
                "to get_blocks_by_height.bin (node reply is malformed: not epee portable storage) is not what its RPC returns"
            ),
            ("epee=truncated", 2, 76, "to get_blocks_by_height.bin (node reply (epee) ends early (at byte 52))"),
            (
                "block=garbage", 2, 76,
                "sent chain data that does not check: block 0 is malformed: block ends early (at byte 3); use another node or server"
            ),
            ("txblob=bad", 2, 76, "to get_transaction_pool (transaction 0's tx_blob is not hex)"),
        ] {
            let (port, process) = try HostileMonerod.start(mode)
            defer { process.terminate(); process.waitUntilExit() }
            let start = Date()
            let r = try Shell.run(
                "timeout 120 scan-blocks --node 127.0.0.1:\(port) --timeout \(timeout) --birthday 0 --state-dir \(dir)/\(mode) --progress none",
                stdin: key)
            XCTAssertEqual(r.status, Int32(status), mode + r.stderr)
            XCTAssertTrue(r.stderr.contains(message), mode + r.stderr)
            XCTAssertTrue(r.stderr.contains("node at http://127.0.0.1:\(port)"), mode + r.stderr)
            XCTAssertEqual(r.out, "", mode)
            // Three calls of at most 2 s and the pauses between them; the capped answer at once.
            XCTAssertLessThan(Date().timeIntervalSince(start), mode == "endless" ? 90 : 20, mode)
        }
    }

    /// The fake's endless body goes on for a reader that pauses, as it would for a fast one:
    /// a reader that waits 7 s before reading still gets 64 MiB of it (a 5 s send timeout once
    /// ended the body early for a client slowed by a busy machine, and testHostileMonerod then
    /// saw a short reply instead of the size cap).
    func testHostileMonerodDoesNotDependOnTheReadersSpeed() throws {
        let (port, process) = try HostileMonerod.start("endless")
        defer { process.terminate(); process.waitUntilExit() }
        let r = try Shell.run(
            "exec 3<>/dev/tcp/127.0.0.1/\(port) && printf 'POST /get_height HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: 0\\r\\n\\r\\n' >&3 && sleep 7 && head -c 67108864 <&3 | wc -c"
        )
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.out, "67108864\n")
    }

    /// The same transaction twice on the chain, in one block or again in a later one, gave two
    /// "received" events for one note while the balance counted it once: now the batch fails,
    /// naming both places, and nothing of it is written.
    func testATransactionTwiceOnTheChain() throws {
        let w = try wallet()
        let key = Shell.lines([["mnemonic": w["mnemonic"]!]])
        let lines = try String(contentsOfFile: "\(fixture)/compact_blocks.jsonl", encoding: .utf8).split(separator: "\n").map(String.init)
        func block(_ line: String) throws -> [String: Any] {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        func text(_ object: [String: Any]) throws -> String {
            String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        }
        // Block 2,900,000's transaction 2 pays the wallet (the fixture's first note).
        var first = try block(lines[0])
        XCTAssertEqual(first["height"] as? Int, 2_900_000)
        let paying = try XCTUnwrap(
            (first["vtx"] as? [[String: Any]])?.first {
                $0["txid"] as? String == "b6236fa14f75264530482cfaf1754fd951065fb394459b84956fd8308310b024"
            })
        first["vtx"] = (first["vtx"] as! [[String: Any]]) + [paying]
        var twiceInOne = lines
        twiceInOne[0] = try text(first)
        var later = try block(lines[5])
        later["vtx"] = (later["vtx"] as! [[String: Any]]) + [paying]
        var again = lines
        again[5] = try text(later)
        // The tree sizes grown by the added outputs, so that only the repeat is wrong.
        func sized(_ chain: [String]) throws -> [String] {
            var size: Int?
            return try chain.map { line in
                var b = try block(line)
                let outputs = (b["vtx"] as! [[String: Any]]).reduce(0) { $0 + (($1["outputs"] as? [Any])?.count ?? 0) }
                var meta = try XCTUnwrap(b["chainMetadata"] as? [String: Any])
                let given = try XCTUnwrap(meta["saplingCommitmentTreeSize"] as? Int)
                size = (size ?? (given - outputs)) + outputs
                meta["saplingCommitmentTreeSize"] = size
                b["chainMetadata"] = meta
                return try text(b)
            }
        }
        XCTAssertEqual(
            try sized(lines).map(block).map { ($0["chainMetadata"] as? [String: Any])?["saplingCommitmentTreeSize"] as? Int },
            try lines.map(block).map { ($0["chainMetadata"] as? [String: Any])?["saplingCommitmentTreeSize"] as? Int })
        twiceInOne = try sized(twiceInOne)
        again = try sized(again)
        for (name, chain, places) in [
            ("one", twiceInOne, "twice in block 2900000"), ("later", again, "in block 2900000 and again in block 2900005"),
        ] {
            try (chain.joined(separator: "\n") + "\n").write(toFile: "\(dir)/\(name).jsonl", atomically: true, encoding: .utf8)
            let r = try Shell.run(
                "scan-blocks --chain zcash --blocks \(dir)/\(name).jsonl --birthday 2900000 --state-dir \(dir)/s-\(name) --progress none",
                stdin: key)
            XCTAssertEqual(r.status, 65, name + r.stderr)
            XCTAssertEqual(r.out, "", name)
            if name == "one" {
                // The transaction spends a Sapling note: twice in one block, its nullifier is
                // revealed twice, which the block's parse refuses before any scan.
                let nf = try XCTUnwrap(((paying["spends"] as? [[String: Any]])?.first)?["nf"] as? String)
                XCTAssertTrue(
                    r.stderr.hasPrefix(
                        "scan-blocks: scan.malformed: block 2900000 is malformed: compact block at height 2900000: the Sapling nullifier \(nf) is revealed twice in transaction 2: "
                    ), r.stderr)
                continue
            }
            XCTAssertTrue(
                r.stderr.contains("transaction b6236fa14f75264530482cfaf1754fd951065fb394459b84956fd8308310b024 is malformed"),
                name + r.stderr)
            XCTAssertTrue(r.stderr.contains(" is malformed: it is \(places); a transaction is in one block only"), name + r.stderr)
            // Both blocks are in the first batch of 50: nothing of it is written.
            XCTAssertEqual(r.out, "", name)
        }
    }

    /// A block whose Sapling tree size is one off placed the notes after it one leaf off: wrong
    /// nullifiers, a missed spend, a balance 9.8 ZEC too high with spends_known true. Each
    /// size is now checked against its parent's plus the block's outputs, in one run and
    /// across runs; a chainMetadata that is no object is an error, not "no sizes".
    func testTreeSizeContinuity() throws {
        let w = try wallet()
        let key = Shell.lines([["mnemonic": w["mnemonic"]!]])
        let lines = try String(contentsOfFile: "\(fixture)/compact_blocks.jsonl", encoding: .utf8).split(separator: "\n").map(String.init)
        func block(_ line: String) throws -> [String: Any] {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        func text(_ object: [String: Any]) throws -> String {
            String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        }
        func scan(_ chain: [String], _ name: String, extra: String = "") throws -> Shell.Result {
            try (chain.joined(separator: "\n") + "\n").write(toFile: "\(dir)/\(name).jsonl", atomically: true, encoding: .utf8)
            return try Shell.run(
                "scan-blocks --chain zcash --blocks \(dir)/\(name).jsonl --birthday 2900000 --state-dir \(dir)/s-\(name) --progress none \(extra)",
                stdin: key)
        }
        // Block 2,900,001 holds the note spent at 2,900,040 (the fixture's second note).
        let parent = try block(lines[0])
        var second = try block(lines[1])
        let parentSize = try XCTUnwrap((parent["chainMetadata"] as? [String: Any])?["saplingCommitmentTreeSize"] as? Int)
        var meta = try XCTUnwrap(second["chainMetadata"] as? [String: Any])
        let size = try XCTUnwrap(meta["saplingCommitmentTreeSize"] as? Int)
        let outputs = (second["vtx"] as! [[String: Any]]).reduce(0) { $0 + (($1["outputs"] as? [Any])?.count ?? 0) }
        XCTAssertEqual(size, parentSize + outputs)
        meta["saplingCommitmentTreeSize"] = size + 1
        second["chainMetadata"] = meta
        var offByOne = lines
        offByOne[1] = try text(second)
        let r = try scan(offByOne, "off")
        XCTAssertEqual(r.status, 65, r.stderr)
        XCTAssertTrue(
            r.stderr.contains(
                "block 2900001 is malformed: it says its Sapling note-commitment tree size is \(size + 1), but block 2900000 ended at \(parentSize) and this block adds \(outputs) outputs (\(size) expected)"
            ), r.stderr)
        XCTAssertEqual(r.out, "")
        // Across runs: the parent's size is kept in the state with its hash.
        let first = try scan(offByOne, "runs", extra: "--until-height 2900000")
        XCTAssertEqual(first.status, 0, first.stderr)
        let next = try scan(offByOne, "runs")
        XCTAssertEqual(next.status, 65, next.stderr)
        XCTAssertTrue(
            next.stderr.contains("block 2900001 is malformed: it says its Sapling note-commitment tree size is \(size + 1)"), next.stderr)
        // A block after one with sizes that gives none.
        second.removeValue(forKey: "chainMetadata")
        var none = lines
        none[1] = try text(second)
        let missing = try scan(none, "none")
        XCTAssertEqual(missing.status, 65, missing.stderr)
        XCTAssertTrue(
            missing.stderr.contains("block 2900001 is malformed: it gives no tree sizes, but block 2900000 ended at \(parentSize)"),
            missing.stderr)
        // chainMetadata as a string, a list, null.
        for (name, value) in [("string", "\"1330172\""), ("list", "[1330172]"), ("null", "null")] {
            var chain = lines
            chain[1] = chain[1].replacing(#/"chainMetadata": \{[^}]*\}/#, with: "\"chainMetadata\": \(value)")
            XCTAssertNotEqual(chain[1], lines[1], name)
            let bad = try scan(chain, name)
            XCTAssertEqual(bad.status, 65, name + bad.stderr)
            XCTAssertTrue(bad.stderr.contains("chainMetadata is not an object"), name + bad.stderr)
        }
        // The untouched chain still scans (its sizes are continuous).
        let good = try scan(lines, "good")
        XCTAssertEqual(good.status, 0, good.stderr)
        XCTAssertEqual(good.records.last?["spends_known"] as? Bool, true)
    }

    /// A full transaction whose note ciphertext fails its tag past the compact 52 bytes gave
    /// exit 0 with the memo silently missing: it does not match its compact form (65). Its id,
    /// recomputed, tells first (ZIP 244 covers the ciphertexts); the tag check stands behind it.
    func testMemoCiphertextThatFailsItsTag() throws {
        let w = try wallet()
        let key = Shell.lines([["mnemonic": w["mnemonic"]!]])
        let note = try XCTUnwrap(TestPaths.jsonLines(TestPaths.fixture("zcash-sapling/expected_notes.jsonl")).first)
        let txid = try XCTUnwrap(note["txid"] as? String)
        let output = try XCTUnwrap(note["outputIndex"] as? Int)
        // The compact ciphertext of the note's output, from its block: it starts the full one.
        let blocks = try TestPaths.jsonLines(TestPaths.fixture("zcash-sapling/compact_blocks.jsonl"))
        let tx = try XCTUnwrap(blocks.lazy.compactMap { ($0["vtx"] as? [[String: Any]])?.first { $0["txid"] as? String == txid } }.first)
        let compact = try XCTUnwrap((tx["outputs"] as? [[String: Any]])?[output]["ciphertext"] as? String)
        XCTAssertEqual(compact.count, 104)
        var lines = try String(contentsOfFile: "\(fixture)/transactions.jsonl", encoding: .utf8).split(separator: "\n").map(String.init)
        let victim = try XCTUnwrap(lines.firstIndex { $0.contains(txid) })
        var record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(lines[victim].utf8)) as? [String: Any])
        var raw = Array(try XCTUnwrap(record["raw_tx"] as? String))
        let start = try XCTUnwrap(String(raw).range(of: compact)).lowerBound.utf16Offset(in: String(raw))
        // Byte 300 of the 580: inside the memo, past what the compact block holds.
        let at = start + 2 * 300
        raw[at] = raw[at] == "0" ? "1" : "0"
        record["raw_tx"] = String(raw)
        lines[victim] = String(decoding: try JSONSerialization.data(withJSONObject: record), as: UTF8.self)
        try (lines.joined(separator: "\n") + "\n").write(toFile: "\(dir)/txs.jsonl", atomically: true, encoding: .utf8)
        let r = try Shell.run(
            "scan-blocks --chain zcash --blocks \(fixture)/compact_blocks.pb --txs \(dir)/txs.jsonl --birthday 2900000 --state-dir \(dir)/s --progress none",
            stdin: key)
        XCTAssertEqual(r.status, 65, r.stderr)
        XCTAssertTrue(
            r.stderr.hasPrefix(
                "scan-blocks: scan.malformed: block 2900000 is malformed: compact block at height 2900000: the full transaction given for \(txid) has the id "
            ), r.stderr)
        XCTAssertEqual(r.out, "")
    }

    /// A JSON record behind a byte-order mark, a no-break space or a zero-width space (what a
    /// copy from a web page or an editor leaves) is read as JSON, not as a phrase.
    func testJSONBehindInvisibleCharacters() throws {
        let about = TestPhrase.abandonAbout
        for prefix in ["\u{FEFF}", "\u{00A0}", "\u{200B}", " \u{FEFF}\u{00A0}"] {
            let line = prefix + #"{"mnemonic":"\#(about)","id":7}"# + "\n"
            let r = try Shell.run("derive --purpose 84", stdin: Data(line.utf8))
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(r.records.first?["address"] as? String, "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu")
            XCTAssertEqual(r.records.first?["id"] as? Int, 7, "the record's own fields pass through")
        }
    }

    /// keystore add refuses a zec seed that no key can come from (it stored it, then called
    /// the entry damaged).
    func testEmptyZcashSeedIsRefused() throws {
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: "\(dir)/pass", contents: Data("a long test passphrase\n".utf8), attributes: [.posixPermissions: 0o600]))
        let ks = "--keystore \(dir)/ks --keystore-pass-file \(dir)/pass --kdf interactive"
        for seed in ["", "00", String(repeating: "ab", count: 31)] {
            let r = try Shell.run("keystore add z \(ks)", stdin: Data(#"{"coin":"zec","seed":"\#(seed)"}"#.utf8 + [0x0A]))
            XCTAssertEqual(r.status, 65, seed + r.stderr)
            XCTAssertTrue(r.stderr.contains("a Zcash seed is 32 to 64 bytes"), r.stderr)
        }
        let list = try Shell.run("keystore list \(ks)")
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertEqual(list.records.filter { $0["name"] as? String == "z" }.count, 0, "nothing was stored")
        let good = try Shell.run(
            "keystore add z \(ks)", stdin: Data(#"{"coin":"zec","seed":"\#(String(repeating: "ab", count: 64))"}"#.utf8 + [0x0A]))
        XCTAssertEqual(good.status, 0, good.stderr)
    }

    /// A checksum-valid UIVK whose Sapling ivk is zero (ZcashTests.AbandonArtWalletTests builds
    /// it from the fixture's items): its every address would be the identity, readable by
    /// anyone and spendable by no one. derive, keystore and scan-blocks refuse it alike.
    func testZeroIncomingViewingKeyIsRefused() throws {
        let zero =
            "uivk1tlwuz4q3qrkpt8hethk83d6fqawdcrsy02zeqs355kdp8chatrnn6p2kq304ah2dtt0ejswpyjhaz74pcwgywmcqnr8nvsd20hrcjy2n5jh8nye0atzjhrnlkfc8azvxkscwecl2r9c6ztu7u2dpgpvgl23chz3xn4p2qy0rlf9rmc00fcanhmt7ssmm5e46f09etkjs65zyfjktannw0l8uq747ml482jqpktzp8qdfjjsltnpwl"
        let why =
            "the UIVK's Sapling ivk is zero: its every address would be the identity point, readable by anyone and spendable by no one"
        let record = Shell.lines([["uivk": zero]])
        let derived = try Shell.run("derive --coin zec", stdin: record)
        XCTAssertEqual(derived.status, 65, derived.stderr)
        XCTAssertEqual(derived.records.count, 1)
        XCTAssertEqual(derived.records.first?["code"] as? String, "zcash.invalid_encoding")
        XCTAssertEqual(derived.records.first?["message"] as? String, "invalid Zcash encoding: " + why)
        let scanned = try Shell.run(
            "scan-blocks --chain zcash --blocks \(fixture)/compact_blocks.pb --birthday 2900000 --state-dir \(dir)/s --progress none",
            stdin: record)
        XCTAssertEqual(scanned.status, 65, scanned.stderr)
        XCTAssertTrue(scanned.stderr.contains(why), scanned.stderr)
        XCTAssertEqual(scanned.out, "")
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: "\(dir)/pass", contents: Data("a long test passphrase\n".utf8), attributes: [.posixPermissions: 0o600]))
        let ks = "--keystore \(dir)/ks --keystore-pass-file \(dir)/pass --kdf interactive"
        let added = try Shell.run("keystore add z \(ks)", stdin: record)
        XCTAssertEqual(added.status, 65, added.stderr)
        XCTAssertTrue(added.stderr.contains(why), added.stderr)
        // The fixture's own UIVK, the same but for its ivk, is a key.
        let w = try wallet()
        let good = try Shell.run("derive --coin zec", stdin: Shell.lines([["uivk": (w["unified"] as? [String: Any])?["uivk"] as Any]]))
        XCTAssertEqual(good.status, 0, good.stderr)
    }
}
