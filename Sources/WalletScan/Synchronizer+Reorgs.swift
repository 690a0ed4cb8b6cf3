import Foundation
import WalletCore

/// Where a source's branch meets the stored chain, and the roll back to it.
extension Synchronizer {
    /// Where the source's branch through its block at `height` (whose parent is `previousID`)
    /// meets the wallet's stored chain: the highest stored block that is an ancestor of it,
    /// found by following parents down — the source's own blocks below, never a height it
    /// does not hold (a file that begins above the fork cannot say where the fork is, and
    /// taking its silence for a mismatch once undid a whole wallet). The birthday's parent when
    /// every stored block is replaced.
    func meetingPoint(_ slot: Slot, at height: Int, previousID: [UInt8]) throws -> Int {
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
    func rollBack(_ slot: Slot, to point: Int, at height: Int) throws -> (height: Int, event: ScanEvent) {
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
    func rewind(_ slot: Slot, to blocks: [BlockData], parsed: [Result<Chain.Block, ScanError>], sink: EventSink) throws -> Bool {
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
}
