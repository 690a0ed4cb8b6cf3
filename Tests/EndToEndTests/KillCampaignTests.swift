import Foundation
import SatchelTestSupport
import XCTest

/// kill -9 campaigns (docs/RELIABILITY.md): 100 kills at random moments each, checked after
/// every kill, each round that ends compared with an uninterrupted run. The live-node
/// campaigns are beside their nodes, in MoneroLiveNodeTests and LitecoinLiveNodeTests.
final class KillCampaignTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = URL(fileURLWithPath: try temporaryDirectory("kill"))
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: dir.path)
    }

    func write(_ name: String, _ text: String, mode: Int = 0o600) throws {
        try text.write(to: dir.appendingPathComponent(name), atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: dir.appendingPathComponent(name).path)
    }

    /// Seconds an uninterrupted `command` takes (the campaign's window is a little more).
    func timed(_ command: String) throws -> Double {
        let start = Date()
        let r = try Shell.run(command, cwd: dir)
        XCTAssertEqual(r.status, 0, command + ": " + r.stderr)
        return Date().timeIntervalSince(start)
    }

    /// scan-blocks from files into a file: after every kill the output holds whole lines only;
    /// every round that ends holds the uninterrupted run's events, each once, ids in order.
    func testScanFromFilesKilled100Times() throws {
        try KillCampaign.writeCheckers(to: dir)
        let fixture = TestPaths.fixture("monero-regtest").path
        let keys = (try TestPaths.json(TestPaths.fixture("monero-regtest/expected.json")) as! [String: Any])["keys"] as! [String: Any]
        try write("key.json", String(decoding: Shell.lines([["mnemonic": keys["mnemonic"]!]]), as: UTF8.self))
        let scan = "scan-blocks --blocks \(fixture)/blocks.jsonl --txs \(fixture)/txs.jsonl --lookahead 3,20 --birthday 0 --progress none"
        let seconds = try timed("\(scan) --state-dir clean < key.json > clean.jsonl")
        let campaign = KillCampaign.scan("\(scan) < key.json", wanted: "clean.jsonl", window: seconds * 1.2)
        try assertCampaign(campaign, in: dir, "scan-blocks from files")
        // The round the last kill left: resumed to its end, it too holds every event once.
        XCTAssertEqual(
            try Shell.run("\(scan) --state-dir st < key.json >> out.jsonl && python3 same-events.py out.jsonl clean.jsonl", cwd: dir)
                .status, 0)
    }

    /// keystore passwd rewrites an entry: after every kill the store holds the entry whole
    /// (listed, its header and metadata read) and besides it at most the killed writer's
    /// temporary; a passwd that ends leaves no temporary (it removes a dead writer's). The entry
    /// file's inode tells whether the new passphrase took: the next run must open the entry with
    /// it, or exit 77 and fail the campaign, so every kill is checked by the open that follows,
    /// and every tenth kill and every round's end by an export too.
    func testKeyStoreWritesKilled100Times() throws {
        let phrase = TestPhrase.legalWinner
        try write("a", "first passphrase\n")
        try write("b", "second passphrase\n")
        let add = try Shell.run(
            "keystore add main --keystore ks --keystore-pass-file a --kdf interactive", stdin: Shell.lines([["mnemonic": phrase]]), cwd: dir
        )
        XCTAssertEqual(add.status, 0, add.stderr)
        let files = try Shell.run("ls -A ks", cwd: dir).out.split(separator: "\n").joined(separator: " ")
        XCTAssertEqual(files, ".lock main.key")
        // cur and next hold the two passphrases (copies: a passphrase file may not be a
        // symbolic link); when a passwd has replaced the entry they swap.
        XCTAssertEqual(try Shell.run("cp -p a cur && cp -p b next", cwd: dir).status, 0)
        try write(
            "check.sh",
            """
            set -u
            ino=$(stat -c %i ks/main.key) || exit 1
            if [ "$ino" != "$(cat inode)" ]; then mv cur swap && mv next cur && mv swap next && echo "$ino" > inode; fi
            others=$(ls -A ks | grep -v -x -e .lock -e main.key -e '[.]main[.]key[.]tmp-[0-9]*-[0-9]*' || true)
            [ -z "$others" ] || { echo "files: $(ls -A ks)"; exit 1; }
            [ "$(keystore list --keystore ks 2>&1)" = "$(cat listed)" ] || { echo "listed: $(keystore list --keystore ks 2>&1)"; exit 1; }
            if [ "$1" = ended ]; then [ "$(ls -A ks | tr '\\n' ' ')" = "\(files) " ] || { echo "after a whole run: $(ls -A ks)"; exit 1; }; fi
            if [ "$1" = ended ] || [ $(($1 % 10)) -eq 0 ]; then
              keystore export main --keystore ks --keystore-pass-file cur 2>&1 | grep -q '"mnemonic":"\(phrase)"' || { echo "the entry does not open"; exit 1; }
            fi
            """, mode: 0o700)
        XCTAssertEqual(try Shell.run("keystore list --keystore ks > listed", cwd: dir).status, 0)
        // One run's time, after a first run that warms the caches.
        _ = try timed("keystore passwd main --keystore ks --kdf interactive --keystore-pass-file a --new-pass-file b")
        let seconds = try timed("keystore passwd main --keystore ks --kdf interactive --keystore-pass-file b --new-pass-file a")
        XCTAssertEqual(try Shell.run("stat -c %i ks/main.key > inode", cwd: dir).status, 0)  // under a, as cur says
        let campaign = KillCampaign(
            run: "keystore passwd main --keystore ks --kdf interactive --keystore-pass-file cur --new-pass-file next > /dev/null 2>&1",
            afterKill: "bash check.sh $kills",
            roundDone: "bash check.sh ended",
            window: seconds * 1.2)
        try assertCampaign(campaign, in: dir, "keystore passwd")
    }

    /// sign-tx --out: after every kill the file is absent or the whole signed PSBT, beside it at
    /// most the killed writer's temporary; a run that ends leaves the file alone (it removes a
    /// dead writer's temporary).
    func testSignTxOutKilled100Times() throws {
        let roles = try TestPaths.json(TestPaths.projectFixture("psbt/bip174-roles.json")) as! [String: Any]
        try write("tprv.json", String(decoding: Shell.lines([["extended_key": roles["master_tprv"] as! String]]), as: UTF8.self))
        try Data(base64Encoded: roles["updated_with_sighash_all"] as! String)!.write(to: dir.appendingPathComponent("in.psbt"))
        let sign = "sign-tx --network test --allow-sighash --key-file tprv.json --in in.psbt"
        let seconds = try timed("mkdir -p out && \(sign) --out clean.psbt > /dev/null")
        let campaign = KillCampaign(
            run: "\(sign) --out out/signed.psbt > /dev/null 2>> err.log",
            afterKill:
                "{ [ ! -e out/signed.psbt ] || cmp -s out/signed.psbt clean.psbt; } && [ -z \"$(ls -A out | grep -v -x -e signed.psbt -e '[.]signed[.]psbt[.]tmp-[0-9]*-[0-9]*')\" ] || { ls -lA out; exit 1; }",
            roundDone:
                "[ \"$(ls -A out)\" = signed.psbt ] && cmp -s out/signed.psbt clean.psbt && rm out/signed.psbt || { ls -lA out; exit 1; }",
            window: seconds * 1.2)
        try assertCampaign(campaign, in: dir, "sign-tx --out")
    }
}

/// Runs a kill campaign in `cwd`: a test failure for each of its problems, and its summary line
/// printed (the seed that repeats it). The live-node tests' campaigns use it too.
func assertCampaign(_ campaign: KillCampaign, in cwd: URL, _ what: String, file: StaticString = #filePath, line: UInt = #line) throws {
    let outcome = try campaign.execute(cwd: cwd)
    for problem in campaign.problems(outcome, what: what) { XCTFail(problem, file: file, line: line) }
    print(campaign.summary(outcome, what: what))
}
