import Foundation
import SatchelTestSupport
import WalletCore
import WalletKeys
import XCTest
@testable import WalletScan

final class SynchronizerTests: XCTestCase {
    let fixture = TestPaths.fixture("monero-regtest").path
    var dir = ""

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-sync-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    private var expected: [String: Any] { try! TestPaths.json(TestPaths.fixture("monero-regtest/expected.json")) as! [String: Any] }

    private func keys(viewOnly: Bool = false) throws -> MoneroKeys {
        let k = expected["keys"] as! [String: Any]
        let full = try MoneroKeys(spendSecret: try Hex.decodeSecret(k["private_spend_key"] as! String))
        return viewOnly ? try MoneroKeys(viewSecret: full.viewSecret, spendPublic: full.spendPublic) : full
    }

    private func source() throws -> FileBlockSource {
        try FileBlockSource(blocksPath: fixture + "/blocks.jsonl", transactionsPath: fixture + "/txs.jsonl")
    }

    private func scan(_ keys: MoneroKeys, state: String = "state.db", batch: Int = 50, maxBlocks: Int? = nil) throws -> [ScanEvent] {
        let sync = try MoneroSynchronizer(keys: keys, source: try source(), statePath: dir + "/" + state, birthday: 0,
                                          lookahead: (3, 20))
        sync.batchSize = batch
        var events = [ScanEvent]()
        try sync.run(maxBlocks: maxBlocks) { if case .progress = $0 {} else { events.append($0) } }
        return events
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
            let o = try XCTUnwrap(received.first { Hex.encode($0.txID) == e["tx_hash"] as? String && $0.amount == (e["amount"] as? NSNumber)?.uint64Value })
            XCTAssertEqual(o.keyImage.map { Hex.encode($0) }, e["key_image"] as? String)
            XCTAssertEqual(o.height, e["block_height"] as? Int)
            let isSpent = spent.contains { $0.keyImage == o.keyImage }
            XCTAssertEqual(isSpent, e["spent"] as? Bool, "\(e["tx_hash"]!)")
        }
        XCTAssertEqual(spent.count, 3)
        guard case .balance(let balance)? = events.last else { return XCTFail("no balance") }
        let b = expected["get_balance_all_accounts"] as! [String: Any]
        XCTAssertEqual(balance.total, (b["balance"] as? NSNumber)?.uint64Value)
        XCTAssertEqual(balance.unlocked, (b["unlocked_balance"] as? NSNumber)?.uint64Value)
        XCTAssertEqual(balance.height, 163)
        XCTAssertTrue(balance.spendsKnown)
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
            case .spent(let s, _): "s" + Hex.encode(s.keyImage)
            default: nil
            }
        }
        XCTAssertEqual(pieces.compactMap(key), full.compactMap(key))
        XCTAssertEqual(pieces.last, full.last)
    }

    /// The subaddress table is kept in the state, so a cron run does not derive it again.
    func testSubaddressTableIsCached() throws {
        _ = try scan(try keys(), state: "t.db")
        let store = try ScanStateStore(path: dir + "/t.db", walletID: Hex.encode(Keccak256.hash(try keys().spendPublic + (try keys()).viewPublic).prefix(16)), birthday: 0)
        let cached = try store.subaddresses()
        XCTAssertGreaterThanOrEqual(cached.count, 60)
        let detector = try MoneroDetector(keys: try keys(), majors: 3, minors: 20, cached: cached)
        var again = detector
        XCTAssertEqual(again.takeNewEntries().count, 0, "a cached table derives nothing")
        XCTAssertEqual(detector.tableSize, cached.count)
        XCTAssertEqual(Set(cached.map { "\($0.major),\($0.minor)" }).count, cached.count, "each index is cached once")
    }

    /// A block that is not what the source claims: an error naming it, and nothing of its batch kept.
    func testBadBlockIsAnErrorAndNothingIsCommitted() throws {
        var lines = try String(contentsOfFile: fixture + "/blocks.jsonl", encoding: .utf8).split(separator: "\n").map(String.init)
        lines[71] = lines[71].replacingOccurrences(of: "\"hash\": \"", with: "\"hash\": \"00")
            .replacingOccurrences(of: "\"hash\":\"", with: "\"hash\":\"00")
        let bad = dir + "/bad.jsonl"
        try (lines.joined(separator: "\n") + "\n").write(toFile: bad, atomically: true, encoding: .utf8)
        let source = try FileBlockSource(blocksPath: bad, transactionsPath: fixture + "/txs.jsonl")
        let sync = try MoneroSynchronizer(keys: try keys(), source: source, statePath: dir + "/bad.db", birthday: 0, lookahead: (3, 20))
        var events = [ScanEvent]()
        XCTAssertThrowsError(try sync.run { events.append($0) }) { error in
            XCTAssertTrue("\(error)".contains("block 71"), "\(error)")
        }
        XCTAssertTrue(events.allSatisfy { if case .received = $0 { false } else { true } }, "the coinbase at 71 was reported")
    }
}
