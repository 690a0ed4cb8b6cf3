import Foundation
import WalletCore

/// A batch's blocks stored in each wallet's state: checked against the stored chain and the
/// chain's rules, their spends and outputs, and a pool added since caught up.
extension Synchronizer {
    /// Pools this version scans that the state's stored blocks were not scanned for (a state an
    /// earlier version took past the pool's first height, `ChainScanner.addedPools`): those
    /// blocks are read again from max(birthday, the pool's first height) and scanned for the
    /// pool alone — its outputs and their spends, nothing of the other pools, which the state
    /// holds and reported already — in batches, each one transaction with its events and its
    /// progress, so a killed catch-up resumes. A block that is not the stored one (the chain
    /// moved since) ends it: the wallet rolls back there with a reorg event, and the main scan
    /// reads every pool from that block on. A source that does not serve those blocks now
    /// leaves it for a later run.
    func catchUp(_ slot: Slot, sink: EventSink) throws {
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
    func apply(
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
            var stored = [(height: Int, block: Chain.Block)]()
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
                if slot.stored != nil { stored.append((height, block)) }
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
                try slot.stored?(stored)
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
    func blamed(_ error: ScanError) -> ScanError {
        guard let server = source.serverName else { return error }
        return .badServerData(server: server, problem: error.message)
    }

    func blamed<T>(_ body: () throws(ScanError) -> T) throws(ScanError) -> T {
        do { return try body() } catch { throw blamed(error) }
    }

    /// A block's outputs once the address table has grown to take them all in: an output
    /// that widens the window (a gap limit, a lookahead) may be followed, or preceded, in the
    /// same block by a payment to an address only the wider window holds, so the block is
    /// scanned again until the table stops growing. Returns whether it grew.
    func widened(_ block: Chain.Block, found: [[ReceivedOutput]], slot: Slot) throws -> (outputs: [[ReceivedOutput]], grew: Bool) {
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
    func store(
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
}
