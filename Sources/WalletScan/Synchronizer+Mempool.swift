import Foundation
import WalletCore

/// The mempool's receipts and spends, and the balance they enter.
extension Synchronizer {
    /// Mempool receipts: all count in the balance; each is reported once, through the outbox.
    /// Where the chain `countsMempoolSpends`, the mempool's spends of the wallet's outputs too:
    /// each reported once (a pending spend), the spent output left out of the balance for as
    /// long as the mempool holds the spend (a spend that is replaced or expires brings it back
    /// at the next run), a receipt that another mempool transaction spends left out too, and
    /// the change of the wallet's own spend marked as such (still unconfirmed: a watch-only
    /// wallet's node trusts no unconfirmed transaction).
    func reportPending(_ pool: [Chain.Block.Transaction], slot: Slot, sink: EventSink) throws {
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
    func balance(of slot: Slot, walletHeight: Int) throws -> Balance {
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
}
