import Foundation
import WalletCore

/// How a block file is read into batches, for every chain's file source: in the order a node
/// connects blocks. A block at or below a height already read is a switch to another branch
/// when its parent is the block read at the height below it (as a ZMQ `rawblock` feed writes
/// a reorg: the orphaned blocks, then the replacing branch from the fork on); the blocks it
/// replaces are dropped. Such a branch, and the file's last block when the file ends below the
/// height asked for, are handed back even below that height: the synchronizer holds them to
/// the stored chain, so a file that begins with a replacement block is a reorg at its parent,
/// not a file to skip (which once left a stale balance, or undid a whole wallet).
package struct FileChain {
    /// How far back a branch switch in a file may go, and how far below the height asked for
    /// a file's blocks are read whole (the older ones are skipped unread).
    package static let depth = 1_000

    package private(set) var nextHeight: Int?
    /// The claimed ids of the last `depth` blocks read on the current branch, by height.
    private var branch = [Int: [UInt8]]()

    package init() {}

    package mutating func reset() { (nextHeight, branch) = (nil, [:]) }

    /// Whether a batch from `height` starts before what was read (a reorg against the stored
    /// chain: the file is read again from its start); `holding`: a block read ahead is held.
    /// A file on stdin cannot be read twice: that is an error naming `what` it holds.
    package func mustReread(from height: Int, holding: Bool, path: String, what: String) throws(ScanError) -> Bool {
        guard let next = nextHeight, height < next - (holding ? 1 : 0) else { return false }
        guard path != "-" else {
            throw .unsupported("cannot go back in \(what) read from stdin (a reorg against the stored chain): give --blocks a file")
        }
        return true
    }

    /// Takes the next block read, at `height`, with its claimed id and its parent (nil when
    /// the record does not say): whether it switches to another branch. Throws the reason a
    /// block out of order is refused.
    package mutating func admit(height: Int, id: [UInt8]?, parent: [UInt8]?) throws(FileChainOrder) -> Bool {
        var switched = false
        if let expected = nextHeight, height != expected {
            guard height < expected, height > 0, let parent, branch[height - 1] == parent else {
                throw FileChainOrder(
                    reason:
                        "block \(height) out of order (expected \(expected), or a block whose parent is a block read before, from the last \(Self.depth))"
                )
            }
            branch = branch.filter { $0.key < height }
            switched = true
        }
        nextHeight = height + 1
        branch[height] = id
        branch.removeValue(forKey: height - Self.depth)
        return switched
    }
}

/// A block out of order in a file, and why.
package struct FileChainOrder: Error {
    package let reason: String
}

/// One batch of a file source being filled (see `FileChain`).
package struct FileBatch {
    private let from: Int
    private let count: Int
    private var blocks = [BlockData]()
    /// The last block read below `from`: handed back alone when nothing at or above it comes.
    private var below: BlockData?

    package init(from: Int, count: Int) {
        self.from = from
        self.count = count
    }

    package var isFull: Bool { blocks.count >= count }

    /// Whether a block at `height` is read whole (or skipped unread, far below the batch).
    package func wants(_ height: Int) -> Bool { height >= from - FileChain.depth }

    /// Adds the next block read; false when it belongs to a later batch (the caller holds it).
    package mutating func add(_ block: BlockData, switched: Bool) -> Bool {
        if switched {
            blocks.removeAll { $0.height >= block.height }
            if let b = below, b.height >= block.height { below = nil }
        }
        if let last = blocks.last {
            guard block.height == last.height + 1 else { return false }
            blocks.append(block)
        } else if switched || block.height == from {
            blocks.append(block)
        } else if block.height < from {
            below = block
        } else {
            return false
        }
        return true
    }

    package var result: [BlockData] {
        if blocks.isEmpty, let below { return [below] }
        return blocks
    }
}

/// A JSON Lines file of blocks read into batches as `FileChain` says, for a source of one
/// block per record or group of records (raw Bitcoin blocks, tweak records): read again from
/// its start when a batch begins before what was read, a block read ahead held for the next
/// batch, and a file that starts after the height asked for refused. Not thread-safe: its
/// source holds a lock.
package final class FileBlockBatches {
    private let path: String
    private let what: String
    private var lines: LineStream
    private var chain = FileChain()
    private var firstHeight: Int?
    private var held: BlockData?

    /// `what`: what the file holds, for messages ("the tweak records").
    package init(path: String, what: String) throws {
        (self.path, self.what) = (path, what)
        lines = try LineStream(path: path)
    }

    /// Blocks from `height`, at most `count`; `next` reads one block from the lines and admits
    /// it to the chain (whether it switches to another branch), nil at the end.
    package func blocks(
        from height: Int, count: Int, next: (LineStream, inout FileChain) throws -> (BlockData, switched: Bool)?
    ) throws -> [BlockData] {
        if try chain.mustReread(from: height, holding: held != nil, path: path, what: what) {
            lines = try LineStream(path: path)
            (held, chain) = (nil, FileChain())
        }
        var batch = FileBatch(from: height, count: count)
        while !batch.isFull {
            let block: BlockData, switched: Bool
            if let kept = held {
                (block, switched) = (kept, false)
                held = nil
            } else {
                guard let read = try next(lines, &chain) else { break }
                (block, switched) = read
            }
            if firstHeight == nil {
                firstHeight = block.height
                guard block.height <= height else {
                    throw ScanError.unsupported("\(lines.name) starts at block \(block.height), after the birthday \(height)")
                }
            }
            guard batch.add(block, switched: switched) else {
                held = block
                break
            }
        }
        return batch.result
    }
}

/// Records of a JSON Lines chain file, for every chain's file source.
package enum FileRecords {
    /// One JSON Lines record, or the error naming its line.
    package static func object(_ line: [UInt8], what: String) throws(ScanError) -> JSONObject {
        do { return try JSONParser.parseObject(line) } catch {
            throw .malformed(what: what, reason: "not a JSON object (\(error.reason) at byte \(error.offset))")
        }
    }
}
