import Foundation
import SatchelTestSupport
import XCTest

/// scan-blocks over the regtest fixture, as a cron job would run it.
final class ScanBlocksToolTests: XCTestCase {
    let fixture = TestPaths.fixture("monero-regtest").path
    var dir = ""
    var source: String { "--blocks \(fixture)/blocks.jsonl --txs \(fixture)/txs.jsonl --state-dir \(dir)/state --lookahead 3,20" }

    override func setUpWithError() throws {
        dir = try temporaryDirectory("scan")
    }

    private var keys: [String: Any] {
        (try! TestPaths.json(TestPaths.fixture("monero-regtest/expected.json")) as! [String: Any])["keys"] as! [String: Any]
    }

    /// Under umask 000 the state directory and its missing parents are made 0700; an
    /// existing state directory that others can enter is refused (64), nothing scanned.
    func testStateDirectoryModes() throws {
        let seed = Shell.lines([["mnemonic": keys["mnemonic"] as! String]])
        let made = try Shell.run(
            "umask 000; scan-blocks --blocks \(fixture)/blocks.jsonl --txs \(fixture)/txs.jsonl --state-dir \(dir)/x/y/state --lookahead 3,20 --birthday 0 --max-blocks 1",
            stdin: seed)
        XCTAssertEqual(made.status, 0, made.stderr)
        for sub in ["x", "x/y", "x/y/state"] {
            XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: "\(dir)/\(sub)")[.posixPermissions] as? Int, 0o700, sub)
        }
        try FileManager.default.createDirectory(
            atPath: "\(dir)/open", withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        let open = try Shell.run(
            "scan-blocks --blocks \(fixture)/blocks.jsonl --txs \(fixture)/txs.jsonl --state-dir \(dir)/open --lookahead 3,20 --birthday 0",
            stdin: seed)
        XCTAssertEqual(open.status, 64, open.stderr)
        XCTAssertTrue(open.stderr.contains("scan.insecure_state_directory"), open.stderr)
        XCTAssertEqual(open.out, "")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: "\(dir)/open"), [])
    }

    func testFromTheSeedBalancesMatchTheWallet() throws {
        let r = try Shell.run("scan-blocks \(source) --birthday 0", stdin: Shell.lines([["mnemonic": keys["mnemonic"]!]]))
        XCTAssertEqual(r.status, 0, r.stderr)
        let types = r.records.map { $0["type"] as? String ?? "" }
        XCTAssertEqual(types.filter { $0 == "received" }.count, 12)
        XCTAssertEqual(types.filter { $0 == "spent" }.count, 3)
        XCTAssertEqual(types.filter { $0 == "pending" }.count, 1)
        let balance = try XCTUnwrap(r.records.last)
        XCTAssertEqual(balance["type"] as? String, "balance")
        XCTAssertEqual(balance["total"] as? String, "73062521347943")
        XCTAssertEqual(balance["unlocked"] as? String, "37333784416518")
        XCTAssertFalse(r.out.contains(keys["mnemonic"] as! String))
        // The integrated-address payment carries its payment id and the right address.
        let integrated = r.records.first { $0["payment_id"] as? String == "0123456789abcdef" }
        XCTAssertEqual(integrated?["amount"] as? String, "123456789012")
        let mode = try FileManager.default.attributesOfItem(atPath: "\(dir)/state")[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o700)

        // A finished scan, run again: no new received or spent events, exit 0.
        let again = try Shell.run("scan-blocks \(source) --birthday 0", stdin: Shell.lines([["mnemonic": keys["mnemonic"]!]]))
        XCTAssertEqual(again.status, 0)
        XCTAssertEqual(again.records.map { $0["type"] as? String }, ["balance"])
        // --rescan starts over and reports everything again, with the same balance; the events
        // are new reports, so their ids go on from the first run's.
        let rescan = try Shell.run("scan-blocks \(source) --birthday 0 --rescan", stdin: Shell.lines([["mnemonic": keys["mnemonic"]!]]))
        XCTAssertEqual(rescan.status, 0, rescan.stderr)
        func withoutIDs(_ text: String) -> String {
            text.replacingOccurrences(of: #","event_id":[0-9]+"#, with: "", options: .regularExpression)
        }
        XCTAssertEqual(withoutIDs(rescan.out), withoutIDs(r.out))
        XCTAssertEqual(rescan.records.first?["event_id"] as? Int, 17)
        // The change of the wallet's own spends is marked and carries no payment id.
        let change = r.records.filter { $0["change"] as? Bool == true }
        XCTAssertEqual(change.count, 2)
        XCTAssertTrue(change.allSatisfy { $0["payment_id"] == nil })
    }

    /// The chain on stdin (blocks and transactions in one stream, here zstd-compressed), the
    /// key from --key-file: the same events as from the files.
    /// Many wallets in one pass: key-store entries (--wallet, repeated) and key records (--wallets);
    /// each wallet's events carry its name and equal what a scan of it alone reports.
    func testManyWalletsInOnePass() throws {
        // The regtest wallet R, view-only, and two wallets that own nothing on this chain.
        let viewOnly: [String: Any] = ["view_key": keys["private_view_key"]!, "public_spend_key": keys["public_spend_key"]!]
        let alone = try Shell.run("scan-blocks \(source) --birthday 0 --state-dir \(dir)/alone", stdin: Shell.lines([viewOnly]))
        XCTAssertEqual(alone.status, 0, alone.stderr)
        let other = try Shell.run("mnemonic generate --scheme monero")
        XCTAssertEqual(other.status, 0, other.stderr)
        let otherPhrase = try XCTUnwrap(other.records.first?["mnemonic"] as? String)
        let account = try Shell.run("derive account --coin xmr", stdin: Shell.lines([["mnemonic": otherPhrase]]))
        XCTAssertEqual(account.status, 0, account.stderr)
        let otherAddress = try XCTUnwrap(account.records.first?["primary_address"] as? String)

        try "correct horse battery\n".write(toFile: "\(dir)/pass", atomically: true, encoding: .utf8)
        chmod("\(dir)/pass", 0o600)
        let ks = "--keystore \(dir)/ks --keystore-pass-file \(dir)/pass"
        let add = try Shell.run("keystore add shop --kdf interactive --birthday xmr=0 \(ks)", stdin: Shell.lines([viewOnly]))
        XCTAssertEqual(add.status, 0, add.stderr)
        var list = "# wallets of this run\n"
        list += String(decoding: Shell.lines([["mnemonic": otherPhrase, "birthday": 0]]), as: UTF8.self)
        let third = try Shell.run("mnemonic generate --scheme monero")
        XCTAssertEqual(third.status, 0, third.stderr)
        list += String(
            decoding: Shell.lines([
                ["mnemonic": try XCTUnwrap(third.records.first?["mnemonic"] as? String), "name": "third", "birthday": 100]
            ]), as: UTF8.self)
        try list.write(toFile: "\(dir)/wallets", atomically: true, encoding: .utf8)
        chmod("\(dir)/wallets", 0o600)

        let r = try Shell.run("scan-blocks \(source) --wallet shop --wallets \(dir)/wallets \(ks)")
        XCTAssertEqual(r.status, 0, r.stderr)
        let records = r.records
        let shop = records.filter { $0["wallet"] as? String == "shop" }
        let mine = alone.records
        XCTAssertEqual(shop.count, mine.count)
        for (a, b) in zip(shop, mine) {
            var a = a
            a["wallet"] = nil
            XCTAssertEqual(NSDictionary(dictionary: a), NSDictionary(dictionary: b))
        }
        // The others own nothing here: a zero balance each, under their names.
        for name in [otherAddress, "third"] {
            let theirs = records.filter { $0["wallet"] as? String == name }
            XCTAssertEqual(theirs.map { $0["type"] as? String }, ["balance"], name)
            XCTAssertEqual(theirs.first?["total"] as? String, "0")
            XCTAssertEqual(theirs.first?["height"] as? Int, 163)
        }
        XCTAssertEqual(records.count, shop.count + 2, "no record without a wallet name")

        // A rerun reports nothing new; the same wallet twice is refused before anything runs.
        let again = try Shell.run("scan-blocks \(source) --wallet shop --wallets \(dir)/wallets \(ks)")
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(again.records.map { $0["type"] as? String }, ["balance", "balance", "balance"])
        let twice = try Shell.run("scan-blocks \(source) --wallet shop --wallet shop \(ks)")
        XCTAssertEqual(twice.status, 64, twice.stderr)
        XCTAssertTrue(twice.stderr.contains("scan.same_wallet_twice"), twice.stderr)
        XCTAssertEqual(twice.out, "")
        // Two wallets under one name: their records could not be told apart.
        try
            (list
            + String(
                decoding: Shell.lines([
                    [
                        "view_key": keys["private_view_key"]!, "public_spend_key": keys["public_spend_key"]!,
                        "name": "third", "birthday": 0,
                    ]
                ]), as: UTF8.self)).write(toFile: "\(dir)/same", atomically: true, encoding: .utf8)
        chmod("\(dir)/same", 0o600)
        let sameName = try Shell.run("scan-blocks \(source) --wallets \(dir)/same")
        XCTAssertEqual(sameName.status, 64, sameName.stderr)
        XCTAssertTrue(sameName.stderr.contains("scan.same_wallet_name"), sameName.stderr)
        XCTAssertEqual(sameName.out, "")
        // A bad line names its line.
        try "shop\n{\"view_key\": 12}\n".write(toFile: "\(dir)/bad", atomically: true, encoding: .utf8)
        chmod("\(dir)/bad", 0o600)
        let bad = try Shell.run("scan-blocks \(source) --wallets \(dir)/bad \(ks)")
        XCTAssertEqual(bad.status, 65, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("\(dir)/bad line 2"), bad.stderr)
        XCTAssertEqual(bad.out, "")
    }

    func testChainOnStdinWithKeyFile() throws {
        let viewOnly = Shell.lines([["view_key": keys["private_view_key"]!, "public_spend_key": keys["public_spend_key"]!]])
        try viewOnly.write(to: URL(fileURLWithPath: "\(dir)/key.json"))
        chmod("\(dir)/key.json", 0o600)
        let piped = try Shell.run(
            "cat \(fixture)/txs.jsonl \(fixture)/blocks.jsonl | zstd -q -c | scan-blocks --blocks - --key-file \(dir)/key.json --state-dir \(dir)/a --birthday 0 --lookahead 3,20"
        )
        let plain = try Shell.run("scan-blocks \(source) --birthday 0", stdin: viewOnly)
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertEqual(piped.out, plain.out)
        XCTAssertEqual(piped.records.filter { $0["type"] as? String == "received" }.count, 12)
        // Without a key source, stdin cannot carry both: a usage error.
        let noKey = try Shell.run("scan-blocks --blocks - --state-dir \(dir)/b --birthday 0 < \(fixture)/blocks.jsonl")
        XCTAssertEqual(noKey.status, 64)
        XCTAssertTrue(noKey.stderr.contains("--key-file"), noKey.stderr)
    }

    func testMissingPiecesAndLocks() throws {
        let viewOnly = Shell.lines([["view_key": keys["private_view_key"]!, "public_spend_key": keys["public_spend_key"]!]])
        let noBirthday = try Shell.run("scan-blocks \(source)", stdin: viewOnly)
        XCTAssertEqual(noBirthday.status, 64)
        XCTAssertTrue(noBirthday.stderr.contains("scan.no_birthday"))
        let noSource = try Shell.run("scan-blocks --birthday 0 --state-dir \(dir)/s", stdin: viewOnly)
        XCTAssertEqual(noSource.status, 64)
        XCTAssertTrue(noSource.stderr.contains("scan.no_source"), noSource.stderr)
        let noWallet = try Shell.run("scan-blocks \(source) --birthday 0 < /dev/null")
        XCTAssertEqual(noWallet.status, 64)
        XCTAssertTrue(noWallet.stderr.contains("scan.no_wallet"), noWallet.stderr)
        // Everything missing is said at once, not one run at a time.
        let nothing = try Shell.run("scan-blocks < /dev/null")
        XCTAssertEqual(nothing.status, 64)
        XCTAssertEqual(
            nothing.stderr,
            "scan-blocks: scan.missing: 3 things are missing: no wallet: give --wallet NAME, or a key record on stdin (view_key with public_spend_key, spend_key, or a Monero mnemonic); no birthday: give --birthday HEIGHT (the first block that can hold the wallet's outputs; 0 scans everything), or store one in the key-store entry; no block source: give --node HOST:PORT, or --blocks FILE (and --txs FILE)\n"
        )
        let twoMissing = try Shell.run("scan-blocks --state-dir \(dir)/s2", stdin: viewOnly)
        XCTAssertEqual(twoMissing.status, 64)
        XCTAssertEqual(
            twoMissing.stderr,
            "scan-blocks: scan.missing: 2 things are missing: no birthday: give --birthday HEIGHT (the first block that can hold the wallet's outputs; 0 scans everything), or store one in the key-store entry; no block source: give --node HOST:PORT, or --blocks FILE (and --txs FILE)\n"
        )
        // A held lock: the second run exits 75 at once.
        let first = try Shell.run("scan-blocks \(source) --birthday 0 --max-blocks 1", stdin: viewOnly)
        XCTAssertEqual(first.status, 0, first.stderr)
        let lock = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: "\(dir)/state").first { $0.hasSuffix(".lock") })
        try viewOnly.write(to: URL(fileURLWithPath: "\(dir)/keys.json"))
        let held = try Shell.run("flock -n \(dir)/state/\(lock) -c 'scan-blocks \(source) --birthday 0 < \(dir)/keys.json; echo status=$?'")
        XCTAssertTrue(held.out.contains("status=75"), held.out + held.stderr)
        // Bounded runs add up to the whole scan; view-only balances say spends are unknown.
        var received = 0
        for _ in 0..<4 {
            let r = try Shell.run("scan-blocks \(source) --birthday 0 --max-blocks 50 --progress jsonl", stdin: viewOnly)
            XCTAssertEqual(r.status, 0, r.stderr)
            received += r.records.filter { $0["type"] as? String == "received" }.count
            XCTAssertEqual(r.records.last?["type"] as? String, "balance")
            XCTAssertTrue(r.stderr.contains("\"type\":\"progress\""), r.stderr)
        }
        XCTAssertEqual(received, 12)
    }

    func testBadChainDataNamesTheBlock() throws {
        var lines = try String(contentsOfFile: "\(fixture)/blocks.jsonl", encoding: .utf8).split(separator: "\n").map(String.init)
        lines.swapAt(100, 101)
        try (lines.joined(separator: "\n") + "\n").write(toFile: "\(dir)/swapped.jsonl", atomically: true, encoding: .utf8)
        let viewOnly = Shell.lines([["view_key": keys["private_view_key"]!, "public_spend_key": keys["public_spend_key"]!]])
        let r = try Shell.run(
            "scan-blocks --blocks \(dir)/swapped.jsonl --txs \(fixture)/txs.jsonl --state-dir \(dir)/st --birthday 0", stdin: viewOnly)
        XCTAssertEqual(r.status, 65)
        XCTAssertTrue(r.stderr.contains("out of order"), r.stderr)
    }

    /// The same chain compressed with zstd gives the same events.
    func testZstdCompressedSources() throws {
        let viewOnly = Shell.lines([["view_key": keys["private_view_key"]!, "public_spend_key": keys["public_spend_key"]!]])
        XCTAssertEqual(try Shell.run("zstd -q -o \(dir)/b.jsonl.zst \(fixture)/blocks.jsonl").status, 0)
        XCTAssertEqual(try Shell.run("zstd -q -o \(dir)/t.jsonl.zst \(fixture)/txs.jsonl").status, 0)
        let packed = try Shell.run(
            "scan-blocks --blocks \(dir)/b.jsonl.zst --txs \(dir)/t.jsonl.zst --state-dir \(dir)/z --birthday 0 --lookahead 3,20",
            stdin: viewOnly)
        let plain = try Shell.run("scan-blocks \(source) --birthday 0", stdin: viewOnly)
        XCTAssertEqual(packed.status, 0, packed.stderr)
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertEqual(packed.records.filter { $0["type"] as? String == "received" }.count, 12)
        XCTAssertEqual(packed.out, plain.out)
        try Data([0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x01, 0x02]).write(to: URL(fileURLWithPath: "\(dir)/bad.jsonl.zst"))
        XCTAssertEqual(
            try Shell.run("scan-blocks --blocks \(dir)/bad.jsonl.zst --state-dir \(dir)/y --birthday 0", stdin: viewOnly).status, 65)
    }

    /// On a terminal, progress is a bar redrawn in place on stderr; stdout keeps only records.
    func testProgressBarOnATerminal() throws {
        let viewOnly = Shell.lines([["view_key": keys["private_view_key"]!, "public_spend_key": keys["public_spend_key"]!]])
        try viewOnly.write(to: URL(fileURLWithPath: "\(dir)/key.json"))
        chmod("\(dir)/key.json", 0o600)
        let r = try Shell.run(
            "script -qec 'scan-blocks \(source) --birthday 0 --key-file \(dir)/key.json > \(dir)/out.jsonl' /dev/null < /dev/null")
        XCTAssertEqual(r.status, 0, r.out + r.stderr)
        // Files are streamed, so their tip is not known ahead: the line counts blocks.
        XCTAssertTrue(r.out.hasSuffix("\rblock 163\r\n") || r.out.hasSuffix("\rblock 163\n"), r.out.debugDescription)
        XCTAssertTrue(r.out.contains("\rblock 50\rblock 100\rblock 150\rblock 163"), r.out.debugDescription)
        let records = try String(contentsOfFile: "\(dir)/out.jsonl", encoding: .utf8)
        XCTAssertFalse(records.contains("%"), "progress leaked into the records")
    }

    /// --version names the curve kernels in use: the best this CPU has (from /proc/cpuinfo),
    /// each path SATCHEL_SIMD forces, and a forced path the CPU lacks as such.
    func testVersionNamesTheCurveKernels() throws {
        let ifma = HostCPU.hasIFMA, avx2 = HostCPU.hasAVX2, best = HostCPU.bestCurveKernels
        func version(_ env: String) throws -> String {
            let r = try Shell.run("\(env) scan-blocks --version")
            XCTAssertEqual(r.status, 0, r.stderr)
            return r.out.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let plain = try version("")
        XCTAssertNotNil(plain.wholeMatch(of: /[0-9]+\.[0-9]+\.[0-9]+ \(curve kernels: [a-z0-9]+\)/), plain)
        XCTAssertTrue(plain.hasSuffix(" (curve kernels: \(best))"), plain)
        for (path, runs) in [("portable", true), ("avx2", avx2), ("ifma", ifma)] {
            let forced = try version("SATCHEL_SIMD=\(path)")
            XCTAssertTrue(
                forced.hasSuffix(
                    runs ? " (curve kernels: \(path))" : " (curve kernels: \(best); SATCHEL_SIMD names a path this CPU lacks)"), forced)
        }
        let unknown = try version("SATCHEL_SIMD=sse9")
        XCTAssertTrue(unknown.hasSuffix(" (curve kernels: \(best); SATCHEL_SIMD names a path this CPU lacks)"), unknown)
    }

    /// Every long option --help lists is in the man page (as mdoc's `Fl -name`).
    func testHelpAndManPage() throws {
        let help = try Shell.run("scan-blocks --help")
        XCTAssertEqual(help.status, 0)
        let man = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("man/scan-blocks.1"), encoding: .utf8)
        let options = Set(help.out.matches(of: /--([a-z][a-z0-9-]+)/).map { String($0.1) }).subtracting(["help", "version"])
        XCTAssertTrue(options.isSuperset(of: ["lightwalletd", "plaintext", "ca-file", "timeout", "node", "blocks"]), "\(options.sorted())")
        for option in options.sorted() {
            XCTAssertTrue(man.contains("Fl -\(option)"), "--\(option) is not in man/scan-blocks.1")
        }
    }

    /// Killed (SIGKILL) at random moments, then resumed until done, appending to one file as
    /// cron does (`>> payments.jsonl`): every event of a clean run comes out exactly once, in
    /// order. (The synchronizer reads back what a killed run wrote; on a pipe it cannot, and a
    /// repeat keeps its event_id — SynchronizerTests covers both.)
    func testKilledRunsResumeWithoutLosingOrRepeatingEvents() throws {
        let seed = Shell.lines([["mnemonic": keys["mnemonic"]!]])
        try seed.write(to: URL(fileURLWithPath: "\(dir)/seed.json"))
        let clean = try Shell.run("scan-blocks \(source) --birthday 0 --state-dir \(dir)/clean < \(dir)/seed.json")
        XCTAssertEqual(clean.status, 0, clean.stderr)
        let wanted = clean.lines.filter { !$0.contains("\"balance\"") }
        try assertKilledRunsResume(scanning: "--birthday 0", input: "< \(dir)/seed.json", wanted: wanted, delayStep: 37)
    }

    /// The same with two wallets in one pass: each wallet's events exactly once, in order.
    func testKilledManyWalletRunsLoseAndRepeatNothing() throws {
        let other = try Shell.run("mnemonic generate --scheme monero")
        XCTAssertEqual(other.status, 0, other.stderr)
        let stranger = try XCTUnwrap(other.records.first?["mnemonic"] as? String)
        try Shell.lines([["mnemonic": keys["mnemonic"]!, "name": "r", "birthday": 0], ["mnemonic": stranger, "name": "x", "birthday": 0]])
            .write(to: URL(fileURLWithPath: "\(dir)/wallets"))
        chmod("\(dir)/wallets", 0o600)
        let clean = try Shell.run("scan-blocks \(source) --wallets \(dir)/wallets --state-dir \(dir)/clean")
        XCTAssertEqual(clean.status, 0, clean.stderr)
        let wanted = clean.lines.filter { !$0.contains("\"balance\"") }
        XCTAssertEqual(wanted.count, 16)
        XCTAssertTrue(wanted.allSatisfy { $0.contains("\"wallet\":\"r\"") })
        try assertKilledRunsResume(scanning: "--wallets \(dir)/wallets", input: "", wanted: wanted, delayStep: 41)
    }

    /// Runs `scan-blocks … --max-blocks 60` ten times, each killed with -9 after a growing
    /// delay, appending to one file, then once to the end: the file must hold `wanted` (the
    /// clean run's events), each exactly once, with event ids in order.
    private func assertKilledRunsResume(
        scanning args: String, input: String, wanted: [String], delayStep: Int,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        var kills = 0
        for i in 0..<10 {
            let delay = String(format: "0.%03d", 30 + i * delayStep)
            let r = try Shell.run(
                "scan-blocks \(source) \(args) --state-dir \(dir)/killed --max-blocks 60 \(input) >> \(dir)/out.jsonl 2>/dev/null & p=$!; sleep \(delay); kill -9 $p 2>/dev/null && echo killed; wait $p; true"
            )
            if r.out.contains("killed") { kills += 1 }
        }
        XCTAssertEqual(
            try Shell.run("scan-blocks \(source) \(args) --state-dir \(dir)/killed \(input) >> \(dir)/out.jsonl").status, 0, file: file,
            line: line)
        let got = try String(contentsOfFile: "\(dir)/out.jsonl", encoding: .utf8).split(separator: "\n").map(String.init)
            .filter { !$0.contains("\"balance\"") }
        // Confirmations depend on where a run's batches ended, and a bounded run reports the
        // mempool payment at its end (so earlier than a whole scan): compare without them, as sets.
        func stable(_ line: String) -> String {
            line.replacingOccurrences(of: #","(confirmations|event_id)":[0-9]+"#, with: "", options: .regularExpression)
        }
        XCTAssertEqual(
            got.map(stable).sorted(), wanted.map(stable).sorted(), "an event was lost, repeated or changed", file: file, line: line)
        let ids = got.compactMap { line in line.range(of: #"(?<="event_id":)[0-9]+"#, options: .regularExpression).flatMap { Int(line[$0]) }
        }
        XCTAssertEqual(ids, Array(1...wanted.count), "event ids in order, none twice", file: file, line: line)
        XCTAssertGreaterThan(kills, 0, "no run was killed", file: file, line: line)
    }

    /// A state written by 0.5.0 (Monero's column names, up to height 140) is opened by this
    /// release and scanned on: the spends at 146 are found through the renamed spend-tag
    /// column, and what follows is what a scan from scratch reports after height 140 (the
    /// pending payment was reported by the 0.5.0 run, so it is not again); ids go on from 10.
    /// (ScanStateMigrationTests holds the migrated rows to the old ones.)
    func testAStateWrittenBy050ScansOn() throws {
        let name = "monero-mainnet-e02b404b540f3d11eb9017ee.sqlite"
        let old = TestPaths.projectFixture("state-0.5.0/" + name)
        let sum = try Shell.run("sha256sum \(old.path)")
        XCTAssertEqual(sum.status, 0)
        XCTAssertEqual(sum.out.prefix(64), "95516b3d3a41bcaa834f01536d2262335fdac6dabcbc4304906792ce5923ac58")
        try FileManager.default.createDirectory(
            atPath: "\(dir)/state", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.copyItem(atPath: old.path, toPath: "\(dir)/state/\(name)")
        let seed = Shell.lines([["mnemonic": keys["mnemonic"]!]])
        let on = try Shell.run("scan-blocks \(source) --birthday 0", stdin: seed)
        XCTAssertEqual(on.status, 0, on.stderr)
        XCTAssertEqual(on.stderr, "")
        try FileManager.default.moveItem(atPath: "\(dir)/state", toPath: "\(dir)/migrated")
        let fresh = try Shell.run("scan-blocks \(source) --birthday 0", stdin: seed)
        XCTAssertEqual(fresh.status, 0, fresh.stderr)
        // Confirmations count from the end of the batch an event was found in, and the two
        // runs' batches start at different heights.
        func withoutID(_ r: [String: Any]) -> NSDictionary {
            var r = r
            r["event_id"] = nil
            r["confirmations"] = nil
            return r as NSDictionary
        }
        let expected = fresh.records.filter { ($0["height"] as? Int ?? 0) > 140 && $0["type"] as? String != "pending" }
        XCTAssertEqual(expected.map { $0["type"] as! String }, ["spent", "spent", "received", "spent", "received", "received", "balance"])
        XCTAssertEqual(on.records.map(withoutID), expected.map(withoutID))
        XCTAssertEqual(on.records.compactMap { $0["event_id"] as? Int }, Array(11...16))
    }
}
