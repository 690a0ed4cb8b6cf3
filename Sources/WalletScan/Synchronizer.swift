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

    private func countUnread(_ parsed: [Result<Chain.Block, ScanError>]) {
        for case .success(let block) in parsed where block.unreadParts > 0 && blocksWithUnreadParts.insert(block.id).inserted {
            unreadBlockParts += block.unreadParts
        }
    }

    public private(set) var status = SyncStatus.unprepared
    /// Mempool transactions the last run could not parse, and so did not read: a payment among
    /// them is not shown (the caller says so).
    public private(set) var mempoolUnread = 0
    /// Parts of blocks (`ChainBlock.unreadParts`) this synchronizer has parsed and could not
    /// wholly read, each block counted once however often it is parsed (a reorg, a catch-up):
    /// a later upgrade's data whose payments a balance may miss (the caller says so).
    public private(set) var unreadBlockParts = 0
    private var blocksWithUnreadParts = Set<[UInt8]>()
    private let source: BlockSource
    private let slots: [Slot]
    public var batchSize = 50
    /// Whether the first batches are small, doubling up to `batchSize`, for a chain of
    /// `bigBlocks`: the first batch is read before anything can be scanned, and with 50 blocks
    /// of 1.4 MB that wait was a third of a 150-block scan of block files (later ones are read
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
    private var reorgs = 0

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
    private let suspendStates: Bool

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
        let raw = try source.mempool()
        let pool = raw.compactMap(Chain.parseTransaction)
        mempoolUnread = raw.count - pool.count
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

    /// Pools this version scans that the state's stored blocks were not scanned for (a state an
    /// earlier version took past the pool's first height, `ChainScanner.addedPools`): those
    /// blocks are read again from max(birthday, the pool's first height) and scanned for the
    /// pool alone — its outputs and their spends, nothing of the other pools, which the state
    /// holds and reported already — in batches, each one transaction with its events and its
    /// progress, so a killed catch-up resumes. A block that is not the stored one (the chain
    /// moved since) ends it: the wallet rolls back there with a reorg event, and the main scan
    /// reads every pool from that block on. A source that does not serve those blocks now
    /// leaves it for a later run.
    private func catchUp(_ slot: Slot, sink: EventSink) throws {
        for (pool, since) in slot.scanner.addedPools {
            let next = try slot.state.nextHeight
            var from: Int
            switch try slot.state.poolMark(pool) {
            case .done?: continue
            case .next(let h)?: from = h
            case nil: from = max(slot.birthday, since)
            }
            if from >= next {
                try slot.state.db.transaction { try slot.state.setPoolScanned(pool, through: nil) }
                continue
            }
            var told = false
            while from < next {
                // A source that starts above `from` (a file of later blocks) does not serve them.
                let served: [BlockData]
                do { served = try source.blocks(from: from, count: min(batchSize, next - from)) } catch ScanError.unsupported {
                    served = []
                }
                let blocks = served.filter { $0.height >= from && $0.height < next }
                guard blocks.first?.height == from, zip(blocks, blocks.dropFirst()).allSatisfy({ $0.height + 1 == $1.height }) else {
                    try sink.show(.catchUp(pool: pool, from: from, to: next - 1, waiting: true), wallet: slot.name)
                    return
                }
                if !told { try sink.show(.catchUp(pool: pool, from: from, to: next - 1, waiting: false), wallet: slot.name) }
                told = true
                let parsed = ParallelMap.map(blocks) { Chain.parse($0) }
                countUnread(parsed)
                let scanner = slot.scanner
                var forked = false, committed = false
                // As in `apply`: store keeps the tag set as it commits; only a batch rolled back,
                // or a fork, leaves it (and the cached next height) to be read again.
                defer {
                    if !committed || forked {
                        slot.state.forgetCached()
                        try? slot.loadUnspentTags()
                    }
                }
                try slot.state.db.transaction {
                    var events = [(height: Int, event: ScanEvent)]()
                    for (data, result) in zip(blocks, parsed) {
                        let block = try blamed { () throws(ScanError) in try result.get() }
                        guard block.id == (try slot.state.blockHash(data.height)) else {
                            events.append(try rollBack(slot, to: data.height - 1, at: data.height))
                            forked = true
                            break
                        }
                        let found = try blamed { () throws(ScanError) in try scanner.scan(block.transactions) }
                            .map { outputs in outputs.filter { Chain.pool(ofIndex: $0.index)?.name == pool } }
                        try store(block, height: data.height, found: found, slot: slot, into: &events, addingBlock: false)
                    }
                    from = forked ? next : blocks.last!.height + 1
                    try slot.state.setPoolScanned(pool, through: from >= next ? nil : from)
                    let walletHeight = try slot.state.nextHeight
                    try slot.state.enqueue(events) { event, id in
                        sink.encode(event.confirmed(atWalletHeight: walletHeight), wallet: slot.name, id: id)
                    }
                }
                committed = true
                if forked { reorgs += 1 }
                try slot.state.deliver(to: sink)
            }
        }
    }

    /// One wallet's part of a batch, in one transaction: blocks from `from` on, stored in
    /// order. Returns whether the wallet forked (its state then ends at the fork point).
    private func apply(
        blocks: [BlockData], parsed: [Result<Chain.Block, ScanError>], found: [Result<[[ReceivedOutput]], ScanError>?],
        from: Int, to slot: Slot, sink: EventSink
    ) throws -> Bool {
        var found = found
        var fork: Int?
        // A failed batch is rolled back; so is what it did to the set.
        var committed = false
        defer {
            if !committed || fork != nil {
                slot.state.forgetCached()
                try? slot.loadUnspentTags()
            }
        }
        try slot.state.db.transaction {
            var events = [(height: Int, event: ScanEvent)]()
            for i in blocks.indices where blocks[i].height >= from {
                let block = try blamed { () throws(ScanError) in try parsed[i].get() }
                let height = blocks[i].height
                if let stored = height > slot.birthday ? try slot.state.blockHash(height - 1) : nil, block.previousID != stored {
                    let point = try meetingPoint(slot, at: height, previousID: block.previousID)
                    // The source's own block below agrees with the state, yet this one does not
                    // follow it: the source is inconsistent, and going back would loop.
                    guard point < height - 1 else {
                        throw ScanError.malformed(
                            what: "block \(height)", reason: "its parent is not block \(height - 1) of the same source")
                    }
                    events = [try rollBack(slot, to: point, at: height)]
                    fork = point
                    break
                }
                if let parentTally = try slot.state.blockTally(height - 1), let why = block.contradiction(parentTally: parentTally) {
                    throw blamed(ScanError.malformed(what: "block \(height)", reason: why))
                }
                let (outputs, grew) = try widened(block, found: found[i]!.get(), slot: slot)
                try store(block, height: height, found: outputs, slot: slot, into: &events)
                if grew {
                    // The address table grew: scan the rest of the batch again with it.
                    let scanner = slot.scanner
                    for j in (i + 1)..<blocks.count {
                        if case .success(let later) = parsed[j] {
                            found[j] = Result { () throws(ScanError) in try scanner.scan(later.transactions) }
                        }
                    }
                }
            }
            if fork == nil {
                try slot.state.addAddresses(slot.scanner.takeNewAddresses())
                try slot.state.setNextHeight(blocks.last!.height + 1)
            }
            let walletHeight = try slot.state.nextHeight
            try slot.state.enqueue(events) { event, id in
                sink.encode(event.confirmed(atWalletHeight: walletHeight), wallet: slot.name, id: id)
            }
        }
        committed = true
        try slot.state.deliver(to: sink)
        return fork != nil
    }

    /// A block's data error, as the server's when a server sent it.
    private func blamed(_ error: ScanError) -> ScanError {
        guard let server = source.serverName else { return error }
        return .badServerData(server: server, problem: error.message)
    }

    private func blamed<T>(_ body: () throws(ScanError) -> T) throws(ScanError) -> T {
        do { return try body() } catch { throw blamed(error) }
    }

    /// Where the source's branch through its block at `height` (whose parent is `previousID`)
    /// meets the wallet's stored chain: the highest stored block that is an ancestor of it,
    /// found by following parents down — the source's own blocks below, never a height it
    /// does not hold (a file that begins above the fork cannot say where the fork is, and
    /// taking its silence for a mismatch once undid a whole wallet). The birthday's parent when
    /// every stored block is replaced.
    private func meetingPoint(_ slot: Slot, at height: Int, previousID: [UInt8]) throws -> Int {
        var parent = previousID
        var k = height - 1
        while k >= slot.birthday {
            guard height - 1 - k < maxReorgDepth else {
                throw ScanError.reorgLimit(
                    "block \(height) does not follow the stored chain, and neither do the \(maxReorgDepth) blocks below it (at most \(maxReorgDepth) are gone back): the source serves another chain; check the node or server (scan-blocks --rescan starts again from the birthday)"
                )
            }
            guard let mine = try slot.state.blockHash(k) else { break }
            if parent == mine { return k }
            guard let data = try source.blocks(from: k, count: 1).first, data.height == k else {
                throw blamed(
                    ScanError.malformed(
                        what: "block \(k + 1)",
                        reason:
                            "it replaces the stored block \(k + 1), and the source does not hold its parent (block \(k)) to find where the two chains meet: give blocks from the fork on (at most the stored tip's height minus the reorg's depth), or scan-blocks --rescan"
                    ))
            }
            // A live source may have moved on since (its block k is then another branch's):
            // its block k is what is held to the stored one, and its parent is followed.
            let theirs = try blamed { () throws(ScanError) in try Chain.parse(data).get() }
            if theirs.id == mine { return k }
            parent = theirs.previousID
            k -= 1
        }
        return slot.birthday - 1
    }

    /// Rolls the wallet back above `point`, where the source's branch through its block at
    /// `height` meets the stored chain: the reorg event. Called inside the wallet's transaction,
    /// so that a reorg past the run's bound is refused with the state as the last followed
    /// reorg left it.
    private func rollBack(_ slot: Slot, to point: Int, at height: Int) throws -> (height: Int, event: ScanEvent) {
        guard reorgs < maxReorgsPerRun else {
            throw ScanError.reorgLimit(
                "the source's chain changed again at block \(height) after \(reorgs) reorgs in this run (at most \(maxReorgsPerRun) are followed): it is not one chain; run again later, or use another node or server"
            )
        }
        let undone = try slot.state.rollBack(above: point)
        return (point, .reorg(forkHeight: point, undoneOutputs: undone.outputs, undoneSpends: undone.spends))
    }

    /// A batch that begins below the wallet's next height (a file that starts lower, or
    /// switches to another branch): its blocks there are held to the stored chain, and at the
    /// first that differs the wallet rolls back to where its branch meets the stored one, with
    /// a reorg event. Returns whether it did.
    private func rewind(_ slot: Slot, to blocks: [BlockData], parsed: [Result<Chain.Block, ScanError>], sink: EventSink) throws -> Bool {
        try slot.using(suspend: suspendStates) {
            let next = try slot.state.nextHeight
            for i in blocks.indices where blocks[i].height < next && blocks[i].height >= slot.birthday {
                let height = blocks[i].height
                guard let stored = try slot.state.blockHash(height) else { continue }
                let block = try blamed { () throws(ScanError) in try parsed[i].get() }
                if block.id == stored { continue }
                let point = height > slot.birthday ? try meetingPoint(slot, at: height, previousID: block.previousID) : slot.birthday - 1
                defer {
                    slot.state.forgetCached()
                    try? slot.loadUnspentTags()
                }
                try slot.state.db.transaction {
                    let event = try rollBack(slot, to: point, at: height)
                    let walletHeight = try slot.state.nextHeight
                    try slot.state.enqueue([event]) { event, id in
                        sink.encode(event.confirmed(atWalletHeight: walletHeight), wallet: slot.name, id: id)
                    }
                }
                try slot.state.deliver(to: sink)
                return true
            }
            return false
        }
    }

    /// A block's outputs once the address table has grown to take them all in: an output
    /// that widens the window (a gap limit, a lookahead) may be followed, or preceded, in the
    /// same block by a payment to an address only the wider window holds, so the block is
    /// scanned again until the table stops growing. Returns whether it grew.
    private func widened(_ block: Chain.Block, found: [[ReceivedOutput]], slot: Slot) throws -> (outputs: [[ReceivedOutput]], grew: Bool) {
        var outputs = found, grew = false
        while true {
            var grewNow = false
            for output in outputs.joined() where try slot.scanner.noteStored(output) { grewNow = true }
            guard grewNow else { return (outputs, grew) }
            grew = true
            outputs = try slot.scanner.scan(block.transactions)
        }
    }

    /// Stores a block: its hash, the spends of owned outputs, the outputs found (the address
    /// table already holds them all); their events go to `events`.
    private func store(
        _ block: Chain.Block, height: Int, found: [[ReceivedOutput]], slot: Slot,
        into events: inout [(height: Int, event: ScanEvent)], addingBlock: Bool = true
    ) throws {
        if let why = slot.scanner.impossibility(in: block, at: height) {
            throw blamed(ScanError.malformed(what: "block \(height)", reason: why))
        }
        if addingBlock { try slot.state.addBlock(height, hash: block.id, tally: block.tally) }
        // A wallet that holds nothing unspent has nothing to lose: only the transactions that
        // pay it are looked at. (Indexes, not a zip: a zip over the generic transactions looked
        // their type's metadata up at every step, a quarter of a Bitcoin scan.)
        // (Asked once: `slot.scanner` is a copy of the whole scanner at each access.)
        let transactions = block.transactions, spendsKnown = slot.scanner.spendsKnown
        guard found.count == transactions.count else {
            throw ScanError.malformed(
                what: "block \(height)", reason: "the scan gave \(found.count) results for \(transactions.count) transactions")
        }
        for t in found.indices where !found[t].isEmpty || spendsKnown && !slot.unspentTags.isEmpty {
            let tx = transactions[t], outputs = found[t]
            var spendsOurs = false
            if spendsKnown && !slot.unspentTags.isEmpty {
                for (input, tag) in tx.spends(in: slot.unspentTags) {
                    guard let o = try slot.state.markSpent(spendTag: tag, height: height, txID: tx.id) else { continue }
                    slot.unspentTags.remove(tag)
                    var spent = SpentOutput(
                        height: height, spendingTxID: tx.id, spendTag: tag, outputTxID: o.txID, outputIndex: o.index,
                        amount: o.amount, account: o.account, addressIndex: o.addressIndex)
                    spent.input = input
                    events.append((height, .spent(spent, confirmations: 0)))
                    spendsOurs = true
                }
            }
            for output in outputs {
                // The same transaction twice on one chain (in one block, or again later) is no
                // chain: reported once it would leave events and balance disagreeing, so the
                // batch fails, naming both places.
                if let earlier = try slot.state.outputHeight(txID: output.txID, index: output.index) {
                    let places = earlier == height ? "twice in block \(height)" : "in block \(earlier) and again in block \(height)"
                    throw ScanError.malformed(
                        what: "transaction \(Hex.encode(output.txID))", reason: "it is \(places); a transaction is in one block only")
                }
                if Chain.spendTagIsUnique, let tag = output.spendTag, let held = try slot.state.output(spendTag: tag) {
                    let pool = Chain.pool(ofIndex: output.index).map { "\($0.name) output \($0.index)" } ?? "output \(output.index)"
                    let heldPool = Chain.pool(ofIndex: held.index).map { "\($0.name) output \($0.index)" } ?? "output \(held.index)"
                    throw blamed(
                        ScanError.malformed(
                            what: "block \(height)",
                            reason:
                                "its transaction \(Hex.encode(output.txID)) \(pool) has the spend tag of the wallet's \(heldPool) of transaction \(Hex.encode(held.txID)) (block \(held.height ?? -1)): on this chain an output is its spend tag, so this one is a copy, not a payment; check the server or file"
                        ))
                }
                var o = spendsOurs ? slot.scanner.asChange(output) : output
                o.height = height
                try slot.state.addOutput(o)
                if let tag = o.spendTag { slot.unspentTags.insert(tag) }
                events.append((height, .received(o, confirmations: 0)))
            }
        }
    }

    /// Mempool receipts: all count in the balance; each is reported once, through the outbox.
    /// Where the chain `countsMempoolSpends`, the mempool's spends of the wallet's outputs too:
    /// each reported once (a pending spend), the spent output left out of the balance for as
    /// long as the mempool holds the spend (a spend that is replaced or expires brings it back
    /// at the next run), a receipt that another mempool transaction spends left out too, and
    /// the change of the wallet's own spend marked as such (still unconfirmed: a watch-only
    /// wallet's node trusts no unconfirmed transaction).
    private func reportPending(_ pool: [Chain.Block.Transaction], slot: Slot, sink: EventSink) throws {
        slot.pendingIncoming = [:]
        slot.pendingSpent = []
        let found = try slot.scanner.scan(pool)
        let spends = Chain.countsMempoolSpends && slot.scanner.spendsKnown
        // Which inputs spend the wallet's outputs: stored ones, or another mempool transaction's.
        let poolOutputs = Set(found.joined().compactMap(\.spendTag))
        var stored = [Int: [(input: Int, output: ReceivedOutput)]]()
        var spentInPool = Set<[UInt8]>()
        if spends {
            for (t, tx) in pool.enumerated() {
                for (input, tag) in tx.spendTags.enumerated() {
                    if slot.unspentTags.contains(tag), let o = try slot.state.unspentOutput(spendTag: tag) {
                        stored[t, default: []].append((input, o))
                    } else if poolOutputs.contains(tag) {
                        spentInPool.insert(tag)
                    }
                }
            }
        }
        var fresh = [(height: Int, event: ScanEvent)]()
        for (t, tx) in pool.enumerated() {
            for (input, o) in stored[t] ?? [] {
                slot.pendingSpent.insert(o.spendTag!)
                var spent = SpentOutput(
                    height: -1, spendingTxID: tx.id, spendTag: o.spendTag!, outputTxID: o.txID, outputIndex: o.index,
                    amount: o.amount, account: o.account, addressIndex: o.addressIndex)
                spent.input = input
                // Marked apart from receipts: an input's place, below zero.
                if try !slot.state.pendingAlreadyReported(tx.id, -1 - input) { fresh.append((-1, .pendingSpent(spent))) }
            }
        }
        for (t, outputs) in found.enumerated() {
            for output in outputs {
                let o = stored[t] == nil ? output : slot.scanner.asChange(output)
                // Spent again in the mempool: it is no longer the wallet's to count.
                if !(o.spendTag.map(spentInPool.contains) ?? false) { slot.pendingIncoming[o.account, default: 0] += o.amount }
                // Height -1: no block holds it, so no reorg undoes it.
                if try !slot.state.pendingAlreadyReported(o.txID, o.index) { fresh.append((-1, .pending(o))) }
            }
        }
        guard !fresh.isEmpty else { return }
        try slot.state.db.transaction {
            for (_, event) in fresh {
                switch event {
                case .pending(let o): try slot.state.notePendingReported(o.txID, o.index)
                case .pendingSpent(let s): try slot.state.notePendingReported(s.spendingTxID, -1 - s.input)
                default: break
                }
            }
            try slot.state.enqueue(fresh) { event, id in sink.encode(event, wallet: slot.name, id: id) }
        }
        try slot.state.deliver(to: sink)
    }

    /// Unspent outputs and mempool receipts, per account; unlocked by the chain's rules;
    /// outputs the mempool spends left out.
    private func balance(of slot: Slot, walletHeight: Int) throws -> Balance {
        let pending = slot.pendingIncoming.values.reduce(0, +)
        var total = pending, unlocked: UInt64 = 0
        var accounts = slot.pendingIncoming.mapValues { (total: $0, unlocked: UInt64(0)) }
        var pools = [String: (total: UInt64, unlocked: UInt64)]()
        for name in slot.scanner.balancePools ?? [] { pools[name] = (0, 0) }
        let now = UInt64(Date().timeIntervalSince1970)
        for row in try slot.state.allOutputs() where row.spentHeight == nil {
            let o = row.output
            if let tag = o.spendTag, slot.pendingSpent.contains(tag) { continue }
            let free = Chain.isUnlocked(o, walletHeight: walletHeight, now: now)
            total += o.amount
            if free { unlocked += o.amount }
            let previous = accounts[o.account] ?? (0, 0)
            accounts[o.account] = (previous.total + o.amount, previous.unlocked + (free ? o.amount : 0))
            if let pool = Chain.pool(ofIndex: o.index)?.name {
                let sums = pools[pool] ?? (0, 0)
                pools[pool] = (sums.total + o.amount, sums.unlocked + (free ? o.amount : 0))
            }
        }
        var balance = Balance(
            height: walletHeight, total: total, unlocked: unlocked, perAccount: accounts, perPool: pools,
            spendsKnown: slot.scanner.spendsKnown)
        balance.pending = pending
        balance.pendingPerAccount = slot.pendingIncoming
        return balance
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
