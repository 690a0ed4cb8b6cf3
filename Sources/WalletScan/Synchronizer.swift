import Foundation
import WalletCore

/// The Wallet Synchronizer: source → chain parser → each wallet's detector → each wallet's
/// state, in batches. The chain is read and parsed once for every wallet; each wallet's batch
/// is one SQLite transaction of its own state, and its events are written after the commit.
/// It knows no chain: `Chain` supplies parsing, detection and lock rules.
public final class Synchronizer<Chain: ChainScanner> {
    /// A wallet to keep current: its detector, its state file and its birthday (the first
    /// height that can hold its outputs, never guessed). `name` goes into its events.
    public struct Wallet {
        public let name: String?
        public let scanner: Chain
        public let statePath: String
        public let birthday: Int
        /// Called with the blocks each batch stores, in order, before the batch commits: what
        /// is written of them (tweak records) is never behind the state. A block may be given
        /// again (a killed run's batch, a reorg's new branch from the fork on).
        public var stored: (([(height: Int, block: Chain.Block)]) throws -> Void)?

        public init(name: String?, scanner: Chain, statePath: String, birthday: Int) {
            self.name = name
            self.scanner = scanner
            self.statePath = statePath
            self.birthday = birthday
        }
    }

    final class Slot {
        let name: String?
        var scanner: Chain
        let state: ScanStateStore
        let birthday: Int
        let stored: (([(height: Int, block: Chain.Block)]) throws -> Void)?
        /// Mempool receipts per account, counted in the balance as monero-wallet-rpc does.
        var pendingIncoming = [UInt32: UInt64]()
        /// The spend tags of stored outputs a mempool transaction spends: left out of the balance.
        var pendingSpent = Set<[UInt8]>()
        /// The spend tags of the wallet's unspent outputs, so that the inputs of other people's
        /// transactions (nearly all) cost no query.
        var unspentTags = FilteredByteSet()

        func loadUnspentTags(_ rows: [ScanStateStore.Row]? = nil) throws {
            unspentTags = FilteredByteSet(try (rows ?? state.allOutputs()).filter { $0.spentHeight == nil }.compactMap(\.output.spendTag))
        }

        init(_ wallet: Wallet) throws {
            name = wallet.name
            scanner = wallet.scanner
            birthday = wallet.birthday
            stored = wallet.stored
            state = try ScanStateStore(
                path: wallet.statePath, walletID: wallet.scanner.stateID, birthday: wallet.birthday,
                pools: wallet.scanner.addedPools.map(\.name))
            try scanner.prepare(cached: try state.addresses())
            let rows = try state.allOutputs()
            for row in rows { _ = try scanner.noteStored(row.output) }
            let derived = scanner.takeNewAddresses()
            if !derived.isEmpty { try state.db.transaction { try state.addAddresses(derived) } }
            try loadUnspentTags(rows)
            _ = try state.nextHeight  // kept, so that a run of many wallets need not reopen each state to ask
        }

        /// Runs `body` on the state, then closes it when `suspend` (many wallets).
        func using<T>(suspend: Bool, _ body: () throws -> T) rethrows -> T {
            defer { if suspend { state.db.suspend() } }
            return try body()
        }
    }

    func countUnread(_ parsed: [Result<Chain.Block, ScanError>]) {
        for case .success(let block) in parsed where block.unreadParts > 0 && blocksWithUnreadParts.insert(block.id).inserted {
            unreadBlockParts += block.unreadParts
        }
    }

    public private(set) var status = SyncStatus.unprepared
    /// Mempool transactions the last run could not parse, and so did not read: a payment among
    /// them is not shown (the caller says so).
    public private(set) var mempoolUnread = 0
    /// Mempool transactions a wallet of the last run could not look into wholly (the chain's
    /// `unseenInMempool`): a pending payment in them is not shown (the caller says so).
    public private(set) var mempoolUnseen = 0
    /// Parts of blocks (`ChainBlock.unreadParts`) this synchronizer has parsed and could not
    /// wholly read, each block counted once however often it is parsed (a reorg, a catch-up):
    /// a later upgrade's data whose payments a balance may miss (the caller says so).
    public private(set) var unreadBlockParts = 0
    var blocksWithUnreadParts = Set<[UInt8]>()
    let source: BlockSource
    let slots: [Slot]
    public var batchSize = 50
    /// Whether the first batches are small, doubling up to `batchSize`, for a chain of
    /// `bigBlocks`: the first batch is read before anything can be scanned (later ones are read
    /// while the one before is scanned). Off by default: events carry the confirmations at their
    /// batch's end, which tests hold.
    public var rampsUp = false
    /// Reorgs one synchronizer (one scan-blocks process, --follow's polls included) may
    /// follow, and how deep one may go. A real chain reorganizes rarely and
    /// shallowly (Monero's deepest in years: tens of blocks; Zcash's: a few); a source that
    /// serves another chain on every call would otherwise make a run go back and re-report the
    /// same payments forever. Past either bound the run stops (`ScanError.reorgLimit`, 76)
    /// with what it committed kept.
    public var maxReorgsPerRun = 10
    public var maxReorgDepth = 1_000
    var reorgs = 0

    public init(wallets: [Wallet], source: BlockSource) throws {
        precondition(!wallets.isEmpty, "a synchronizer needs a wallet")
        self.source = source
        let suspend = wallets.count > WalletInitializer.statesKeptOpen
        slots = try wallets.map { wallet in
            let slot = try Slot(wallet)
            if suspend { slot.state.db.suspend() }
            return slot
        }
        suspendStates = suspend
    }

    /// Whether each state is closed after its use (more wallets than `statesKeptOpen`).
    let suspendStates: Bool

    /// Forgets every scanned block, output and spend of every wallet (not the address
    /// table), so the next run scans again from each birthday and reports everything again:
    /// like Monero's rescan_blockchain. Undelivered events go too; the rescan reports them.
    public func resetToBirthday() throws {
        for slot in slots {
            try slot.using(suspend: suspendStates) {
                try slot.state.db.transaction {
                    _ = try slot.state.rollBack(above: slot.birthday - 1)
                    try slot.state.delivered(through: Int64.max)
                    try slot.state.db.query("DELETE FROM pending_reported")
                }
                try slot.loadUnspentTags()
            }
        }
    }

    /// Scans every wallet from its last committed height to the tip (or `untilHeight`, or
    /// `maxBlocks` blocks), then reports the mempool and each balance. Each batch's events
    /// are committed with its state and delivered to `sink` after the commit.
    public func run(untilHeight: Int? = nil, maxBlocks: Int? = nil, sink: EventSink) throws {
        status = .syncing
        defer { if status == .syncing { status = .stopped } }
        // What a killed run committed but did not deliver.
        for slot in slots { try slot.using(suspend: suspendStates) { try slot.state.deliver(to: sink) } }
        for slot in slots { try slot.using(suspend: suspendStates) { try catchUp(slot, sink: sink) } }
        let chainHeight = try source.chainHeight()
        let end = min(chainHeight ?? Int.max, untilHeight.map { $0 + 1 } ?? Int.max)
        var budget = maxBlocks ?? Int.max
        var exhausted = false
        var prefetch: Prefetch?
        defer { prefetch?.wait() }  // no fetch outlives the run
        var size = rampsUp && Chain.bigBlocks ? min(batchSize, 4) : batchSize
        while budget > 0 {
            var nexts = try slots.map { slot in try slot.using(suspend: suspendStates) { try slot.state.nextHeight } }
            let next = nexts.min()!
            guard next < end else { break }
            let count = min(size, end - next, budget)
            size = min(batchSize, size * 2)
            let blocks = try prefetch?.take(from: next, count: count) ?? source.blocks(from: next, count: count)
            guard let first = blocks.first else {
                exhausted = true
                break
            }
            // A file may begin below the height asked for, or switch to a branch from a block
            // it gave before: its blocks below `next` are what the stored chain is held to.
            guard first.height <= next, zip(blocks, blocks.dropFirst()).allSatisfy({ $0.height + 1 == $1.height }) else {
                throw ScanError.malformed(
                    what: "the block source", reason: "asked for blocks from \(next), it gave \(blocks.map(\.height).prefix(3))…")
            }
            // The source reads the next batch while this one is scanned.
            let following = blocks.last!.height + 1
            let followingCount = min(size, end - following, budget - blocks.count)
            prefetch = followingCount > 0 && following >= next ? Prefetch(source, from: following, count: followingCount) : nil

            // On every core: each block parsed and checked once, then trial-decrypted by each
            // wallet that needs it. Then each wallet's state, in block order, in its own transaction.
            let parsed = ParallelMap.map(blocks) { Chain.parse($0) }
            countUnread(parsed)
            if first.height < next {
                var forked = false
                for slot in slots {
                    if try rewind(slot, to: blocks, parsed: parsed, sink: sink) { forked = true }
                }
                if forked { reorgs += 1 }
                nexts = try slots.map { slot in try slot.using(suspend: suspendStates) { try slot.state.nextHeight } }
                // Only blocks the wallets hold already (the file's last one, or a branch that
                // agrees): nothing more to read.
                guard blocks.last!.height >= nexts.min()! else {
                    exhausted = true
                    break
                }
            }
            let findings = Self.scanInRuns(parsed, heights: blocks.map(\.height), scanners: slots.map(\.scanner), from: nexts)
            var forked = false
            // A wallet whose fork lies below this batch reads its blocks in the next one.
            for (s, slot) in slots.enumerated() where nexts[s] <= blocks.last!.height && nexts[s] >= first.height {
                if try slot.using(
                    suspend: suspendStates,
                    { try apply(blocks: blocks, parsed: parsed, found: findings[s], from: nexts[s], to: slot, sink: sink) })
                {
                    forked = true
                }
            }
            if forked {  // a wallet rolled back: its next batch starts at the fork
                reorgs += 1
                continue
            }
            budget -= blocks.count
            try sink.show(.progress(height: following, chainHeight: chainHeight), wallet: nil)
        }
        var synced = true
        let raw = try source.mempoolTransactions()
        let pool = raw.compactMap { Chain.parseTransaction($0) }
        mempoolUnread = raw.count - pool.count
        mempoolUnseen = slots.map { $0.scanner.unseenInMempool(pool) }.max() ?? 0
        for slot in slots {
            let walletHeight = try slot.using(suspend: suspendStates) {
                let walletHeight = try slot.state.nextHeight
                try reportPending(pool, slot: slot, sink: sink)
                try sink.show(.balance(try balance(of: slot, walletHeight: walletHeight)), wallet: slot.name)
                return walletHeight
            }
            if let chainHeight { synced = synced && walletHeight >= chainHeight } else { synced = synced && exhausted }
        }
        status = synced ? .synced : .stopped
    }

    /// One batch being fetched on another thread.
    final class Prefetch: Sendable {
        let from: Int, count: Int
        private let fetch: BackgroundTask<[BlockData]>

        init(_ source: BlockSource, from: Int, count: Int) {
            self.from = from
            self.count = count
            fetch = BackgroundTask { try source.blocks(from: from, count: count) }
        }

        /// The fetched blocks if they are the ones asked for (nil otherwise: after a reorg).
        func take(from: Int, count: Int) throws -> [BlockData]? {
            wait()
            guard from == self.from, count == self.count else { return nil }
            return try fetch.get()
        }

        func wait() { fetch.wait() }
    }
}

extension Synchronizer {
    /// Each wallet's findings per block (nil where a block did not parse or lies below the
    /// wallet's next height). Consecutive blocks go to a wallet's scanner together, in runs of
    /// at least `minimumRun` transactions where the batch has them, so that a chain that batches
    /// its arithmetic (Monero's 8-lane ladder, Orchard's shared inversions) fills its batches
    /// when blocks are small; the runs of every wallet spread over the cores. A run that throws
    /// is scanned again block by block, so that the error names its own block.
    static func scanInRuns(
        _ parsed: [Result<Chain.Block, ScanError>], heights: [Int], scanners: [Chain],
        from nexts: [Int]
    ) -> [[Result<[[ReceivedOutput]], ScanError>?]] {
        typealias Found = Result<[[ReceivedOutput]], ScanError>
        let blocks = parsed.map { try? $0.get() }
        var runs = [(wallet: Int, blocks: [Int])]()
        // Twice as many runs as cores where the batch is large, so that uneven runs even out.
        let spread = 2 * ProcessInfo.processInfo.activeProcessorCount
        for s in scanners.indices {
            let wanted = blocks.indices.filter { blocks[$0] != nil && heights[$0] >= nexts[s] }
            let total = wanted.reduce(0) { $0 + blocks[$1]!.transactions.count }
            let target = max(minimumRun, (total + spread - 1) / spread)
            var run = [Int](), size = 0
            for i in wanted {
                run.append(i)
                size += blocks[i]!.transactions.count
                if size >= target {
                    runs.append((s, run))
                    run = []
                    size = 0
                }
            }
            if !run.isEmpty { runs.append((s, run)) }
        }
        let results = ParallelMap.map(runs) { run -> [Found] in
            let (s, indexes) = run
            let each = indexes.map { blocks[$0]!.transactions }
            do throws(ScanError) {
                let all = try scanners[s].scan(each.flatMap { $0 })
                var start = 0
                return each.map { txs in
                    defer { start += txs.count }
                    return .success(Array(all[start..<start + txs.count]))
                }
            } catch {
                return each.map { txs in Result { () throws(ScanError) in try scanners[s].scan(txs) } }
            }
        }
        var findings = [[Found?]](repeating: [Found?](repeating: nil, count: parsed.count), count: scanners.count)
        for (run, found) in zip(runs, results) {
            for (i, f) in zip(run.blocks, found) { findings[run.wallet][i] = f }
        }
        return findings
    }

    /// Transactions per run at least (when the batch has them): enough transaction keys to
    /// fill the 8-lane ladders several times over.
    static var minimumRun: Int { 48 }
}
