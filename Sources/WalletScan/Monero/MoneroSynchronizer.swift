import Foundation
import WalletCore
import WalletKeys

/// The Wallet Synchronizer for Monero: source → parser → detector → state, in batches, each
/// one SQLite transaction; events are written after their batch is committed.
public final class MoneroSynchronizer {
    public private(set) var status = SyncStatus.unprepared
    private var detector: MoneroDetector
    private let spendSecret: SecureBytes?
    private let source: BlockSource
    private let state: ScanStateStore
    private let birthday: Int
    private let growthMargin: UInt32
    public var batchSize = 50

    /// `statePath` is the wallet's SQLite file; `birthday` the first height that can hold its
    /// outputs (never guessed). Without `spendSecret` spends are unknown (view-only).
    public init(keys: MoneroKeys, source: BlockSource, statePath: String, birthday: Int,
                lookahead: (majors: UInt32, minors: UInt32) = MoneroDetector.defaultLookahead) throws {
        // The table grows when an output lands within this many indexes of its edge.
        growthMargin = min(lookahead.majors, lookahead.minors, 50)
        spendSecret = keys.spendSecret
        self.source = source
        self.birthday = birthday
        let walletID = Hex.encode(Keccak256.hash(keys.spendPublic + keys.viewPublic).prefix(16))
        state = try ScanStateStore(path: statePath, walletID: walletID, birthday: birthday)
        detector = try MoneroDetector(keys: keys, majors: lookahead.majors, minors: lookahead.minors, cached: try state.subaddresses())
        try growForKnownOutputs()
        let derived = detector.takeNewEntries()
        if !derived.isEmpty { try state.db.transaction { try state.addSubaddresses(derived) } }
    }

    private func growForKnownOutputs() throws {
        for row in try state.allOutputs() { try detector.noteUsed(major: row.output.major, minor: row.output.minor, margin: growthMargin) }
    }

    /// Forgets every scanned block, output and spend (not the subaddress table), so the next
    /// run scans again from the birthday and reports everything again: like Monero's
    /// rescan_blockchain. Undelivered events go too; the rescan reports them again.
    public func resetToBirthday() throws {
        try state.db.transaction {
            _ = try state.rollBack(above: birthday - 1)
            try state.delivered(through: Int64.max)
            try state.db.query("DELETE FROM pending_reported")
        }
    }

    /// Scans from the last committed height to the tip (or `untilHeight`, or `maxBlocks`
    /// blocks), then reports the mempool and the balance. Each batch's events are committed
    /// with its state and delivered to `sink` after the commit (see `ScanStateStore.deliver`).
    public func run(untilHeight: Int? = nil, maxBlocks: Int? = nil, sink: EventSink) throws {
        status = .syncing
        defer { if status == .syncing { status = .stopped } }
        try state.deliver(to: sink)  // events a killed run committed but did not deliver
        let chainHeight = try source.chainHeight()
        let end = min(chainHeight, untilHeight.map { $0 + 1 } ?? Int.max)
        var next = try state.nextHeight
        var budget = maxBlocks ?? Int.max
        var prefetch: Prefetch?
        defer { prefetch?.wait() }  // no fetch outlives the run
        while next < end && budget > 0 {
            let count = min(batchSize, end - next, budget)
            let blocks = try prefetch?.take(from: next, count: count) ?? source.blocks(from: next, count: count)
            guard !blocks.isEmpty else { break }
            // The node answers the next batch while this one is scanned.
            let following = blocks.last!.height + 1
            let followingCount = min(batchSize, end - following, budget - blocks.count)
            prefetch = followingCount > 0 ? Prefetch(source, from: following, count: followingCount) : nil
            var fork: Int?
            // Parsing, id checks and trial decryption run on every core; the state is then
            // changed in block order, in one transaction.
            var prepared = Self.parallelMap(blocks) { [detector] in Self.prepare($0, detector: detector) }
            try state.db.transaction {
                var events = [(height: Int, event: ScanEvent)]()
                for i in blocks.indices {
                    let scanned = try prepared[i].get()
                    if let point = try forkPoint(before: blocks[i], previousID: scanned.block.previousID) {
                        let undone = try state.rollBack(above: point)
                        fork = point
                        events = [(point, .reorg(forkHeight: point, undoneOutputs: undone.outputs, undoneSpends: undone.spends))]
                        break
                    }
                    if try apply(scanned, into: &events) {
                        // The subaddress table grew: scan the rest of the batch again with it.
                        for j in (i + 1)..<blocks.count {
                            if case .success(let later) = prepared[j] { prepared[j] = .success(later.rescanned(with: detector)) }
                        }
                    }
                }
                if fork == nil {
                    try state.addSubaddresses(detector.takeNewEntries())
                    try state.setNextHeight(blocks.last!.height + 1)
                }
                let walletHeight = try state.nextHeight
                try state.enqueue(events) { event, id in sink.encode(event.confirmed(atWalletHeight: walletHeight), id: id) }
            }
            try state.deliver(to: sink)
            if let fork {
                next = fork + 1
                continue
            }
            budget -= blocks.count
            next = blocks.last!.height + 1
            try sink.show(.progress(height: next, chainHeight: chainHeight))
        }
        let walletHeight = try state.nextHeight
        try reportPending(sink)
        try sink.show(.balance(try balance(walletHeight: walletHeight)))
        status = walletHeight >= chainHeight ? .synced : .stopped
    }

    /// nil when `data` extends the stored chain; else the highest height both agree on.
    private func forkPoint(before data: BlockData, previousID: [UInt8]) throws -> Int? {
        guard data.height > birthday, let stored = try state.blockHash(data.height - 1), previousID != stored else { return nil }
        var k = data.height - 1
        while k >= birthday {
            guard let mine = try state.blockHash(k) else { break }
            let theirs = try source.blocks(from: k, count: 1).first.map { try MoneroBlock(blob: $0.blob).id }
            if theirs == mine { return k }
            k -= 1
        }
        return birthday - 1
    }

    /// A block parsed, checked and scanned; nothing of the state touched yet.
    struct ScannedBlock: Sendable {
        let height: Int
        let block: MoneroBlock
        let transactions: [MoneroTransaction]
        let found: [[MoneroOwnedOutput]]

        func rescanned(with detector: MoneroDetector) -> ScannedBlock {
            ScannedBlock(height: height, block: block, transactions: transactions, found: transactions.map(detector.scan))
        }
    }

    static func prepare(_ data: BlockData, detector: MoneroDetector) -> Result<ScannedBlock, ScanError> {
        let what = "block \(data.height)"
        let block: MoneroBlock
        do { block = try MoneroBlock(blob: data.blob) } catch {
            return .failure(.malformed(what: what, reason: error.message))
        }
        if let claimed = data.claimedID, claimed != block.id {
            return .failure(.hashMismatch(what: what, expected: Hex.encode(claimed), computed: Hex.encode(block.id)))
        }
        guard block.transactionIDs.count == data.transactions.count else {
            return .failure(.malformed(what: what, reason: "lists \(block.transactionIDs.count) transactions, the source gave \(data.transactions.count)"))
        }
        var txs = [block.minerTransaction]
        for (i, blob) in data.transactions.enumerated() {
            let tx: MoneroTransaction
            do { tx = try MoneroTransaction(blob: blob) } catch {
                return .failure(.malformed(what: "\(what), transaction \(i)", reason: error.message))
            }
            guard tx.id == block.transactionIDs[i] else {
                return .failure(.hashMismatch(what: "\(what), transaction \(i)", expected: Hex.encode(block.transactionIDs[i]), computed: Hex.encode(tx.id)))
            }
            txs.append(tx)
        }
        return .success(ScannedBlock(height: data.height, block: block, transactions: txs, found: txs.map(detector.scan)))
    }

    /// Stores a scanned block: its hash, the spends of owned outputs, the outputs found; their
    /// events go to `events`. Returns whether the subaddress table grew.
    private func apply(_ scanned: ScannedBlock, into events: inout [(height: Int, event: ScanEvent)]) throws -> Bool {
        try state.addBlock(scanned.height, hash: scanned.block.id)
        let before = detector.tableSize
        for (tx, found) in zip(scanned.transactions, scanned.found) {
            var spendsOurs = false
            if spendSecret != nil {
                for input in tx.inputs {
                    guard let image = input.keyImage,
                          let o = try state.markSpent(keyImage: image, height: scanned.height, txID: tx.id) else { continue }
                    let spent = SpentOutput(height: scanned.height, spendingTxID: tx.id, keyImage: image, outputTxID: o.txID,
                                            outputIndex: o.index, amount: o.amount, major: o.major, minor: o.minor)
                    events.append((scanned.height, .spent(spent, confirmations: 0)))
                    spendsOurs = true
                }
            }
            for output in found {
                var o = received(output, height: scanned.height)
                if spendsOurs {
                    // Change: the payment id was encrypted for the payee, so ours would be noise.
                    o = ReceivedOutput(height: o.height, txID: o.txID, index: o.index, amount: o.amount, major: o.major, minor: o.minor,
                                       paymentID: nil, keyImage: o.keyImage, unlockTime: o.unlockTime, isCoinbase: o.isCoinbase, isChange: true)
                }
                try state.addOutput(o, outputKey: output.outputKey)
                events.append((scanned.height, .received(o, confirmations: 0)))
                try detector.noteUsed(major: output.major, minor: output.minor, margin: growthMargin)
            }
        }
        return detector.tableSize != before
    }

    /// One batch being fetched on another thread.
    final class Prefetch: @unchecked Sendable {  // `result` is written once, before `done` is signalled
        let from: Int, count: Int
        private var result: Result<[BlockData], any Error>?
        private let done = DispatchSemaphore(value: 0)

        init(_ source: BlockSource, from: Int, count: Int) {
            self.from = from
            self.count = count
            DispatchQueue.global().async { [self] in
                result = Result { try source.blocks(from: from, count: count) }
                done.signal()
            }
        }

        /// The fetched blocks if they are the ones asked for (nil otherwise: after a reorg).
        func take(from: Int, count: Int) throws -> [BlockData]? {
            wait()
            guard from == self.from, count == self.count else { return nil }
            return try result!.get()
        }

        func wait() {
            done.wait()
            done.signal()
        }
    }

    /// `transform` over `items` on all cores, results in order.
    static func parallelMap<T: Sendable, R>(_ items: [T], _ transform: @Sendable (T) -> R) -> [R] {
        var results = [R?](repeating: nil, count: items.count)
        results.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let out = buffer
            DispatchQueue.concurrentPerform(iterations: items.count) { i in out[i] = transform(items[i]) }
        }
        return results.map { $0! }
    }

    private func received(_ o: MoneroOwnedOutput, height: Int?) -> ReceivedOutput {
        ReceivedOutput(height: height, txID: o.txID, index: o.outputIndex, amount: o.amount, major: o.major, minor: o.minor,
                       paymentID: o.paymentID, keyImage: o.keyImage, unlockTime: o.unlockTime, isCoinbase: o.isCoinbase)
    }

    /// Mempool receipts per account (major index), counted in the total and in their
    /// account's balance, as monero-wallet-rpc's get_balance does.
    private var pendingIncoming = [UInt32: UInt64]()

    /// Mempool receipts: all count in the balance; each is reported once, through the outbox.
    private func reportPending(_ sink: EventSink) throws {
        pendingIncoming = [:]
        var fresh = [(height: Int, event: ScanEvent)]()
        for blob in try source.mempool() {
            guard let tx = try? MoneroTransaction(blob: blob) else { continue }
            for found in detector.scan(tx) {
                let o = received(found, height: nil)
                pendingIncoming[o.major, default: 0] += o.amount
                // Height -1: no block holds it, so no reorg undoes it.
                if try !state.pendingAlreadyReported(o.txID, o.index) { fresh.append((-1, .pending(o))) }
            }
        }
        guard !fresh.isEmpty else { return }
        try state.db.transaction {
            for case (_, .pending(let o)) in fresh { try state.notePendingReported(o.txID, o.index) }
            try state.enqueue(fresh) { event, id in sink.encode(event, id: id) }
        }
        try state.deliver(to: sink)
    }

    /// Monero's rules: an output is unlocked 10 blocks deep and once its unlock_time (a height
    /// below 500,000,000, else a Unix time) has passed. The total includes mempool receipts.
    private func balance(walletHeight: Int) throws -> Balance {
        var total = pendingIncoming.values.reduce(0, +), unlocked: UInt64 = 0
        var accounts = pendingIncoming.mapValues { (total: $0, unlocked: UInt64(0)) }
        for row in try state.allOutputs() where row.spentHeight == nil {
            let o = row.output
            let height = o.height ?? walletHeight
            let deep = height + 10 <= walletHeight
            let timeOK: Bool = o.unlockTime == 0 || (o.unlockTime < 500_000_000
                ? UInt64(walletHeight) >= o.unlockTime
                : UInt64(Date().timeIntervalSince1970) + 120 >= o.unlockTime)
            let free = deep && timeOK
            total += o.amount
            if free { unlocked += o.amount }
            let previous = accounts[o.major] ?? (0, 0)
            accounts[o.major] = (previous.total + o.amount, previous.unlocked + (free ? o.amount : 0))
        }
        return Balance(height: walletHeight, total: total, unlocked: unlocked, perAccount: accounts, spendsKnown: spendSecret != nil)
    }
}
