import Foundation
import SatchelTestSupport
import XCTest

/// `scan-blocks --chain zcash --lightwalletd` against scripts/fake-lightwalletd.py (whose answers
/// FakeLightwalletdTests hold to the fixture's .pb stream, byte for byte): the same events as
/// scanning the file, through dropped and stalled streams, a reorg between runs, and TLS.
final class ZcashLightwalletdScanTests: XCTestCase {
    var dir = ""
    let fixture = TestPaths.fixture("zcash-sapling").path

    override func setUpWithError() throws {
        dir = try temporaryDirectory("lwdscan")
    }

    private func key() throws -> Data {
        let w = try XCTUnwrap(TestPaths.json(TestPaths.fixture("zcash-sapling/wallet.json")) as? [String: Any])
        return Shell.lines([["mnemonic": w["mnemonic"]!]])
    }

    private func scan(_ source: String, state: String, _ extra: String = "") throws -> Shell.Result {
        try Shell.run(
            "scan-blocks --chain zcash \(source) --birthday 2900000 --state-dir \(dir)/\(state) --progress none \(extra)", stdin: try key())
    }

    /// What scanning the fixture's .pb file writes: the reference for every live run here.
    private func fromFile() throws -> [String] {
        let r = try scan("--blocks \(fixture)/compact_blocks.pb", state: "file")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.records.filter { $0["type"] as? String == "received" }.count, 14)
        XCTAssertEqual(r.records.filter { $0["type"] as? String == "spent" }.count, 2)
        return r.lines
    }

    func testSameEventsAsTheFile() throws {
        let want = try fromFile()
        let server = try FakeLightwalletd(blocks: "\(fixture)/compact_blocks.jsonl")
        let r = try scan("--lightwalletd 127.0.0.1:\(server.port) --plaintext", state: "live")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.lines, want)
        // A second run finds nothing new: the state is resumed, not rescanned.
        let again = try scan("--lightwalletd localhost:\(server.port) --plaintext", state: "live")
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(again.records.map { $0["type"] as? String }, ["balance"])
        XCTAssertEqual(again.lines.last, want.last)
    }

    /// A GetLatestBlock answer that is no BlockID was tried again for 7 s (69), and an empty one
    /// was read as tip 0 (exit 0, nothing scanned): both are not lightwalletd's, 76 at once.
    func testGetLatestBlockThatIsNoBlockID() throws {
        for (mode, message) in [("garbage", "GetLatestBlock: the answer is not a BlockID"), ("empty", "GetLatestBlock: an empty BlockID")] {
            let server = try FakeLightwalletd(blocks: "\(fixture)/compact_blocks.jsonl", ["--bad-latest", mode])
            let start = Date()
            let r = try scan("--lightwalletd 127.0.0.1:\(server.port) --plaintext", state: "bad-\(mode)")
            XCTAssertEqual(r.status, 76, mode + r.stderr)
            XCTAssertTrue(r.stderr.contains(message), mode + r.stderr)
            XCTAssertEqual(r.out, "", mode)
            XCTAssertLessThan(Date().timeIntervalSince(start), 5, "\(mode): not tried again")
        }
    }

    /// A server whose chain is another on every call (each self-consistent) made a --follow
    /// run go back to the birthday at each new block and re-report the same notes forever: the
    /// reorgs one run follows are bounded (10), then it stops with 76.
    func testAServerThatNeverServesTheSameChainTwice() throws {
        let server = try FakeLightwalletd(
            blocks: "\(fixture)/compact_blocks.jsonl", ["--rehash", "--tip", "2900020", "--grow-per-call", "1"])
        let r = try Shell.run(
            "timeout 120 scan-blocks --chain zcash --lightwalletd 127.0.0.1:\(server.port) --plaintext --follow --interval 0.2 --birthday 2900000 --state-dir \(dir)/rehash --progress none",
            stdin: try key())
        XCTAssertEqual(r.status, 76, r.stderr)
        XCTAssertTrue(r.stderr.contains("scan.reorg_limit: the source's chain changed again at block "), r.stderr)
        XCTAssertTrue(r.stderr.contains(" after 10 reorgs in this run (at most 10 are followed)"), r.stderr)
        let reorgs = r.records.filter { $0["type"] as? String == "reorg" }
        XCTAssertEqual(reorgs.count, 10)
        XCTAssertEqual(Set(reorgs.map { $0["fork_height"] as? Int }), [2_899_999])
    }

    /// A stream dropped after 7 blocks, and one that stops sending after 3, are resumed from
    /// the first block not received: the events are the file's, each once.
    func testDroppedAndStalledStreamsResume() throws {
        let want = try fromFile()
        let dropping = try FakeLightwalletd(blocks: "\(fixture)/compact_blocks.jsonl", ["--drop-after", "7"])
        let dropped = try scan("--lightwalletd 127.0.0.1:\(dropping.port) --plaintext", state: "drop")
        XCTAssertEqual(dropped.status, 0, dropped.stderr)
        XCTAssertEqual(dropped.lines, want)
        let stalling = try FakeLightwalletd(blocks: "\(fixture)/compact_blocks.jsonl", ["--stall-after", "3"])
        let stalled = try scan("--lightwalletd 127.0.0.1:\(stalling.port) --plaintext --timeout 1", state: "stall")
        XCTAssertEqual(stalled.status, 0, stalled.stderr)
        XCTAssertEqual(stalled.lines, want)
    }

    /// A server that drops every stream after 2 blocks: after the retries the run ends with 69
    /// and says why; the next run, against a sound server, goes on and the two together wrote
    /// exactly the file's events.
    func testGivesUpWith69AndTheNextRunGoesOn() throws {
        let want = try fromFile()
        let flaky = try FakeLightwalletd(blocks: "\(fixture)/compact_blocks.jsonl", ["--drop-after", "2", "--always"])
        let first = try scan("--lightwalletd 127.0.0.1:\(flaky.port) --plaintext", state: "s", ">> \(dir)/events.jsonl")
        XCTAssertEqual(first.status, 69, first.stderr)
        XCTAssertTrue(first.stderr.contains("source.unavailable"), first.stderr)
        XCTAssertTrue(first.stderr.contains("dropped on purpose"), first.stderr)
        flaky.stop()
        let sound = try FakeLightwalletd(blocks: "\(fixture)/compact_blocks.jsonl")
        let second = try scan("--lightwalletd 127.0.0.1:\(sound.port) --plaintext", state: "s", ">> \(dir)/events.jsonl")
        XCTAssertEqual(second.status, 0, second.stderr)
        let written = try String(contentsOfFile: "\(dir)/events.jsonl", encoding: .utf8).split(separator: "\n").map(String.init)
        let kept = { (lines: [String]) in lines.filter { !$0.contains(#""type":"balance""#) } }
        XCTAssertEqual(kept(written), kept(want))
        XCTAssertEqual(written.last, want.last)
    }

    /// Nothing listening: 69 after the retries, and no event.
    func testNoServerIs69() throws {
        let gone = try FakeLightwalletd(blocks: "\(fixture)/compact_blocks.jsonl")
        let port = gone.port
        gone.stop()
        let r = try scan("--lightwalletd 127.0.0.1:\(port) --plaintext --timeout 1", state: "s")
        XCTAssertEqual(r.status, 69, r.stderr)
        XCTAssertEqual(r.out, "")
        XCTAssertTrue(r.stderr.contains("the lightwalletd at 127.0.0.1:\(port) does not answer"), r.stderr)
    }

    /// The server's chain replaced from block 2,900,030 between two runs: the second run finds
    /// the stored tip is not the new branch's, rolls back to 2,900,029 and scans the new branch.
    func testReorgBetweenRuns() throws {
        let first = try FakeLightwalletd(blocks: "\(fixture)/compact_blocks.jsonl")
        let before = try scan("--lightwalletd 127.0.0.1:\(first.port) --plaintext --until-height 2900039", state: "s")
        XCTAssertEqual(before.status, 0, before.stderr)
        first.stop()
        try writeZcashFork(of: "\(fixture)/compact_blocks.jsonl", from: 2_900_030, to: "\(dir)/fork.jsonl")
        let forked = try FakeLightwalletd(blocks: "\(dir)/fork.jsonl")
        let after = try scan("--lightwalletd 127.0.0.1:\(forked.port) --plaintext", state: "s")
        XCTAssertEqual(after.status, 0, after.stderr)
        let reorg = try XCTUnwrap(after.records.first { $0["type"] as? String == "reorg" }, after.out)
        XCTAssertEqual(reorg["fork_height"] as? Int, 2_900_029)
        let undone = before.records.filter { $0["type"] as? String == "received" && ($0["height"] as? Int ?? 0) >= 2_900_030 }
        XCTAssertGreaterThan(undone.count, 0)
        XCTAssertEqual(reorg["undone_outputs"] as? Int, undone.count)
        XCTAssertEqual(after.lines.last, try fromFile().last)  // the same balance in the end
    }

    /// TLS is the default: a certificate the system does not trust is refused (69), as is a
    /// plaintext server; with the certificate given by --ca-file the scan is the file's. A TLS
    /// server asked in plaintext does not answer either.
    func testTLSByDefault() throws {
        let want = try fromFile()
        let cert = "\(dir)/lwd.pem", key = "\(dir)/lwd.key"
        let made = try Shell.run(
            "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=localhost "
                + "-addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout \(key) -out \(cert)")
        XCTAssertEqual(made.status, 0, made.stderr)
        let tls = try FakeLightwalletd(blocks: "\(fixture)/compact_blocks.jsonl", ["--cert", cert, "--key", key])
        let trusted = try scan("--lightwalletd 127.0.0.1:\(tls.port) --ca-file \(cert)", state: "tls")
        XCTAssertEqual(trusted.status, 0, trusted.stderr)
        XCTAssertEqual(trusted.lines, want)
        let byName = try scan("--lightwalletd localhost:\(tls.port) --ca-file \(cert)", state: "tls-name")
        XCTAssertEqual(byName.status, 0, byName.stderr)
        XCTAssertEqual(byName.lines, want)
        let untrusted = try scan("--lightwalletd 127.0.0.1:\(tls.port)", state: "untrusted")
        XCTAssertEqual(untrusted.status, 69, untrusted.stderr)
        XCTAssertEqual(untrusted.out, "")
        XCTAssertTrue(untrusted.stderr.contains("source.tls") && untrusted.stderr.contains("CERTIFICATE_VERIFY_FAILED"), untrusted.stderr)
        let plainAsk = try scan("--lightwalletd 127.0.0.1:\(tls.port) --plaintext --timeout 1", state: "plain-ask")
        XCTAssertEqual(plainAsk.status, 69, plainAsk.stderr)
        XCTAssertEqual(plainAsk.out, "")
        let plain = try FakeLightwalletd(blocks: "\(fixture)/compact_blocks.jsonl")
        let tlsAsk = try scan("--lightwalletd 127.0.0.1:\(plain.port) --ca-file \(cert)", state: "tls-ask")
        XCTAssertEqual(tlsAsk.status, 69, tlsAsk.stderr)
        XCTAssertEqual(tlsAsk.out, "")
        XCTAssertTrue(tlsAsk.stderr.contains("source.tls") && tlsAsk.stderr.contains("WRONG_VERSION_NUMBER"), tlsAsk.stderr)
        // A trusted certificate for another name: 69 at once (it was retried for 7 s).
        let otherCert = "\(dir)/other.pem", otherKey = "\(dir)/other.key"
        let other = try Shell.run(
            "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=other.example "
                + "-addext subjectAltName=DNS:other.example -keyout \(otherKey) -out \(otherCert)")
        XCTAssertEqual(other.status, 0, other.stderr)
        let elsewhere = try FakeLightwalletd(blocks: "\(fixture)/compact_blocks.jsonl", ["--cert", otherCert, "--key", otherKey])
        let start = Date()
        let mismatch = try scan("--lightwalletd 127.0.0.1:\(elsewhere.port) --ca-file \(otherCert)", state: "mismatch")
        XCTAssertEqual(mismatch.status, 69, mismatch.stderr)
        XCTAssertEqual(mismatch.out, "")
        XCTAssertTrue(
            mismatch.stderr.contains(
                "source.tls: no TLS connection to the lightwalletd at 127.0.0.1:\(elsewhere.port) (its certificate, though trusted, is not for this name or address)"
            ), mismatch.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(start), 4, "not retried")
        // A --ca-file that is not PEM is named, not the address (it was "not a lightwalletd address").
        try "not a certificate\n".write(toFile: "\(dir)/notpem", atomically: true, encoding: .utf8)
        let notPEM = try scan("--lightwalletd 127.0.0.1:\(tls.port) --ca-file \(dir)/notpem", state: "notpem")
        XCTAssertEqual(notPEM.status, 65, notPEM.stderr)
        XCTAssertTrue(notPEM.stderr.contains("source.trust_roots: \(dir)/notpem holds no PEM certificate"), notPEM.stderr)
    }

    /// Usage errors (64) before any connection: plaintext off loopback, bad addresses, options
    /// of the other chain or source.
    func testUsageErrors() throws {
        let cases: [(String, String)] = [
            ("--lightwalletd 192.0.2.1:9067 --plaintext", "source.plaintext_off_loopback"),
            ("--lightwalletd lwd.example.org:9067 --plaintext", "source.plaintext_off_loopback"),
            ("--lightwalletd 127.0.0.1", "source.bad_address"),
            ("--lightwalletd 127.0.0.1:0", "source.bad_address"),
            ("--lightwalletd ::1:9067", "source.bad_address"),
            ("--lightwalletd 127.0.0.1:9067 --blocks \(fixture)/compact_blocks.pb", "--blocks or --lightwalletd"),
            ("--lightwalletd 127.0.0.1:9067 --txs \(fixture)/transactions.jsonl", "--txs goes with --blocks"),
            ("--lightwalletd 127.0.0.1:9067 --plaintext --ca-file /dev/null", "not both"),
            ("--blocks \(fixture)/compact_blocks.pb --plaintext", "go with --lightwalletd"),
            ("--lightwalletd 127.0.0.1:9067 --timeout 0", "--timeout must be"),
        ]
        for (options, says) in cases {
            let r = try scan(options, state: "u")
            XCTAssertEqual(r.status, 64, options)
            XCTAssertTrue(r.stderr.contains(says), "\(options): \(r.stderr)")
            XCTAssertEqual(r.out.contains(#""type":"received""#), false, options)
        }
        let monero = try Shell.run("scan-blocks --lightwalletd 127.0.0.1:9067 --state-dir \(dir)/m --progress none", stdin: Data())
        XCTAssertEqual(monero.status, 64)
        XCTAssertTrue(monero.stderr.contains("--lightwalletd is Zcash's"), monero.stderr)
    }
}

extension ZcashLightwalletdScanTests {
    /// --follow on a chain that grows a block every 0.2 s from 2,900,020: the run keeps polling
    /// and, once the chain has grown to its end, has written the file's events, each once (with
    /// the confirmations each had when it was written).
    func testFollowsAGrowingChain() throws {
        let unconfirmed = { (line: String) in
            line.replacingOccurrences(of: #""confirmations":[0-9]+,"#, with: "", options: .regularExpression)
        }
        let want = try fromFile().filter { !$0.contains(#""type":"balance""#) }.map(unconfirmed)
        let server = try FakeLightwalletd(blocks: "\(fixture)/compact_blocks.jsonl", ["--tip", "2900020", "--grow-per-call", "2"])
        try key().write(to: URL(fileURLWithPath: "\(dir)/key.json"))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: "\(dir)/key.json")
        let r = try Shell.run(
            "timeout 20 scan-blocks --chain zcash --lightwalletd 127.0.0.1:\(server.port) --plaintext --follow --interval 0.3 "
                + "--birthday 2900000 --state-dir \(dir)/s --progress none --key-file \(dir)/key.json")
        XCTAssertEqual(r.status, 124, r.stderr)  // still following when timeout ended it
        let events = r.lines.filter { !$0.contains(#""type":"balance""#) }
        XCTAssertEqual(events.map(unconfirmed), want)
        // Block 2,900,000's note was written before the chain had grown to its end (50 deep).
        let first = try XCTUnwrap(r.records.first?["confirmations"] as? Int)
        XCTAssertTrue((21..<50).contains(first), "\(first)")
        // Balances came as the chain grew, not once at the end.
        XCTAssertGreaterThan(r.lines.count - events.count, 1)
    }
}

extension ZcashLightwalletdScanTests {
    /// Real mainnet blocks (the recorded 663,150–665,000 and the sandblasted 1,735,000, a block
    /// of 250 kB) served over gRPC: scanned to the tip with no error and no false positive.
    func testRealBlocksOverGRPC() throws {
        let sample = TestPaths.fixture("zcash-mainnet-sample").path
        for (file, birthday, tip) in [
            ("mainnet_663150-665000.compact.pb", 663_150, 665_001), ("mainnet_1735000_sandblasted.compact.pb", 1_735_000, 1_735_001),
        ] {
            let server = try FakeLightwalletd(blocks: "\(sample)/\(file)")
            let r = try Shell.run(
                "scan-blocks --chain zcash --lightwalletd 127.0.0.1:\(server.port) --plaintext --birthday \(birthday) "
                    + "--state-dir \(dir)/\(birthday) --progress none", stdin: try key())
            XCTAssertEqual(r.status, 0, "\(file): \(r.stderr)")
            XCTAssertEqual(r.records.map { $0["type"] as? String }, ["balance"], file)
            XCTAssertEqual(r.records.first?["total"] as? String, "0", file)
            XCTAssertEqual(r.records.first?["height"] as? Int, tip, file)
        }
    }
}

extension ZcashLightwalletdScanTests {
    /// The server's chain ends at 2,900,029 once it has given its tip (lightwalletd rolls its
    /// cache back on a reorg): the batch ends there, not in an error, and the events are the
    /// file's up to that height.
    func testAChainThatBecomesShorterMidRun() throws {
        let want = try scan("--blocks \(fixture)/compact_blocks.pb --until-height 2900029", state: "file")
        XCTAssertEqual(want.status, 0, want.stderr)
        let server = try FakeLightwalletd(blocks: "\(fixture)/compact_blocks.jsonl", ["--shrink-to", "2900029"])
        let r = try scan("--lightwalletd 127.0.0.1:\(server.port) --plaintext", state: "s")
        XCTAssertEqual(r.status, 0, r.stderr)
        let unconfirmed = { (line: String) in
            line.replacingOccurrences(of: #""confirmations":[0-9]+,"#, with: "", options: .regularExpression)
        }
        XCTAssertEqual(r.lines.map(unconfirmed), want.lines.map(unconfirmed))
        XCTAssertEqual(r.records.last?["height"] as? Int, 2_900_030)
    }
}

extension ZcashLightwalletdScanTests {
    /// Answers that are not lightwalletd's end the run with 76 at once, nothing scanned: a
    /// stream that leaves a block out, and a server without GetBlockRange (UNIMPLEMENTED).
    func testAnswersThatAreNotLightwalletdsAre76() throws {
        let gap = try FakeLightwalletd(blocks: "\(fixture)/compact_blocks.jsonl", ["--skip", "2900007"])
        let skipped = try scan("--lightwalletd 127.0.0.1:\(gap.port) --plaintext", state: "gap")
        XCTAssertEqual(skipped.status, 76, skipped.stderr)
        XCTAssertEqual(skipped.out, "")
        XCTAssertTrue(
            skipped.stderr.contains("source.bad_reply") && skipped.stderr.contains("block 2900008 where 2900007 was due"), skipped.stderr)
        let other = try FakeLightwalletd(
            blocks: "\(fixture)/compact_blocks.jsonl", ["--without", "GetBlockRange", "--log", "\(dir)/calls"])
        let refused = try scan("--lightwalletd 127.0.0.1:\(other.port) --plaintext", state: "other")
        XCTAssertEqual(refused.status, 76, refused.stderr)
        XCTAssertEqual(refused.out, "")
        XCTAssertTrue(refused.stderr.contains("source.refused") && refused.stderr.contains("unimplemented"), refused.stderr)
        // Asked once, not tried again.
        XCTAssertEqual(try String(contentsOfFile: "\(dir)/calls", encoding: .utf8), "GetLatestBlock\nGetBlockRange []\n")
    }
}

extension ZcashLightwalletdScanTests {
    /// The Orchard fixture (16 Orchard and 2 Sapling notes) over a server that filters pools as
    /// lightwalletd does: the same events as the file. Asking for [SAPLING], as Satchel did,
    /// got every Orchard action cut away (FakeLightwalletdTests shows the filter); the empty
    /// list it sends now is logged by the fake.
    func testOrchardNotesOverLightwalletd() throws {
        let orchard = TestPaths.fixture("zcash-orchard").path
        let wallet = try XCTUnwrap(TestPaths.json(TestPaths.fixture("zcash-orchard/wallet.json")) as? [String: Any])
        let key = Shell.lines([["mnemonic": wallet["mnemonic"]!]])
        let file = try Shell.run(
            "scan-blocks --chain zcash --blocks \(orchard)/compact_blocks.pb --birthday 2950000 --state-dir \(dir)/file --progress none",
            stdin: key)
        XCTAssertEqual(file.status, 0, file.stderr)
        let received = file.records.filter { $0["type"] as? String == "received" }
        XCTAssertEqual(received.filter { $0["pool"] as? String == "orchard" }.count, 16)
        let server = try FakeLightwalletd(blocks: "\(orchard)/compact_blocks.jsonl", ["--log", "\(dir)/calls"])
        let live = try Shell.run(
            "scan-blocks --chain zcash --lightwalletd 127.0.0.1:\(server.port) --plaintext --birthday 2950000 --state-dir \(dir)/live --progress none",
            stdin: key)
        XCTAssertEqual(live.status, 0, live.stderr)
        XCTAssertEqual(live.lines, file.lines)
        let calls = try String(contentsOfFile: "\(dir)/calls", encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(Set(calls.filter { $0.hasPrefix("GetBlockRange") }), ["GetBlockRange []"])
    }
}
