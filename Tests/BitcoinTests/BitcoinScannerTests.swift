import Foundation
import SatchelTestSupport
import WalletCore
import WalletKeys
import XCTest
import Bitcoin
@testable import BitcoinScan
@testable import WalletScan

/// The Bitcoin scanner on the engine over small made-up chains (real serialization, checked
/// merkle roots): the gap window and its widening inside one block, account discovery that
/// stops at the first unused account, spends within a block, and several wallets in one pass.
final class BitcoinScannerTests: XCTestCase {
    var dir = ""
    let network = try! BitcoinNetwork(BitcoinMainChain.self, network: "regtest")
    let h = DerivationPath.hardened

    override func setUpWithError() throws {
        dir = try temporaryDirectory("btcscan")
    }

    private func master(
        _ phrase: String = TestPhrase.abandonAbout
    ) -> ExtendedKey {
        let bip39 = BIP39()
        return try! ExtendedKey.master(seed: try! bip39.seed(of: try! bip39.parse(phrase, language: nil), passphrase: SecureBytes([])))
    }

    /// The P2WPKH script of m/84'/1'/account'/chain/index.
    private func script(account: UInt32, chain: UInt32 = 0, index: UInt32, of key: ExtendedKey? = nil) throws -> [UInt8] {
        let child = try (key ?? master()).derive([84 + h, 1 + h, account + h, chain, index])
        return try BitcoinNetwork.script(for: child.publicKey, kind: .p2wpkh)
    }

    // MARK: a made-up chain

    struct Tx {
        var inputs: [[UInt8]] = []  // outpoints, 36 bytes
        var outputs: [(script: [UInt8], value: UInt64)]
    }

    private func compact(_ n: Int) -> [UInt8] { n < 0xFD ? [UInt8(n)] : [0xFD, UInt8(n & 0xFF), UInt8(n >> 8)] }
    private func le<T: FixedWidthInteger>(_ v: T) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }

    private func serialize(_ tx: Tx, coinbaseHeight: Int?) -> [UInt8] {
        var out = le(UInt32(2))
        if let height = coinbaseHeight {
            out += [1] + [UInt8](repeating: 0, count: 32) + le(UInt32.max)
            let push = [UInt8(3)] + le(UInt32(height)).prefix(3) + [0x51]  // BIP34 height, then padding
            out += compact(push.count) + push + le(UInt32.max)
        } else {
            // No transaction spends nothing: one without inputs given spends a made-up outpoint.
            let inputs = tx.inputs.isEmpty ? [Bitcoin.outpoint(Bitcoin.sha256d(tx.outputs.flatMap(\.script)), 9)] : tx.inputs
            out += compact(inputs.count)
            for outpoint in inputs { out += outpoint + [0] + le(UInt32.max) }
        }
        out += compact(tx.outputs.count)
        for o in tx.outputs { out += le(o.value) + compact(o.script.count) + o.script }
        return out + le(UInt32(0))
    }

    /// Blocks of these transactions after a coinbase each; returns them with every tx's txid.
    private func chain(_ blocks: [[Tx]]) -> (data: [BlockData], txids: [[[UInt8]]]) {
        var parent = [UInt8](repeating: 0, count: 32)
        var data = [BlockData](), ids = [[[UInt8]]]()
        for (height, txs) in blocks.enumerated() {
            let raw = [serialize(Tx(outputs: [([0x51], 50)]), coinbaseHeight: height)] + txs.map { serialize($0, coinbaseHeight: nil) }
            let txids = raw.map { Bitcoin.sha256d($0) }
            let header =
                le(UInt32(4)) + parent + Bitcoin.merkleRoot(txids).root + le(UInt32(1_600_000_000 + height)) + le(UInt32(0x207F_FFFF))
                + le(UInt32(height))
            let blob = header + compact(raw.count) + raw.joined()
            parent = Bitcoin.sha256d(header)
            data.append(BlockData(height: height, blob: blob, transactions: [], claimedID: parent))
            ids.append(Array(txids.dropFirst()))
        }
        return (data, ids)
    }

    /// Scans `blocks` for the wallets; the events of each wallet (by name).
    private func scan(
        _ blocks: [BlockData], wallets: [(String?, BitcoinScanner<BitcoinMainChain>)], batch: Int = 50
    ) throws -> [String: [ScanEvent]] {
        let sync = try Synchronizer(
            wallets: wallets.map { .init(name: $0.0, scanner: $0.1, statePath: "\(dir)/\($0.0 ?? "only").db", birthday: 0) },
            source: MemorySource(blocks))
        sync.batchSize = batch
        let sink = Sink()
        try sync.run(sink: sink)
        return Dictionary(grouping: sink.events, by: { $0.wallet ?? "" }).mapValues { $0.map(\.event) }
    }

    private func received(_ events: [ScanEvent]?) -> [(account: UInt32, index: UInt32, value: UInt64)] {
        (events ?? []).compactMap {
            if case .received(let o, _) = $0 { (o.account & 0x0FFF_FFFF, o.addressIndex & 0x7FFF_FFFF, o.amount) } else { nil }
        }
    }

    // MARK: tests

    /// Index 19 is inside the first window (0…19); 40 before 39 in one block is found because
    /// 39's use widens the window and the block is scanned again; 61 is past 40 + 20.
    func testTheGapWindowGrowsWithinABlock() throws {
        let pay = { (index: UInt32, value: UInt64) in Tx(outputs: [(try! self.script(account: 0, index: index), value)]) }
        let (blocks, _) = chain([[], [pay(19, 1_900)], [pay(40, 4_000), pay(39, 3_900)], [pay(61, 6_100)]])
        let found = received(try scan(blocks, wallets: [(nil, BitcoinScanner(master: master(), network: network))])[""])
        XCTAssertEqual(found.map(\.index), [19, 40, 39])
        XCTAssertEqual(found.map(\.value), [1_900, 4_000, 3_900])
        // A gap of 21 reaches 61.
        try FileManager.default.removeItem(atPath: "\(dir)/only.db")
        let wide = received(
            try scan(blocks, wallets: [(nil, BitcoinScanner(master: master(), network: network, discovery: AccountDiscovery(gap: 21)))])[""]
        )
        XCTAssertEqual(wide.map(\.index), [19, 40, 39, 61])
    }

    /// Accounts 0 and 2 paid: discovery stops at account 1, unused, so account 2 is not
    /// watched; once account 1 is paid (in the same block, after account 2's payment), all are.
    func testDiscoveryStopsAtTheFirstUnusedAccount() throws {
        let gapped = chain([[Tx(outputs: [(try script(account: 0, index: 0), 10), (try script(account: 2, index: 0), 30)])]]).data
        XCTAssertEqual(
            received(try scan(gapped, wallets: [("a", BitcoinScanner(master: master(), network: network))])["a"]).map(\.account), [0])
        let paid = chain([
            [
                Tx(outputs: [(try script(account: 0, index: 0), 10), (try script(account: 2, index: 0), 30)]),
                Tx(outputs: [(try script(account: 1, index: 0), 20)]),
            ]
        ]).data
        XCTAssertEqual(
            Set(received(try scan(paid, wallets: [("b", BitcoinScanner(master: master(), network: network))])["b"]).map(\.account)),
            [0, 1, 2])
        // A change address alone does not make an account used: discovery stops after it.
        let change = chain([[Tx(outputs: [(try script(account: 0, chain: 1, index: 0), 10), (try script(account: 1, index: 0), 20)])]]).data
        XCTAssertEqual(
            received(try scan(change, wallets: [("c", BitcoinScanner(master: master(), network: network))])["c"]).map(\.account), [0])
    }

    /// An output spent by a later transaction of its own block, and two wallets in one pass,
    /// each seeing only its own.
    func testSpendsWithinABlockAndTwoWallets() throws {
        let other = master(TestPhrase.legalWinner)
        let first = Tx(outputs: [(try script(account: 0, index: 3), 5_000), (try script(account: 0, index: 0, of: other), 7_000)])
        let firstID = chain([[first]]).txids[0][0]
        let spend = Tx(inputs: [Bitcoin.outpoint(firstID, 0)], outputs: [([0x51], 4_900)])
        let (blocks, ids) = chain([[first, spend]])
        XCTAssertEqual(ids[0][0], firstID)
        let account = try other.derive([84 + h, 1 + h, h]).neutered
        let watchOnly = try BitcoinScanner<BitcoinMainChain>(
            accounts: [WatchAccount(script: .p2wpkh, number: 0, path: nil, key: account)], network: network)
        let events = try scan(blocks, wallets: [("seed", BitcoinScanner(master: master(), network: network)), ("watch", watchOnly)])
        XCTAssertEqual(received(events["seed"]).map(\.value), [5_000])
        XCTAssertEqual(received(events["watch"]).map(\.value), [7_000])
        let spent = (events["seed"] ?? []).compactMap { if case .spent(let s, _) = $0 { s } else { nil } }
        XCTAssertEqual(spent.map(\.outputTxID), [firstID])
        XCTAssertEqual(spent.map(\.input), [0])
        XCTAssertEqual((events["watch"] ?? []).filter { if case .spent = $0 { true } else { false } }.count, 0)
        guard case .balance(let seedBalance)? = events["seed"]?.last, case .balance(let watchBalance)? = events["watch"]?.last else {
            return XCTFail("no balances")
        }
        XCTAssertEqual(seedBalance.total, 0)
        XCTAssertEqual(watchBalance.total, 7_000)
    }
}

/// A reorg that a block file tells (#42): a file that begins with a replacement block, and a
/// file that holds the orphaned blocks and then the replacing branch, as a node connects them.
extension BitcoinScannerTests {
    /// Chain A pays the wallet at 10, 126 and 127 (1,000, 2,000, 3,000); chain B is A to 125,
    /// then 126′ paying 5,000, then 127′ and 128′ paying nothing.
    private func forkedChains() throws -> (a: [BlockData], b: [BlockData]) {
        let pay = { (index: UInt32, value: UInt64) in Tx(outputs: [(try! self.script(account: 0, index: index), value)]) }
        var a = [[Tx]](repeating: [], count: 128), b = [[Tx]](repeating: [], count: 129)
        a[10] = [pay(0, 1_000)]; b[10] = a[10]
        a[126] = [pay(1, 2_000)]
        a[127] = [pay(2, 3_000)]
        b[126] = [pay(3, 5_000)]
        let (chainA, chainB) = (chain(a).data, chain(b).data)
        XCTAssertEqual(chainA[125].claimedID, chainB[125].claimedID)
        XCTAssertNotEqual(chainA[126].claimedID, chainB[126].claimedID)
        return (chainA, chainB)
    }

    /// Writes the blocks as the --blocks JSON Lines file (`prev` as given: the parent, or null).
    private func file(_ name: String, _ blocks: [BlockData], prev: Bool = true) throws -> String {
        let display = { (bytes: [UInt8]) in Hex.encode(Array(bytes.reversed())) }
        let lines = blocks.map { b in
            #"{"height":\#(b.height),"hash":"\#(display(b.claimedID!))","prev":\#(prev ? "\"\(display(Array(b.blob[4..<36])))\"" : "null"),"hex":"\#(Hex.encode(b.blob))"}"#
        }
        let path = "\(dir)/\(name).jsonl"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Scans the file into the state `state`; the events.
    private func scanFile(_ path: String, state: String = "s", batch: Int = 50) throws -> [ScanEvent] {
        let scanner = BitcoinScanner<BitcoinMainChain>(master: master(), network: network)
        let sync = try Synchronizer(
            wallets: [.init(name: nil, scanner: scanner, statePath: "\(dir)/\(state).db", birthday: 0)],
            source: BitcoinRecordSource(path: path, mempoolPath: nil))
        sync.batchSize = batch
        let sink = Sink()
        try sync.run(sink: sink)
        return sink.events.map(\.event).filter { if case .progress = $0 { false } else { true } }
    }

    private func reorgs(_ events: [ScanEvent]) -> [[Int]] {
        events.compactMap { if case .reorg(let fork, let outputs, let spends) = $0 { [fork, outputs, spends] } else { nil } }
    }

    private func finalBalance(_ events: [ScanEvent]) -> [Int]? {
        guard case .balance(let b)? = events.last else { return nil }
        return [b.height, Int(b.total)]
    }

    /// The second run's file starts with 126′, whose parent (125) the state holds: a reorg at
    /// 125 undoing only 126 and 127, then 126′'s 5,000 — not a reorg at -1 that undid every
    /// output and ended at zero. With 127′ and 128′ after it, the same; a file that starts at
    /// 128′ cannot say where the fork is, and says so instead of undoing the wallet.
    func testAFileThatBeginsWithAReplacementBlock() throws {
        let (a, b) = try forkedChains()
        let full = try file("a", a)
        for (name, tail, height) in [("only-126", [b[126]], 127), ("126-128", Array(b[126...128]), 129)] {
            let first = try scanFile(full, state: name)
            XCTAssertEqual(received(first).map(\.value), [1_000, 2_000, 3_000])
            XCTAssertEqual(finalBalance(first), [128, 6_000])
            let second = try scanFile(try file(name, tail, prev: name == "only-126"), state: name)
            XCTAssertEqual(reorgs(second), [[125, 2, 0]], name)
            XCTAssertEqual(received(second).map(\.value), [5_000], name)
            XCTAssertEqual(finalBalance(second), [height, 6_000], name)
            // The same file again: nothing new.
            let third = try scanFile(try file(name, tail), state: name)
            XCTAssertEqual(reorgs(third), [], name)
            XCTAssertEqual(received(third).count, 0, name)
            XCTAssertEqual(finalBalance(third), [height, 6_000], name)
        }
        // Starting at 128′: its parent 127′ is neither stored nor in the file.
        _ = try scanFile(full, state: "from-128")
        XCTAssertThrowsError(try scanFile(try file("only-128", [b[128]]), state: "from-128")) { error in
            XCTAssertEqual(
                (error as? ScanError)?.message,
                "block 128 is malformed: it replaces the stored block 128, and the source does not hold its parent (block 127) to find where the two chains meet: give blocks from the fork on (at most the stored tip's height minus the reorg's depth), or scan-blocks --rescan"
            )
        }
        XCTAssertEqual(finalBalance(try scanFile(full, state: "from-128")), [128, 6_000], "the state is as it was")
    }

    /// One file with 0…127, then 126′…128′ (a ZMQ rawblock feed's order): the replaced blocks
    /// are dropped, whether they were handed out in an earlier batch (then a reorg at 125) or
    /// not (then no reorg at all); either way the wallet ends as chain B alone leaves it.
    func testAFileHoldingAReorg() throws {
        let (a, b) = try forkedChains()
        let feed = try file("feed", a + Array(b[126...128]))
        let clean = try scanFile(try file("b", b), state: "clean")
        XCTAssertEqual(finalBalance(clean), [129, 6_000])
        let handedOut = try scanFile(feed, state: "batch64", batch: 64)  // 0…63, 64…127, then the branch
        XCTAssertEqual(reorgs(handedOut), [[125, 2, 0]])
        XCTAssertEqual(received(handedOut).map(\.value), [1_000, 2_000, 3_000, 5_000])
        XCTAssertEqual(finalBalance(handedOut), [129, 6_000])
        let inOneBatch = try scanFile(feed, state: "batch50")  // 100…127 and the branch in one read
        XCTAssertEqual(reorgs(inOneBatch), [])
        XCTAssertEqual(received(inOneBatch).map(\.value), [1_000, 5_000])
        XCTAssertEqual(finalBalance(inOneBatch), [129, 6_000])
        // A block that is neither the next nor on a branch from a block read before.
        let stray = try file("stray", Array(a[0...5]) + [b[128]])
        XCTAssertThrowsError(try scanFile(stray, state: "stray")) { error in
            XCTAssertEqual(
                (error as? ScanError)?.message,
                "\(dir)/stray.jsonl line 7 is malformed: block 128 out of order (expected 6, or a block whose parent is a block read before, from the last 1000)"
            )
        }
    }
}

/// The mempool's spends (#42): a spend of the wallet's output, paying change back, left the
/// spent output in the balance; as the node's getbalances counts it, it leaves.
extension BitcoinScannerTests {
    private func mempoolRun(_ blocks: [BlockData], pool: [[UInt8]]) throws -> [ScanEvent] {
        let scanner = BitcoinScanner<BitcoinMainChain>(master: master(), network: network)
        let sync = try Synchronizer(
            wallets: [.init(name: nil, scanner: scanner, statePath: "\(dir)/pool.db", birthday: 0)],
            source: MemorySource(blocks, pool: pool))
        let sink = Sink()
        try sync.run(sink: sink)
        return sink.events.map(\.event).filter { if case .progress = $0 { false } else { true } }
    }

    func testAMempoolSpendLeavesTheBalance() throws {
        let (blocks, ids) = chain([
            [], [Tx(outputs: [(try script(account: 0, index: 0), 5_000), (try script(account: 0, index: 1), 700)])],
        ])
        let paid = ids[1][0]
        // Spends the 5,000: 1,900 to a stranger, 3,000 back to the change chain.
        let spend = serialize(
            Tx(inputs: [Bitcoin.outpoint(paid, 0)], outputs: [([0x51], 1_900), (try script(account: 0, chain: 1, index: 0), 3_000)]),
            coinbaseHeight: nil)
        let spendID = Bitcoin.sha256d(spend)
        let first = try mempoolRun(blocks, pool: [spend])
        let pendingSpent = first.compactMap { if case .pendingSpent(let s) = $0 { s } else { nil } }
        XCTAssertEqual(pendingSpent.map { [$0.spendingTxID, $0.outputTxID] }, [[spendID, paid]])
        XCTAssertEqual(pendingSpent.map(\.amount), [5_000])
        XCTAssertEqual(pendingSpent.map(\.outputIndex), [0])
        let pending = first.compactMap { if case .pending(let o) = $0 { o } else { nil } }
        XCTAssertEqual(pending.map(\.amount), [3_000])
        XCTAssertEqual(pending.map(\.isChange), [true])
        guard case .balance(let b)? = first.last else { return XCTFail("no balance") }
        // confirmed 700 (the 5,000 is spent), unconfirmed 3,000, total 3,700.
        XCTAssertEqual([b.unlocked, b.pending, b.total], [700, 3_000, 3_700])
        // The same mempool again: nothing reported twice, the same balance.
        let again = try mempoolRun(blocks, pool: [spend])
        XCTAssertEqual(again.count, 1)
        XCTAssertEqual(again.last, first.last)
        // A second mempool transaction spends the change on: it is no longer counted.
        let onward = serialize(Tx(inputs: [Bitcoin.outpoint(spendID, 1)], outputs: [([0x51], 2_900)]), coinbaseHeight: nil)
        guard case .balance(let chained)? = try mempoolRun(blocks, pool: [onward, spend]).last else { return XCTFail("no balance") }
        XCTAssertEqual([chained.unlocked, chained.pending, chained.total], [700, 0, 700])
        // The spend gone from the mempool (replaced, expired): the output is back.
        guard case .balance(let back)? = try mempoolRun(blocks, pool: []).last else { return XCTFail("no balance") }
        XCTAssertEqual([back.unlocked, back.pending, back.total], [5_700, 0, 5_700])
    }
}
