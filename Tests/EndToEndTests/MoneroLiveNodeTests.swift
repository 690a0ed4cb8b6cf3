import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import SatchelTestSupport
import XCTest

/// A real monerod (Debian's monero 0.18) in regtest on 127.0.0.1, with two monero-wallet-rpc
/// wallets: a miner M and the receiver R. R gets payments to its primary address, a
/// subaddress, another account and an integrated address, spends some back, and has one
/// payment waiting in the mempool; then the chain is reorganised. scan-blocks over the node
/// must agree with R's own wallet at each step. Every process is stopped at the end.
final class MoneroLiveNodeTests: XCTestCase {
    var dir = ""
    var processes: [Process] = []
    var nodePort = 0, minerPort = 0, receiverPort = 0

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/monerod") else {
            throw XCTSkip("monerod is not installed (scripts/install-deps.sh installs Debian's monero)")
        }
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-xmr-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir + "/node", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/wallets", withIntermediateDirectories: true)
        let base = 20_000 + Int.random(in: 0..<9_000) * 4
        (nodePort, minerPort, receiverPort) = (base, base + 2, base + 3)
        try start(
            "/usr/bin/monerod",
            [
                "--regtest", "--offline", "--fixed-difficulty", "1", "--data-dir", dir + "/node",
                "--rpc-bind-ip", "127.0.0.1", "--rpc-bind-port", "\(nodePort)", "--p2p-bind-ip", "127.0.0.1",
                "--p2p-bind-port", "\(base + 1)", "--no-zmq", "--no-igd", "--non-interactive", "--log-level", "0",
            ], log: "node.log")
        try waitFor { (try? self.rpc(self.nodePort, "get_info")) != nil }
        for port in [minerPort, receiverPort] {
            try start(
                "/usr/bin/monero-wallet-rpc",
                [
                    "--daemon-address", "127.0.0.1:\(nodePort)", "--rpc-bind-ip", "127.0.0.1",
                    "--rpc-bind-port", "\(port)", "--wallet-dir", dir + "/wallets", "--disable-rpc-login",
                    "--non-interactive", "--log-level", "0",
                ], log: "wallet-\(port).log")
            try waitFor { (try? self.rpc(port, "get_version")) != nil }
        }
    }

    override func tearDownWithError() throws {
        for p in processes where p.isRunning { p.terminate() }
        for p in processes { p.waitUntilExit() }
        try? FileManager.default.removeItem(atPath: dir)
    }

    private func start(_ path: String, _ arguments: [String], log: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = arguments
        // monero-wallet-rpc writes its log file into its working directory: keep it in the temp dir.
        p.currentDirectoryURL = URL(fileURLWithPath: dir)
        XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/" + log, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: dir + "/" + log))
        p.standardOutput = handle
        p.standardError = handle
        try p.run()
        processes.append(p)
    }

    private func waitFor(seconds: Double = 60, _ ready: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline { if ready() { return }; Thread.sleep(forTimeInterval: 0.3) }
        let logs =
            (try? FileManager.default.contentsOfDirectory(atPath: dir))?.filter { $0.hasSuffix(".log") }
            .compactMap { try? String(contentsOfFile: dir + "/" + $0, encoding: .utf8).suffix(400) }.joined(separator: "\n") ?? ""
        throw NSError(
            domain: "monero", code: 1, userInfo: [NSLocalizedDescriptionKey: "a Monero process did not start in \(seconds) s:\n\(logs)"])
    }

    /// JSON-RPC to a node or wallet on loopback.
    @discardableResult
    func rpc(_ port: Int, _ method: String, _ params: [String: Any] = [:]) throws -> [String: Any] {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/json_rpc")!, timeoutInterval: 120)
        request.httpMethod = "POST"
        request.httpBody = try JSONSerialization.data(withJSONObject: ["jsonrpc": "2.0", "id": "0", "method": method, "params": params])
        nonisolated(unsafe) var body: Data?
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { data, _, _ in
            body = data; done.signal()
        }.resume()
        done.wait()
        guard let body, let reply = try JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw NSError(domain: "rpc", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(method): no answer"])
        }
        if let error = reply["error"] {
            throw NSError(domain: "rpc", code: 2, userInfo: [NSLocalizedDescriptionKey: "\(method): \(error)"])
        }
        return reply["result"] as? [String: Any] ?? [:]
    }

    /// The node's blocks in `range` as --blocks and --txs records (get_block's blob, hash,
    /// prev_hash and tx_hashes; get_transactions' hex), appended to the two files.
    private func export(_ range: ClosedRange<Int>, blocks: String, txs: String) throws {
        var blockLines = "", txLines = ""
        for height in range {
            let block = try rpc(nodePort, "get_block", ["height": height])
            let header = block["block_header"] as? [String: Any] ?? [:]
            let ids = block["tx_hashes"] as? [String] ?? []
            let record: [String: Any] = [
                "height": height, "hash": header["hash"] ?? "", "prev_hash": header["prev_hash"] ?? "", "blob": block["blob"] ?? "",
                "tx_hashes": ids,
            ]
            blockLines += String(decoding: try JSONSerialization.data(withJSONObject: record), as: UTF8.self) + "\n"
            guard !ids.isEmpty else { continue }
            let body = try JSONSerialization.data(withJSONObject: ["txs_hashes": ids, "decode_as_json": false]).base64EncodedString()
            let r = try Shell.run("echo \(body) | base64 -d | curl -sf -m 30 http://127.0.0.1:\(nodePort)/get_transactions -d @-")
            XCTAssertEqual(r.status, 0, r.stderr)
            let found =
                try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])["txs"] as? [[String: Any]] ?? []
            XCTAssertEqual(found.count, ids.count)
            for tx in found {
                txLines +=
                    String(
                        decoding: try JSONSerialization.data(withJSONObject: [
                            "tx_hash": tx["tx_hash"] ?? "", "hex": tx["as_hex"] ?? "", "in_pool": false,
                        ]), as: UTF8.self) + "\n"
            }
        }
        for (path, text) in [(blocks, blockLines), (txs, txLines)] {
            if !FileManager.default.fileExists(atPath: path) {
                XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil), "cannot create \(path)")
            }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(text.utf8))
            try handle.close()
        }
    }

    private func mine(_ n: Int, to address: String) throws {
        try rpc(nodePort, "generateblocks", ["amount_of_blocks": n, "wallet_address": address])
    }

    private func scan(_ seed: Data, state: String = "state") throws -> Shell.Result {
        try Shell.run("scan-blocks --node 127.0.0.1:\(nodePort) --birthday 0 --state-dir \(dir)/\(state) --lookahead 3,20", stdin: seed)
    }

    private typealias WalletView = (total: UInt64, unlocked: UInt64, outputs: [[String: Any]], accounts: [[String]])

    private func walletView(_ port: Int) throws -> WalletView {
        try rpc(port, "refresh")
        let balance = try rpc(port, "get_balance", ["all_accounts": true])
        // incoming_transfers and the per-account balance answer for one account at a time.
        let accounts = (try rpc(port, "get_accounts")["subaddress_accounts"] as? [[String: Any]])?.count ?? 1
        var outputs = [[String: Any]]()
        var perAccount = [[String]]()
        for account in 0..<accounts {
            let incoming = try rpc(port, "incoming_transfers", ["transfer_type": "all", "account_index": account])
            outputs += incoming["transfers"] as? [[String: Any]] ?? []
            let own = try rpc(port, "get_balance", ["account_index": account])
            let (total, unlocked) = ((own["balance"] as! NSNumber).uint64Value, (own["unlocked_balance"] as! NSNumber).uint64Value)
            if total > 0 { perAccount.append([String(account), String(total), String(unlocked)]) }
        }
        return ((balance["balance"] as! NSNumber).uint64Value, (balance["unlocked_balance"] as! NSNumber).uint64Value, outputs, perAccount)
    }

    private func assertAgrees(
        _ r: Shell.Result, with wallet: WalletView,
        received: [[String: Any]], file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
        let balance = r.records.last { $0["type"] as? String == "balance" }
        XCTAssertEqual(balance?["total"] as? String, String(wallet.total), file: file, line: line)
        XCTAssertEqual(balance?["unlocked"] as? String, String(wallet.unlocked), file: file, line: line)
        // Each account's balance, mempool receipts included, as get_balance(account_index).
        let accounts = (balance?["accounts"] as? [[String: Any]] ?? []).map {
            [String(describing: $0["major"] ?? "-"), $0["total"] as? String ?? "-", $0["unlocked"] as? String ?? "-"]
        }.filter { $0[1] != "0" }
        XCTAssertEqual(accounts, wallet.accounts, file: file, line: line)
        // Every output the wallet owns, with its key image, amount and subaddress.
        for o in wallet.outputs {
            let match = received.first { $0["key_image"] as? String == o["key_image"] as? String }
            XCTAssertNotNil(match, "output \(o["tx_hash"] ?? "") not reported", file: file, line: line)
            XCTAssertEqual(match?["amount"] as? String, (o["amount"] as? NSNumber).map { String($0.uint64Value) }, file: file, line: line)
            let sub = o["subaddr_index"] as? [String: Int]
            XCTAssertEqual(match?["major"] as? Int, sub?["major"], file: file, line: line)
            XCTAssertEqual(match?["minor"] as? Int, sub?["minor"], file: file, line: line)
        }
    }

    func testScanAgreesWithMoneroWalletRPCThroughPaymentsSpendsAndAReorg() throws {
        try rpc(minerPort, "create_wallet", ["filename": "miner", "language": "English"])
        try rpc(receiverPort, "create_wallet", ["filename": "receiver", "language": "English"])
        let minerAddress = try rpc(minerPort, "get_address")["address"] as! String
        let primary = try rpc(receiverPort, "get_address")["address"] as! String
        let sub01 = try rpc(receiverPort, "create_address", ["account_index": 0])["address"] as! String
        let account1 = try rpc(receiverPort, "create_account")["address"] as! String
        let integrated =
            try rpc(receiverPort, "make_integrated_address", ["standard_address": primary, "payment_id": "feedfacecafebeef"])[
                "integrated_address"] as! String
        let phrase = try rpc(receiverPort, "query_key", ["key_type": "mnemonic"])["key"] as! String
        let seed = Shell.lines([["mnemonic": phrase]])

        try mine(90, to: minerAddress)
        try rpc(minerPort, "refresh")
        try rpc(
            minerPort, "transfer",
            [
                "destinations": [
                    ["amount": 2_000_000_000_000, "address": primary],
                    ["amount": 500_000_000_000, "address": sub01],
                    ["amount": 300_000_000_000, "address": account1],
                ]
            ])
        try rpc(minerPort, "transfer", ["destinations": [["amount": 250_000_000_000, "address": integrated]]])
        try mine(11, to: minerAddress)
        // R spends back to M; then a payment to R waits in the mempool.
        try rpc(receiverPort, "refresh")
        try rpc(receiverPort, "transfer", ["destinations": [["amount": 700_000_000_000, "address": minerAddress]], "account_index": 0])
        try mine(3, to: minerAddress)
        try rpc(minerPort, "refresh")
        try rpc(minerPort, "transfer", ["destinations": [["amount": 123_000_000_000, "address": sub01]]])

        let started = Date()
        let first = try scan(seed)
        let seconds = Date().timeIntervalSince(started)
        let wallet = try walletView(receiverPort)
        let received = first.records.filter { $0["type"] as? String == "received" }
        XCTAssertEqual(received.count, wallet.outputs.count)
        XCTAssertEqual(
            first.records.filter { $0["type"] as? String == "spent" }.count,
            wallet.outputs.filter { $0["spent"] as? Bool == true }.count)
        XCTAssertEqual(first.records.filter { $0["type"] as? String == "pending" }.count, 1)
        XCTAssertTrue(received.contains { $0["payment_id"] as? String == "feedfacecafebeef" })
        assertAgrees(first, with: wallet, received: received)

        // kill -9 at 100 random moments, scanning from the node into a file (KillCampaign):
        // whole lines after every kill, every round that ends equal to the run above.
        let campaign = URL(fileURLWithPath: dir + "/campaign")
        try FileManager.default.createDirectory(at: campaign, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try KillCampaign.writeCheckers(to: campaign)
        try first.stdout.write(to: campaign.appendingPathComponent("clean.jsonl"))
        try seed.write(to: campaign.appendingPathComponent("key.json"))
        let kills = KillCampaign.scan(
            "scan-blocks --node 127.0.0.1:\(nodePort) --birthday 0 --lookahead 3,20 --progress none < key.json",
            wanted: "clean.jsonl", window: seconds * 1.2)
        try assertCampaign(kills, in: campaign, "scan-blocks from monerod")

        // Rerun: nothing new.
        let again = try scan(seed)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(again.records.last?["type"] as? String, "balance")
        XCTAssertEqual(again.records.filter { ["received", "spent"].contains($0["type"] as? String) }.count, 0)

        // The chain so far as files, scanned into a state of their own.
        let tip = try XCTUnwrap(try rpc(nodePort, "get_info")["height"] as? Int) - 1
        try export(0...tip, blocks: "\(dir)/a.jsonl", txs: "\(dir)/a-txs.jsonl")
        let fromFile = try Shell.run(
            "scan-blocks --blocks \(dir)/a.jsonl --txs \(dir)/a-txs.jsonl --birthday 0 --state-dir \(dir)/files --lookahead 3,20",
            stdin: seed)
        XCTAssertEqual(fromFile.status, 0, fromFile.stderr)

        // Reorg: drop the last 3 blocks (R's spend and its confirmations) and mine another branch.
        let popped = try Shell.run("curl -sf -m 30 http://127.0.0.1:\(nodePort)/pop_blocks -d '{\"nblocks\":3}'")
        XCTAssertEqual(popped.status, 0, popped.stderr)
        try rpc(nodePort, "flush_txpool")
        try mine(4, to: minerAddress)
        let afterReorg = try scan(seed)
        XCTAssertEqual(afterReorg.status, 0, afterReorg.stderr)
        XCTAssertTrue(afterReorg.records.contains { $0["type"] as? String == "reorg" }, afterReorg.out)
        let walletAfter = try walletView(receiverPort)
        let balance = afterReorg.records.last { $0["type"] as? String == "balance" }
        XCTAssertEqual(balance?["total"] as? String, String(walletAfter.total))
        XCTAssertEqual(balance?["unlocked"] as? String, String(walletAfter.unlocked))
        XCTAssertEqual(
            (balance?["accounts"] as? [[String: Any]] ?? []).map {
                [String(describing: $0["major"] ?? "-"), $0["total"] as? String ?? "-", $0["unlocked"] as? String ?? "-"]
            }.filter { $0[1] != "0" }, walletAfter.accounts)

        // The new branch alone as a file (#42): its first block's parent is the stored block
        // below the 3 popped ones, so the file state follows the reorg there, undoing only what
        // the popped blocks said, and ends where the node scan does.
        let newTip = try XCTUnwrap(try rpc(nodePort, "get_info")["height"] as? Int) - 1
        try export((tip - 2)...newTip, blocks: "\(dir)/b.jsonl", txs: "\(dir)/b-txs.jsonl")
        let branch = try Shell.run(
            "scan-blocks --blocks \(dir)/b.jsonl --txs \(dir)/b-txs.jsonl --birthday 0 --state-dir \(dir)/files --lookahead 3,20",
            stdin: seed)
        XCTAssertEqual(branch.status, 0, branch.stderr)
        let nodeReorg = afterReorg.records.first { $0["type"] as? String == "reorg" }
        let fileReorg = branch.records.first { $0["type"] as? String == "reorg" }
        XCTAssertEqual(fileReorg?["fork_height"] as? Int, tip - 3, branch.out)
        XCTAssertEqual(fileReorg?["fork_height"] as? Int, nodeReorg?["fork_height"] as? Int)
        XCTAssertEqual(fileReorg?["undone_outputs"] as? Int, nodeReorg?["undone_outputs"] as? Int)
        XCTAssertEqual(fileReorg?["undone_spends"] as? Int, nodeReorg?["undone_spends"] as? Int)
        let fileBalance = branch.records.last { $0["type"] as? String == "balance" }
        XCTAssertEqual(fileBalance?["total"] as? String, String(walletAfter.total))
        XCTAssertEqual(fileBalance?["height"] as? Int, balance?["height"] as? Int)
        // Both in one file, the orphaned blocks then the new branch, as a node connects them:
        // read in one pass to the same balance.
        let feed = try Shell.run(
            "cat \(dir)/a.jsonl \(dir)/b.jsonl > \(dir)/feed.jsonl && cat \(dir)/a-txs.jsonl \(dir)/b-txs.jsonl > \(dir)/feed-txs.jsonl && "
                + "scan-blocks --blocks \(dir)/feed.jsonl --txs \(dir)/feed-txs.jsonl --birthday 0 --state-dir \(dir)/feed --lookahead 3,20",
            stdin: seed)
        XCTAssertEqual(feed.status, 0, feed.stderr)
        XCTAssertEqual(feed.records.last?["total"] as? String, String(walletAfter.total))

        // A stopped node: exit 69.
        for p in processes where p.isRunning { p.terminate(); p.waitUntilExit() }
        XCTAssertEqual(try scan(seed).status, 69)
    }

    /// --follow polls the node and writes a balance record only when the balance changes:
    /// blocks without a payment add none; a payment adds one (its mempool receipt already
    /// counts, so its confirmation changes nothing).
    func testFollowWritesABalanceOnlyWhenItChanges() throws {
        try rpc(minerPort, "create_wallet", ["filename": "miner", "language": "English"])
        try rpc(receiverPort, "create_wallet", ["filename": "receiver", "language": "English"])
        let minerAddress = try rpc(minerPort, "get_address")["address"] as! String
        let primary = try rpc(receiverPort, "get_address")["address"] as! String
        let phrase = try rpc(receiverPort, "query_key", ["key_type": "mnemonic"])["key"] as! String
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: "\(dir)/key.json", contents: Shell.lines([["mnemonic": phrase]]), attributes: [.posixPermissions: 0o600]))
        try mine(90, to: minerAddress)  // coinbase outputs unlock after 60 blocks; rings need decoys

        let scanner = Process()
        scanner.executableURL = TestPaths.binDir.appendingPathComponent("scan-blocks")
        scanner.arguments = [
            "--node", "127.0.0.1:\(nodePort)", "--follow", "--interval", "0.5", "--birthday", "0", "--state-dir", "\(dir)/follow",
            "--lookahead", "3,20", "--key-file", "\(dir)/key.json", "--progress", "none",
        ]
        XCTAssertTrue(FileManager.default.createFile(atPath: "\(dir)/follow.jsonl", contents: nil))
        scanner.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: "\(dir)/follow.jsonl"))
        scanner.standardError = FileHandle.nullDevice
        scanner.standardInput = FileHandle.nullDevice
        try scanner.run()
        defer { if scanner.isRunning { scanner.terminate(); scanner.waitUntilExit() } }
        let balances = { () -> [[String: Any]] in
            ((try? TestPaths.jsonLines(URL(fileURLWithPath: "\(self.dir)/follow.jsonl"))) ?? []).filter {
                $0["type"] as? String == "balance"
            }
        }
        try waitFor(seconds: 60) { balances().count >= 1 }
        try mine(3, to: minerAddress)
        Thread.sleep(forTimeInterval: 3)
        XCTAssertEqual(balances().count, 1, "blocks without a payment wrote a balance")
        XCTAssertEqual(balances().first?["total"] as? String, "0")

        try rpc(minerPort, "refresh")
        try rpc(minerPort, "transfer", ["destinations": [["amount": 1_000_000_000_000, "address": primary]]])
        try waitFor(seconds: 60) { balances().count >= 2 }
        try mine(2, to: minerAddress)
        Thread.sleep(forTimeInterval: 3)
        XCTAssertEqual(balances().map { $0["total"] as? String }, ["0", "1000000000000"])
        XCTAssertTrue(scanner.isRunning, "--follow stopped by itself")
    }

}
