import Foundation
import SatchelTestSupport
import XCTest

/// A real litecoind (Debian's 0.21) in regtest on 127.0.0.1, past MWEB activation. A seed's
/// accounts (BIP44, 49, 84, and a second BIP84 account) are paid — across a gap, twice in one
/// block with the later index first, by a coinbase, and from the mempool — and spend within one
/// block; then the chain is reorganised. scan-blocks over the node's raw blocks must agree
/// with a watch-only wallet of the node that holds the same descriptors (importmulti):
/// listunspent and getbalances. Every process is stopped at the end.
final class LitecoinLiveNodeTests: XCTestCase {
    static let phrase = TestPhrase.abandonAbout
    var regtest: LitecoinRegtest!
    var dir: String { regtest.dir }
    var port: Int { regtest.port }

    override func setUpWithError() throws {
        regtest = try LitecoinRegtest(name: "ltc")
        try start(rest: true)
    }

    func start(rest: Bool) throws { try regtest.start(rest: rest) }
    func stop() throws { try regtest.stop() }

    override func tearDownWithError() throws { try regtest?.tearDown() }

    @discardableResult
    func cli(_ args: String..., wallet: String? = nil) throws -> String { try regtest.run(args, wallet: wallet) }

    func json(_ args: String..., wallet: String? = nil) throws -> Any { try regtest.json(args, wallet: wallet) }

    private func derive(_ command: String) throws -> [[String: Any]] {
        let r = try Shell.run("derive \(command) --coin ltc --network regtest", stdin: Data(#"{"mnemonic":"\#(Self.phrase)"}"#.utf8))
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.records
    }

    private func address(purpose: Int, account: Int = 0, change: Int = 0, index: Int) throws -> String {
        try derive("addresses --purpose \(purpose) --account \(account) --change \(change) --index \(index) --count 1")[0]["address"]
            as! String
    }

    private func mine(_ n: Int, to address: String) throws { try cli("generatetoaddress", String(n), address) }

    /// The node's RPC (its cookie), or --blocks of its block files.
    private var fromNode: String { "--node 127.0.0.1:\(port) --rpc-cookie \(dir)/node/regtest/.cookie" }

    private func scan(state: String, gap: Int = 20, source: String? = nil) throws -> Shell.Result {
        let r = try Shell.run(
            "scan-blocks --chain litecoin --network regtest --birthday 0 --state-dir \(dir)/\(state) --gap-limit \(gap) "
                + (source ?? fromNode), stdin: Data(#"{"mnemonic":"\#(Self.phrase)"}"#.utf8))
        XCTAssertEqual(r.status, 0, r.stderr)
        return r
    }

    /// Litoshis of a JSON amount in LTC.
    private func litoshis(_ value: Any?) -> UInt64 {
        UInt64(((value as? NSNumber)?.doubleValue ?? -1) * 1e8 + 0.5)
    }

    /// The scan's unspent confirmed outputs (txid:vout value), from its received and spent events.
    private func unspent(_ records: [[String: Any]], matureOnly: Bool, tip: Int) -> [String: UInt64] {
        var out = [String: UInt64]()
        for r in records where r["type"] as? String == "received" {
            // listunspent leaves out what cannot be spent yet: coinbases under 101 confirmations, peg-outs under 6.
            let confirmations = tip - (r["height"] as! Int) + 1
            if matureOnly, r["coinbase"] as? Bool == true && confirmations < 101 || r["pegout"] as? Bool == true && confirmations < 6 {
                continue
            }
            out["\(r["txid"]!):\(r["vout"]!)"] = UInt64(r["value"] as! String)!
        }
        // A spend in the mempool takes the output out of listunspent too.
        for r in records where ["spent", "pending_spent"].contains(r["type"] as? String) {
            out["\(r["output_txid"]!):\(r["output_vout"]!)"] = nil
        }
        return out
    }

    private func assertAgrees(_ r: Shell.Result, file: StaticString = #filePath, line: UInt = #line) throws {
        let tip = Int(try cli("getblockcount"))!
        let node = try json("listunspent", "1", "9999999", "[]", "true", wallet: "watch") as! [[String: Any]]
        var expected = [String: UInt64]()
        for u in node { expected["\(u["txid"]!):\(u["vout"]!)"] = litoshis(u["amount"]) }
        XCTAssertEqual(unspent(r.records, matureOnly: true, tip: tip), expected, "listunspent", file: file, line: line)
        let balances = (try json("getbalances", wallet: "watch") as! [String: Any])["watchonly"] as! [String: Any]
        let balance = r.records.last { $0["type"] as? String == "balance" }
        XCTAssertEqual(balance?["height"] as? Int, tip, file: file, line: line)  // the tip's height, as getblockcount
        XCTAssertEqual(balance?["confirmed"] as? String, String(litoshis(balances["trusted"])), "trusted", file: file, line: line)
        XCTAssertEqual(
            balance?["unconfirmed"] as? String, String(litoshis(balances["untrusted_pending"])), "untrusted_pending", file: file, line: line
        )
        XCTAssertEqual(balance?["immature"] as? String, String(litoshis(balances["immature"])), "immature", file: file, line: line)
    }

    private func waitFor(seconds: Double, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while try !condition() {
            guard Date() < deadline else { return XCTFail("waited \(seconds) s in vain") }
            Thread.sleep(forTimeInterval: 0.3)
        }
    }

    func testScanAgreesWithTheNodesWatchOnlyWallet() throws {
        try cli("createwallet", "miner")
        try cli("createwallet", "watch", "true")
        try cli("createwallet", "spender")
        // The watch-only wallet holds the seed's account descriptors, receive and change, 100 keys each.
        var requests = [[String: Any]]()
        for (purpose, account) in [(44, 0), (49, 0), (84, 0), (84, 1)] {
            let record = try derive("account --purpose \(purpose) --account \(account)")[0]
            for (key, isChange) in [("descriptor", false), ("change_descriptor", true)] {
                requests.append([
                    "desc": record[key] as! String, "range": [0, 99], "watchonly": true, "timestamp": 0, "internal": isChange,
                ])
            }
        }
        let imported = String(decoding: try JSONSerialization.data(withJSONObject: requests), as: UTF8.self)
        XCTAssertFalse(try cli("importmulti", imported, wallet: "watch").contains("false"))
        let miner = try cli("getnewaddress", "", "bech32", wallet: "miner")
        // MWEB activates at 432, whose block needs a peg-in: from then on every block ends in a HogEx.
        try mine(431, to: miner)
        try cli("createwallet", "mweb")
        try cli("sendtoaddress", try cli("getnewaddress", "", "mweb", wallet: "mweb"), "3", wallet: "miner")
        try mine(1, to: miner)
        let send = { (address: String, amount: String) throws in _ = try self.cli("sendtoaddress", address, amount, wallet: "miner") }
        // Every script kind, and a second BIP84 account (found because account 0's receive chain is used).
        try send(try address(purpose: 84, index: 0), "1.0")
        try send(try address(purpose: 44, index: 3), "0.44")
        try send(try address(purpose: 49, index: 1), "0.49")
        try send(try address(purpose: 84, account: 1, index: 0), "0.841")
        try mine(1, to: miner)
        // One block: index 30 (before index 15 in the block), 15, and 60 (past the window at gap 20).
        try send(try address(purpose: 84, index: 30), "0.3")
        try send(try address(purpose: 84, index: 15), "0.15")
        try send(try address(purpose: 84, index: 60), "0.6")
        try mine(1, to: miner)
        // A coinbase to the wallet, immature for 100 more blocks.
        try mine(1, to: try address(purpose: 84, index: 2))
        // Spends in one block: 84/0/0/0's output to 84/0/0/5, then that new output on to the miner.
        for index in [0, 5] {
            let wif = try derive("addresses --purpose 84 --index \(index) --count 1 --private")[0]["wif"] as! String
            try cli("importprivkey", wif, "", "false", wallet: "spender")
        }
        try cli("rescanblockchain", wallet: "spender")
        try cli("sendtoaddress", try address(purpose: 84, index: 5), "1.0", "", "", "true", wallet: "spender")
        let rest = (try json("getbalances", wallet: "spender") as! [String: Any])["mine"] as! [String: Any]
        let all = String(format: "%.8f", (rest["trusted"] as! NSNumber).doubleValue)
        try cli("sendtoaddress", miner, all, "", "", "true", wallet: "spender")
        try mine(1, to: miner)
        let spendBlock = try cli("getbestblockhash")
        // A peg-out from the MWEB to the wallet: a HogEx output, immature for 6 blocks.
        try cli("sendtoaddress", try address(purpose: 84, index: 9), "0.9", wallet: "mweb")
        try mine(1, to: miner)
        // Waiting in the mempool: a payment from outside.
        try send(try address(purpose: 84, index: 7), "0.07")
        // And a spend of the wallet's own 0.3 (84/0/0/30): 0.1 out, 0.199 back to its change
        // address 84/0/1/0 (#42: the spent output stayed in "confirmed", 0.3 too high).
        try cli(
            "importprivkey", try derive("addresses --purpose 84 --index 30 --count 1 --private")[0]["wif"] as! String, "", "false",
            wallet: "spender")
        try cli("rescanblockchain", wallet: "spender")
        let coin = try XCTUnwrap(
            (try json("listunspent", wallet: "spender") as! [[String: Any]]).first { litoshis($0["amount"]) == 30_000_000 })
        let ownChange = try address(purpose: 84, change: 1, index: 0)
        let raw = try cli(
            "createrawtransaction", #"[{"txid":"\#(coin["txid"]!)","vout":\#(coin["vout"]!)}]"#, #"{"\#(miner)":0.1,"\#(ownChange)":0.199}"#
        )
        let signed = (try json("signrawtransactionwithwallet", raw, wallet: "spender") as! [String: Any])["hex"] as! String
        let spendTxid = try cli("sendrawtransaction", signed)

        // Gap 20: everything but index 60.
        let narrow = try scan(state: "narrow")
        let paths = narrow.records.filter { $0["type"] as? String == "received" }.map { $0["path"] as! String }
        XCTAssertEqual(
            Set(paths),
            [
                "m/84'/1'/0'/0/0", "m/44'/1'/0'/0/3", "m/49'/1'/0'/0/1", "m/84'/1'/1'/0/0", "m/84'/1'/0'/0/30",
                "m/84'/1'/0'/0/15", "m/84'/1'/0'/0/2", "m/84'/1'/0'/0/5", "m/84'/1'/0'/0/9",
            ])
        XCTAssertEqual(paths.count, 9)
        XCTAssertEqual(narrow.records.filter { $0["pegout"] as? Bool == true }.map { $0["path"] as? String }, ["m/84'/1'/0'/0/9"])
        XCTAssertEqual(narrow.records.filter { $0["type"] as? String == "spent" }.count, 2)
        XCTAssertEqual(
            Set(narrow.records.filter { $0["type"] as? String == "pending" }.map { $0["path"] as? String }),
            ["m/84'/1'/0'/0/7", "m/84'/1'/0'/1/0"])
        XCTAssertEqual(
            narrow.records.filter { $0["type"] as? String == "pending" && $0["change"] as? Bool == true }.map { $0["path"] as? String },
            ["m/84'/1'/0'/1/0"])
        let pendingSpent = narrow.records.filter { $0["type"] as? String == "pending_spent" }
        XCTAssertEqual(
            pendingSpent.map { [$0["txid"] as? String, $0["output_txid"] as? String, $0["value"] as? String, $0["path"] as? String] },
            [[spendTxid, coin["txid"] as? String, "30000000", "m/84'/1'/0'/0/30"]])
        // Gap 40 sees index 60 too, and agrees with the node's wallet.
        let wide = try scan(state: "wide", gap: 40)
        XCTAssertTrue(wide.records.contains { $0["path"] as? String == "m/84'/1'/0'/0/60" })
        try assertAgrees(wide)

        // A wrong password is the node's refusal (77), said without the password; with no
        // login given and no cookie where the node keeps it, a usage error (64) names the place.
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: "\(dir)/wrong", contents: Data("__cookie__:not-the-password\n".utf8), attributes: [.posixPermissions: 0o600]))
        let refused = try Shell.run(
            "scan-blocks --chain litecoin --network regtest --birthday 0 --state-dir \(dir)/refused --node 127.0.0.1:\(port)"
                + " --rpc-credentials \(dir)/wrong", stdin: Data(#"{"mnemonic":"\#(Self.phrase)"}"#.utf8))
        XCTAssertEqual(refused.status, 77, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("source.refused") && refused.stderr.contains("HTTP 401"), refused.stderr)
        XCTAssertFalse(refused.stderr.contains("not-the-password"), refused.stderr)
        try FileManager.default.createDirectory(atPath: "\(dir)/home", withIntermediateDirectories: true)
        let noCookie = try Shell.run(
            "HOME=\(dir)/home scan-blocks --chain litecoin --network regtest --birthday 0 --state-dir \(dir)/refused --node 127.0.0.1:\(port)",
            stdin: Data(#"{"mnemonic":"\#(Self.phrase)"}"#.utf8))
        XCTAssertEqual(noCookie.status, 64, noCookie.stderr)
        XCTAssertTrue(noCookie.stderr.contains("there is no cookie at \(dir)/home/.litecoin/regtest/.cookie"), noCookie.stderr)

        // A reorg: the spend block is undone, and its transactions mined again in a longer branch.
        try cli("invalidateblock", spendBlock)
        // Another coinbase address, so the new blocks differ from the invalidated ones; one
        // block more than was undone, so the new branch is longer.
        try mine(3, to: try cli("getnewaddress", "", "bech32", wallet: "miner"))
        try send(try address(purpose: 84, index: 8), "0.08")
        let after = try scan(state: "wide", gap: 40)
        let reorg = after.records.first { $0["type"] as? String == "reorg" }
        XCTAssertEqual(reorg?["fork_height"] as? Int, Int(try cli("getblockcount"))! - 3)
        let fresh = try scan(state: "fresh", gap: 40)
        try assertAgrees(fresh)
        XCTAssertEqual(after.records.last?["confirmed"] as? String, fresh.records.last?["confirmed"] as? String)
        XCTAssertEqual(after.records.last?["total"] as? String, fresh.records.last?["total"] as? String)

        // --follow: a payment mined while it polls is reported, with the balance after it.
        let follower = Process()
        follower.executableURL = TestPaths.binDir.appendingPathComponent("scan-blocks")
        follower.arguments = [
            "--chain", "litecoin", "--network", "regtest", "--node", "127.0.0.1:\(port)", "--rpc-cookie", "\(dir)/node/regtest/.cookie",
            "--follow", "--interval", "0.5", "--birthday", "0", "--state-dir", "\(dir)/fresh", "--gap-limit", "40",
            "--key-file", "\(dir)/key.json", "--progress", "none",
        ]
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: "\(dir)/key.json", contents: Shell.lines([["mnemonic": Self.phrase]]), attributes: [.posixPermissions: 0o600]))
        XCTAssertTrue(FileManager.default.createFile(atPath: "\(dir)/follow.jsonl", contents: nil))
        follower.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: "\(dir)/follow.jsonl"))
        follower.standardError = FileHandle.nullDevice
        follower.standardInput = FileHandle.nullDevice
        try follower.run()
        defer { if follower.isRunning { follower.terminate(); follower.waitUntilExit() } }
        let followed = { ((try? TestPaths.jsonLines(URL(fileURLWithPath: "\(self.dir)/follow.jsonl"))) ?? []) }
        try waitFor(seconds: 60) { followed().contains { $0["type"] as? String == "balance" } }
        try send(try address(purpose: 84, index: 11), "0.11")
        try mine(1, to: miner)
        let tip = Int(try cli("getblockcount"))!
        try waitFor(seconds: 60) {
            followed().contains {
                $0["type"] as? String == "received" && $0["path"] as? String == "m/84'/1'/0'/0/11" && $0["height"] as? Int == tip
            }
        }
        try waitFor(seconds: 60) { followed().last { $0["type"] as? String == "balance" }?["height"] as? Int == tip }
        XCTAssertTrue(follower.isRunning, "--follow stopped by itself")
        follower.terminate()
        follower.waitUntilExit()
        // What it wrote, with the run before it, is the whole state: a run after it has nothing new.
        let latest = try scan(state: "fresh", gap: 40)
        XCTAssertEqual(latest.records.map { $0["type"] as? String }, ["balance"])
        XCTAssertEqual(
            latest.records.last?["total"] as? String, followed().last { $0["type"] as? String == "balance" }?["total"] as? String)

        // Without -rest the blocks come through getblock's hex: the same outputs.
        try stop()
        try start(rest: false)
        try cli("loadwallet", "watch")
        let viaRPC = try scan(state: "rpc", gap: 40)
        try assertAgrees(viaRPC)

        // kill -9 at 100 random moments (KillCampaign), scanning from the node into a file:
        // whole lines after every kill, every round that ends equal to a clean run's events.
        let campaign = URL(fileURLWithPath: "\(dir)/campaign")
        try FileManager.default.createDirectory(at: campaign, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try KillCampaign.writeCheckers(to: campaign)
        let command =
            "scan-blocks --chain litecoin --network regtest --birthday 0 --gap-limit 40 \(fromNode) --key-file \(dir)/key.json --progress none"
        let started = Date()
        let clean = try Shell.run("\(command) --state-dir clean > clean.jsonl", cwd: campaign)
        XCTAssertEqual(clean.status, 0, clean.stderr)
        let seconds = Date().timeIntervalSince(started)
        XCTAssertEqual(
            try Shell.run("python3 same-events.py clean.jsonl /dev/stdin", stdin: Data(viaRPC.out.utf8), cwd: campaign).status, 0,
            "the campaign's clean run is the scan above")
        let kills = KillCampaign.scan(command, wanted: "clean.jsonl", window: seconds * 1.2)
        try assertCampaign(kills, in: campaign, "scan-blocks from litecoind")

        // The node's own block files (stale blocks of the reorg among them), read after it stopped.
        try stop()
        let files = try scan(state: "files", gap: 40, source: "--blocks \(dir)/node/regtest/blocks")
        let outpoints = { (records: [[String: Any]], type: String) in
            Set(records.filter { $0["type"] as? String == type }.map { "\($0["txid"]!):\($0["vout"] ?? $0["vin"]!)" })
        }
        XCTAssertEqual(outpoints(files.records, "received"), outpoints(viaRPC.records, "received"))
        XCTAssertEqual(outpoints(files.records, "spent"), outpoints(viaRPC.records, "spent"))
        XCTAssertEqual(outpoints(files.records, "pending"), [])
        let (a, b) = (files.records.last!, viaRPC.records.last!)
        XCTAssertEqual(a["type"] as? String, "balance")
        XCTAssertEqual(a["height"] as? Int, tip)
        for field in ["confirmed", "immature"] { XCTAssertEqual(a[field] as? String, b[field] as? String, field) }
    }
}
