import Foundation
import SatchelTestSupport
import WalletCore
import Monero
import WalletKeys
import XCTest
@testable import WalletScan
import MoneroScan
import WalletCrypto

final class SynchronizerTests: XCTestCase {
    let fixture = TestPaths.fixture("monero-regtest").path
    var dir = ""

    override func setUpWithError() throws {
        dir = try temporaryDirectory("sync")
    }

    private var expected: [String: Any] { try! TestPaths.json(TestPaths.fixture("monero-regtest/expected.json")) as! [String: Any] }

    private func keys(viewOnly: Bool = false) throws -> MoneroKeys {
        let k = expected["keys"] as! [String: Any]
        let full = try MoneroKeys(spendSecret: try Hex.decodeSecret(k["private_spend_key"] as! String))
        return viewOnly ? try MoneroKeys(viewSecret: full.viewSecret, spendPublic: full.spendPublic) : full
    }

    private func source() throws -> MoneroFileBlockSource {
        try MoneroFileBlockSource(blocksPath: fixture + "/blocks.jsonl", transactionsPath: fixture + "/txs.jsonl")
    }

    private func scan(
        _ keys: MoneroKeys, state: String = "state.db", batch: Int = 50, maxBlocks: Int? = nil,
        sink: RecordingSink = RecordingSink()
    ) throws -> [ScanEvent] {
        let sync = try Synchronizer(
            wallets: [
                .init(
                    name: nil, scanner: MoneroScanner(keys: keys, network: .mainnet, lookahead: (3, 20)),
                    statePath: dir + "/" + state, birthday: 0)
            ], source: try source())
        sync.batchSize = batch
        let before = sink.delivered.count, shownBefore = sink.shown.count
        try sync.run(maxBlocks: maxBlocks, sink: sink)
        return Array(sink.delivered[before...]) + sink.shown[shownBefore...]
    }

    func testBalancesSpendsAndKeyImagesMatchTheWallet() throws {
        let events = try scan(try keys())
        let received = events.compactMap { if case .received(let o, _) = $0 { o } else { nil } }
        let spent = events.compactMap { if case .spent(let s, _) = $0 { s } else { nil } }
        let pending = events.compactMap { if case .pending(let o) = $0 { o } else { nil } }
        let incoming = expected["incoming_transfers"] as! [[String: Any]]
        XCTAssertEqual(received.count, incoming.count)
        XCTAssertEqual(pending.count, 1)
        for e in incoming {
            let o = try XCTUnwrap(
                received.first { Hex.encode($0.txID) == e["tx_hash"] as? String && $0.amount == (e["amount"] as? NSNumber)?.uint64Value })
            XCTAssertEqual(o.spendTag.map { Hex.encode($0) }, e["key_image"] as? String)
            XCTAssertEqual(o.height, e["block_height"] as? Int)
            let isSpent = spent.contains { $0.spendTag == o.spendTag }
            XCTAssertEqual(isSpent, e["spent"] as? Bool, "\(e["tx_hash"]!)")
        }
        XCTAssertEqual(spent.count, 3)
        guard case .balance(let balance)? = events.last else { return XCTFail("no balance") }
        let b = expected["get_balance_all_accounts"] as! [String: Any]
        XCTAssertEqual(balance.total, (b["balance"] as? NSNumber)?.uint64Value)
        XCTAssertEqual(balance.unlocked, (b["unlocked_balance"] as? NSNumber)?.uint64Value)
        XCTAssertEqual(balance.height, 163)
        XCTAssertTrue(balance.spendsKnown)
        // Per account as monero-wallet-rpc's get_balance(account_index) counts it, mempool
        // receipts included, so the accounts add up to the total.
        let perAccount = expected["get_balance_per_account"] as! [[String: Any]]
        XCTAssertEqual(balance.perAccount.keys.sorted(), perAccount.indices.map(UInt32.init))
        for (major, wallet) in perAccount.enumerated() {
            XCTAssertEqual(balance.perAccount[UInt32(major)]?.total, (wallet["balance"] as? NSNumber)?.uint64Value, "account \(major)")
            XCTAssertEqual(
                balance.perAccount[UInt32(major)]?.unlocked, (wallet["unlocked_balance"] as? NSNumber)?.uint64Value, "account \(major)")
        }
        XCTAssertEqual(balance.perAccount.values.map(\.total).reduce(0, +), balance.total)
    }

    func testViewOnlyFindsOutputsButNoSpends() throws {
        let events = try scan(try keys(viewOnly: true))
        XCTAssertEqual(events.filter { if case .received = $0 { true } else { false } }.count, 12)
        XCTAssertTrue(events.allSatisfy { if case .spent = $0 { false } else { true } })
        guard case .balance(let balance)? = events.last else { return XCTFail() }
        XCTAssertFalse(balance.spendsKnown)
    }

    /// A rerun reports nothing new; a scan cut into many short runs reports each event once.
    func testResumeReportsNothingTwice() throws {
        let full = try scan(try keys(), state: "a.db")
        let again = try scan(try keys(), state: "a.db")
        XCTAssertTrue(again.allSatisfy { if case .balance = $0 { true } else { false } }, "\(again)")
        var pieces = [ScanEvent]()
        for _ in 0..<40 { pieces += try scan(try keys(), state: "b.db", batch: 7, maxBlocks: 7) }
        let key: (ScanEvent) -> String? = {
            switch $0 {
            case .received(let o, _): "r" + Hex.encode(o.txID) + "\(o.index)"
            case .spent(let s, _): "s" + Hex.encode(s.spendTag)
            default: nil
            }
        }
        XCTAssertEqual(pieces.compactMap(key), full.compactMap(key))
        XCTAssertEqual(pieces.last, full.last)
    }

    /// The subaddress table is kept in the state, so a cron run does not derive it again.
    func testSubaddressTableIsCached() throws {
        _ = try scan(try keys(), state: "t.db")
        let store = try ScanStateStore(
            path: dir + "/t.db", walletID: Hex.encode(Keccak256.hash(try keys().spendPublic + (try keys()).viewPublic).prefix(16)),
            birthday: 0)
        let cached = try store.addresses()
        XCTAssertGreaterThanOrEqual(cached.count, 60)
        let detector = try MoneroDetector(keys: try keys(), majors: 3, minors: 20, cached: cached)
        var again = detector
        XCTAssertEqual(again.takeNewEntries().count, 0, "a cached table derives nothing")
        XCTAssertEqual(detector.tableSize, cached.count)
        XCTAssertEqual(Set(cached.map { "\($0.account),\($0.index)" }).count, cached.count, "each index is cached once")
    }

    /// A block that is not what the source claims: an error naming it, and nothing of its batch kept.
    /// Blocks go to a wallet's scanner in runs of several small blocks (so batched arithmetic
    /// fills its vectors); what each block gets back is exactly its own transactions' findings,
    /// nothing for a block that did not parse or that a wallet has scanned already.
    func testRunsOfBlocksGiveEachBlockItsOwnFindings() throws {
        let data = try source().blocks(from: 0, count: 200)
        var parsed = data.map { MoneroScanner.parse($0) }
        parsed[57] = .failure(.malformed(what: "block 57", reason: "a test's"))
        var scanner = MoneroScanner(keys: try keys(), network: .mainnet, lookahead: (3, 20))
        try scanner.prepare(cached: [])
        var other = MoneroScanner(
            keys: try MoneroKeys(spendSecret: SecureBytes([UInt8](repeating: 7, count: 31) + [0])), network: .mainnet, lookahead: (3, 20))
        try other.prepare(cached: [])
        let nexts = [0, 120]
        let findings = Synchronizer<MoneroScanner>.scanInRuns(parsed, heights: data.map(\.height), scanners: [scanner, other], from: nexts)
        var found = 0
        for (s, wallet) in [scanner, other].enumerated() {
            for (i, block) in parsed.enumerated() {
                guard case .success(let b) = block, data[i].height >= nexts[s] else {
                    XCTAssertNil(findings[s][i], "wallet \(s), block \(i)")
                    continue
                }
                let got = try XCTUnwrap(findings[s][i]).get()
                XCTAssertEqual(got, wallet.scan(b.transactions), "wallet \(s), block \(i)")
                found += got.joined().count
            }
        }
        XCTAssertGreaterThan(found, 5, "the wallet's outputs are among them")
        XCTAssertGreaterThan(Synchronizer<MoneroScanner>.minimumRun, 8)
    }

    func testBadBlockIsAnErrorAndNothingIsCommitted() throws {
        var lines = try String(contentsOfFile: fixture + "/blocks.jsonl", encoding: .utf8).split(separator: "\n").map(String.init)
        lines[71] = lines[71].replacingOccurrences(of: "\"hash\": \"", with: "\"hash\": \"00")
            .replacingOccurrences(of: "\"hash\":\"", with: "\"hash\":\"00")
        let bad = dir + "/bad.jsonl"
        try (lines.joined(separator: "\n") + "\n").write(toFile: bad, atomically: true, encoding: .utf8)
        let source = try MoneroFileBlockSource(blocksPath: bad, transactionsPath: fixture + "/txs.jsonl")
        let sync = try Synchronizer(
            wallets: [
                .init(
                    name: nil, scanner: MoneroScanner(keys: try keys(), network: .mainnet, lookahead: (3, 20)),
                    statePath: dir + "/bad.db", birthday: 0)
            ], source: source)
        let sink = RecordingSink()
        XCTAssertThrowsError(try sync.run(sink: sink)) { error in
            XCTAssertTrue("\(error)".contains("block 71"), "\(error)")
        }
        XCTAssertTrue(
            sink.delivered.allSatisfy { if case .received(let o, _) = $0 { o.height! < 50 } else { true } },
            "an output of the bad block's batch was reported")
    }

    /// The change of the wallet's own spends is marked, without the (foreign) payment id.
    func testChangeOfOwnSpendsIsMarked() throws {
        let received = try scan(try keys()).compactMap { if case .received(let o, _) = $0 { o } else { nil } }
        let change = received.filter(\.isChange).map { Hex.encode($0.txID).prefix(8) }.sorted()
        XCTAssertEqual(change, ["77ef3ae7", "f08c6f46"])
        XCTAssertTrue(received.filter(\.isChange).allSatisfy { $0.memo == nil })
        let viewOnly = try scan(try keys(viewOnly: true), state: "v.db").compactMap { if case .received(let o, _) = $0 { o } else { nil } }
        XCTAssertTrue(viewOnly.allSatisfy { !$0.isChange }, "a view-only wallet cannot tell change")
    }

    /// Wallets at different heights in one pass: the chain is fetched once, and each wallet
    /// gets exactly the events a scan of it alone gives, under its name.
    func testManyWalletsReadTheChainOnce() throws {
        let full = try scan(try keys(), state: "alone.db")
        let first = try scan(try keys(), state: "r.db", maxBlocks: 100)
        let stranger = try MoneroKeys(spendSecret: Ed25519Scalar.reduce32(Sodium.randomBytes(32)))
        let counting = CountingSource(try source())
        let sync = try Synchronizer(
            wallets: [
                .init(
                    name: "r", scanner: MoneroScanner(keys: try keys(), network: .mainnet, lookahead: (3, 20)), statePath: dir + "/r.db",
                    birthday: 0),
                .init(
                    name: "x", scanner: MoneroScanner(keys: stranger, network: .mainnet, lookahead: (3, 20)), statePath: dir + "/x.db",
                    birthday: 0),
            ], source: counting)
        let sink = RecordingSink()
        try sync.run(sink: sink)
        XCTAssertEqual(counting.fetched, Array(0..<163), "each block fetched once for both wallets")
        XCTAssertEqual(sync.status, .synced)
        let byWallet = Dictionary(grouping: sink.deliveredNamed, by: \.wallet)
        XCTAssertNil(byWallet["x"], "the stranger owns nothing")
        let rest = (byWallet["r"] ?? []).map(\.event)
        XCTAssertFalse(rest.isEmpty)
        // The mempool is reported at the end of every run, so the first run already had it.
        let confirmed: (ScanEvent) -> Bool = {
            switch $0 {
            case .balance, .pending: false;
            default: true
            }
        }
        let pending: (ScanEvent) -> Bool = { if case .pending = $0 { true } else { false } }
        XCTAssertEqual(first.filter(confirmed) + rest.filter(confirmed), full.filter(confirmed))
        XCTAssertEqual((first + rest).filter(pending), full.filter(pending))
        XCTAssertEqual(full.filter(pending).count, 1)
        XCTAssertEqual(sink.shownNamed.filter { $0.wallet == "r" }.map(\.event), [full.last!])
        guard case .balance(let empty)? = sink.shownNamed.first(where: { $0.wallet == "x" })?.event else {
            return XCTFail("no balance for x")
        }
        XCTAssertEqual(empty.total, 0)
        XCTAssertEqual(empty.height, 163)
    }

    /// A stream of chain files is read once, front to back; a block asked for again (a reorg
    /// check) reopens the files and finds the same block.
    func testFileSourceStreamsAndGoesBack() throws {
        let files = try source()
        let first = try files.blocks(from: 0, count: 100)
        XCTAssertEqual(first.map(\.height), Array(0..<100))
        let tail = try files.blocks(from: 150, count: 100)
        XCTAssertEqual(tail.map(\.height), Array(150..<163))
        XCTAssertEqual(try files.blocks(from: 163, count: 10).count, 0)
        let back = try files.blocks(from: 132, count: 1)
        XCTAssertEqual(back.first?.transactions.count, 2)
        XCTAssertEqual(
            back.first?.blob,
            first.count > 132
                ? first[132].blob
                : try MoneroFileBlockSource(blocksPath: fixture + "/blocks.jsonl", transactionsPath: fixture + "/txs.jsonl").blocks(
                    from: 132, count: 1
                ).first?.blob)
        XCTAssertEqual(try files.mempool().count, 1)
    }

    // MARK: - Delivery

    /// A run killed after writing its events but before recording that: on a file, the next
    /// run finds them there and writes none again; on a pipe, they come again (same ids).
    func testKilledAfterWritingRepeatsNothingOnAFile() throws {
        for file in [true, false] {
            let sink = RecordingSink(isFile: file)
            sink.dieAfterWriting = 2  // the second write reaches the file, then the run dies
            XCTAssertThrowsError(try scan(try keys(), state: "k\(file).db", sink: sink))
            sink.dieAfterWriting = nil
            _ = try scan(try keys(), state: "k\(file).db", sink: sink)
            let full = try scan(try keys(), state: "clean\(file).db")
            let ids = sink.deliveredIDs
            if file {
                XCTAssertEqual(ids, Array(1...Int64(ids.count)), "each event once, in order")
            } else {
                XCTAssertGreaterThan(ids.count, Set(ids).count, "a pipe cannot be read back: at least once")
            }
            XCTAssertEqual(Set(ids).count, full.filter { if case .balance = $0 { false } else { true } }.count)
        }
    }

    /// A write cut short (a full disk, a kill inside write): the next run writes only the rest.
    func testPartialWriteIsCompleted() throws {
        let sink = RecordingSink(isFile: true)
        sink.cutWriteAt = 150
        XCTAssertThrowsError(try scan(try keys(), state: "p.db", sink: sink))
        XCTAssertEqual(sink.file.count, 150)
        sink.cutWriteAt = nil
        _ = try scan(try keys(), state: "p.db", sink: sink)
        XCTAssertEqual(sink.deliveredIDs, Array(1...Int64(sink.deliveredIDs.count)))
        XCTAssertEqual(sink.delivered.count, 16)  // 12 received, 3 spent, 1 pending
    }

    /// A file changed behind the scanner's back (truncated, replaced): the events come again.
    func testChangedFileGetsTheEventsAgain() throws {
        let sink = RecordingSink(isFile: true)
        sink.dieAfterWriting = 1
        XCTAssertThrowsError(try scan(try keys(), state: "c.db", sink: sink))
        let lost = sink.file.count
        XCTAssertGreaterThan(lost, 0)
        sink.file.removeAll()  // the user truncated the file
        sink.dieAfterWriting = nil
        _ = try scan(try keys(), state: "c.db", sink: sink)
        XCTAssertEqual(sink.deliveredIDs.first, 1, "the events of the truncated write were written again")
    }
}

/// An event sink in memory: a "file" that can be read back (or a pipe that cannot), and a way
/// to make a run die during or after a write, as a kill would.
final class CountingSource: BlockSource, @unchecked Sendable {
    let inner: BlockSource
    private let lock = NSLock()
    private var heights = [Int]()
    init(_ inner: BlockSource) { self.inner = inner }
    var fetched: [Int] { lock.withLock { heights } }
    func chainHeight() throws -> Int? { try inner.chainHeight() }
    func blocks(from height: Int, count: Int) throws -> [BlockData] {
        let blocks = try inner.blocks(from: height, count: count)
        lock.withLock { heights += blocks.map(\.height) }
        return blocks
    }
    func mempool() throws -> [[UInt8]] { try inner.mempool() }
}

final class RecordingSink: EventSink {
    let isFile: Bool
    var file = [UInt8]()
    var shown = [ScanEvent]()
    var byID = [Int64: ScanEvent]()
    var walletOf = [Int64: String]()
    var shownNamed = [(wallet: String?, event: ScanEvent)]()
    var writes = 0
    var dieAfterWriting: Int?
    var cutWriteAt: Int?

    init(isFile: Bool = true) { self.isFile = isFile }

    struct Killed: Error {}

    func encode(_ event: ScanEvent, wallet: String?, id: Int64) -> [UInt8] {
        // Ids are per wallet state: a wallet's name in the line keeps them apart.
        let key = Int64(walletIndex(wallet)) << 40 | id
        byID[key] = event
        walletOf[key] = wallet
        return Array("{\"event_id\":\(key)}\n".utf8)
    }

    func write(_ bytes: [UInt8]) throws {
        if let cut = cutWriteAt, file.count + bytes.count > cut {
            file += bytes.prefix(cut - file.count)
            throw Killed()
        }
        file += bytes
        writes += 1
        if writes == dieAfterWriting { throw Killed() }
    }

    func show(_ event: ScanEvent, wallet: String?) throws {
        if case .progress = event { return }
        shown.append(event)
        shownNamed.append((wallet, event))
    }

    func position() throws -> SinkPosition? { isFile ? SinkPosition(device: 1, inode: 1, offset: Int64(file.count)) : nil }

    func contents(at position: SinkPosition, count: Int) throws -> (bytes: [UInt8], end: Int64)? {
        guard isFile else { return nil }
        let start = min(Int(position.offset), file.count)
        return (Array(file[start..<min(file.count, start + count)]), Int64(file.count))
    }

    /// The ids of the complete lines written, in order.
    var deliveredIDs: [Int64] {
        String(decoding: file, as: UTF8.self).split(separator: "\n").compactMap { line in
            line.hasSuffix("}") ? Int64(line.dropFirst(12).dropLast()) : nil
        }
    }

    var delivered: [ScanEvent] { deliveredIDs.compactMap { byID[$0] } }
    var deliveredNamed: [(wallet: String?, event: ScanEvent)] { deliveredIDs.compactMap { id in byID[id].map { (walletOf[id], $0) } } }

    private var walletNames = [String?]()
    private func walletIndex(_ name: String?) -> Int {
        if let i = walletNames.firstIndex(of: name) { return i }
        walletNames.append(name)
        return walletNames.count - 1
    }
}
