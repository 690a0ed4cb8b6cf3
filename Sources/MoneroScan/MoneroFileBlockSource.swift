import Foundation
import WalletCore
import WalletScan
import Monero

/// Monero's chain data from files in the fixture's format: block records ({"height","hash","blob",
/// "tx_hashes"} and an optional "prev_hash", in the order a node connects them: a reorg in the
/// file, told by "prev_hash", and a file that begins below the wallet's height are read as
/// `FileChain` says) and transaction records ({"tx_hash","hex","in_pool"}).
/// Records are told apart by their fields, so one stream may carry both (`cat txs blocks`);
/// a path of "-" is stdin. Either input may be zstd-compressed (found by its magic number).
///
/// The files are streamed: a block's transactions are read from the transaction file as
/// the block needs them, so when both files are in chain order (as a node exports them) the
/// memory used does not grow with the chain. Transactions read ahead of their block wait in
/// a buffer. Going back (a reorg against the stored chain) reopens the files; a pipe cannot.
public final class MoneroFileBlockSource: BlockSource, @unchecked Sendable {  // every use holds `lock`
    private let lock = NSLock()
    private let blocksPath: String
    private let transactionsPath: String?
    private var blockLines: LineStream
    private var txLines: LineStream?
    /// Transactions read before their block asked for them, by id.
    private var waiting = [[UInt8]: [UInt8]]()
    /// Ids of transactions of skipped blocks not yet read: dropped when they come.
    private var skipped = Set<[UInt8]>()
    private var pool = [[UInt8]]()
    /// The heights read, and the branch they are on.
    private var chain = FileChain()
    private var firstHeight: Int?
    private var held: (number: Int, record: JSONObject)?
    /// A block read whole that belongs to the next batch.
    private var heldBlock: BlockData?
    private var blocksEnded = false
    private var drained = false

    public init(blocksPath: String, transactionsPath: String?) throws {
        self.blocksPath = blocksPath
        self.transactionsPath = transactionsPath
        blockLines = try LineStream(path: blocksPath)
        txLines = try transactionsPath.map(LineStream.init)
        if transactionsPath == nil && blocksPath != "-" { try Self.checkTransactionsPresent(blocksPath) }
    }

    /// Without a transaction file the block file must carry the transactions itself (`cat
    /// txs blocks`). Checked before the scan starts, on the first block that lists any: a
    /// forgotten --txs is said at once, not after the events of the blocks before it. Reads
    /// the file once more, up to that block's transactions (to its end only when they are
    /// missing, the error case). A pipe cannot be read twice: stdin is not checked.
    static func checkTransactionsPresent(_ path: String) throws {
        let lines = try LineStream(path: path)
        var seen = Set<[UInt8]>()
        var wanted: (height: Int, ids: Set<[UInt8]>)?
        while let (number, line) = try lines.next() {
            let record = try object(line, what: "\(lines.name) line \(number)")
            if record["blob"] != nil {
                guard wanted == nil else { continue }
                let ids = Set(try hexList(record["tx_hashes"], what: "\(lines.name) line \(number)"))
                guard !ids.isEmpty else { continue }
                let height = if case .number(let text)? = record["height"] { Int(text) ?? -1 } else { -1 }
                wanted = (height, ids.subtracting(seen))
            } else if case .string(let text)? = record["tx_hash"], let id = try? Hex.decode(text) {
                if wanted == nil { seen.insert(id) } else { wanted!.ids.remove(id) }
            }
            if let w = wanted, w.ids.isEmpty { return }
        }
        guard let wanted else { return }
        throw ScanError.malformed(
            what: "block \(wanted.height)",
            reason:
                "it lists transactions, and \(lines.name) holds no records of them: give the transaction records with --txs FILE (or mix them into the block file: cat txs blocks)"
        )
    }

    private func reopen() throws {
        guard blocksPath != "-" else {
            throw ScanError.unsupported(
                "cannot go back in the chain read from stdin (a reorg against the stored chain): give --blocks a file")
        }
        blockLines = try LineStream(path: blocksPath)
        txLines = try transactionsPath.map(LineStream.init)
        waiting = [:]
        skipped = []
        pool = []
        chain = FileChain()
        held = nil
        heldBlock = nil
        blocksEnded = false
        drained = false
    }

    public func chainHeight() throws -> Int? { nil }

    public func blocks(from height: Int, count: Int) throws -> [BlockData] {
        lock.lock()
        defer { lock.unlock() }
        if drained || (chain.nextHeight.map { height < $0 - (heldBlock == nil ? 0 : 1) } ?? false) { try reopen() }
        var batch = FileBatch(from: height, count: count)
        while !batch.isFull {
            if let kept = heldBlock {
                heldBlock = nil
                guard batch.add(kept, switched: false) else { heldBlock = kept; break }
                continue
            }
            guard let (number, record) = try nextBlockRecord() else { break }
            let what = "\(blockLines.name) line \(number)"
            guard case .number(let text)? = record["height"], let h = Int(text), h >= 0 else {
                throw ScanError.malformed(what: what, reason: "a block record needs a height")
            }
            let claimed: [UInt8]? = if case .string(let text)? = record["hash"] { try? Hex.decode(text) } else { nil }
            let parent: [UInt8]? = if case .string(let text)? = record["prev_hash"] { try? Hex.decode(text) } else { nil }
            let switched: Bool
            do { switched = try chain.admit(height: h, id: claimed, parent: parent) } catch {
                throw ScanError.malformed(what: what, reason: error.reason)
            }
            if firstHeight == nil {
                firstHeight = h
                guard h <= height else { throw ScanError.unsupported("the block file starts at \(h), after the birthday \(height)") }
            }
            let ids = try Self.hexList(record["tx_hashes"], what: what)
            guard batch.wants(h) || switched else {
                // Far below the batch: skipped, its transactions dropped as they come.
                for id in ids where waiting.removeValue(forKey: id) == nil { skipped.insert(id) }
                continue
            }
            guard case .string(let hex)? = record["blob"] else {
                throw ScanError.malformed(what: what, reason: "a block record needs a blob")
            }
            let blob: [UInt8]
            do { blob = try Hex.decode(hex) } catch { throw ScanError.malformed(what: "block \(h)", reason: error.message) }
            var txs = [[UInt8]]()
            txs.reserveCapacity(ids.count)
            for id in ids {
                guard let tx = try transaction(id) else {
                    throw ScanError.malformed(
                        what: "block \(h)", reason: "transaction \(Hex.encode(id)) is not among the transaction records")
                }
                txs.append(tx)
            }
            let block = BlockData(height: h, blob: blob, transactions: txs, claimedID: claimed)
            guard batch.add(block, switched: switched) else {
                heldBlock = block
                break
            }
        }
        return batch.result
    }

    /// The transaction records marked in_pool, read to the end of the files.
    public func mempool() throws -> [[UInt8]] {
        lock.lock()
        defer { lock.unlock() }
        if !drained {
            // Block records left unread are not needed now; their transactions are dropped.
            while try nextBlockRecord() != nil {}
            if let txLines { while let (number, line) = try txLines.next() { try take(line, number: number, from: txLines, keep: false) } }
            waiting = [:]
            drained = true
        }
        return pool
    }

    // MARK: - Reading

    /// The next block record of the block stream; transaction records on the way are taken.
    private func nextBlockRecord() throws -> (Int, JSONObject)? {
        if let held { self.held = nil; return held }
        guard !blocksEnded else { return nil }
        while let (number, line) = try blockLines.next() {
            let record = try Self.object(line, what: "\(blockLines.name) line \(number)")
            if record["blob"] != nil { return (number, record) }
            try takeTransaction(record, what: "\(blockLines.name) line \(number)", keep: true)
        }
        blocksEnded = true
        return nil
    }

    /// The transaction `id`: waiting, or read from the transaction stream (then the block
    /// stream, when the two are one) until it comes.
    private func transaction(_ id: [UInt8]) throws -> [UInt8]? {
        if let tx = waiting.removeValue(forKey: id) { return tx }
        if let txLines {
            while let (number, line) = try txLines.next() {
                if let tx = try take(line, number: number, from: txLines, keep: true, wanted: id) { return tx }
            }
        }
        // Mixed into the block stream (cat txs blocks): read on; a block record on the way is held.
        while held == nil, !blocksEnded, let (number, line) = try blockLines.next() {
            let what = "\(blockLines.name) line \(number)"
            let record = try Self.object(line, what: what)
            if record["blob"] != nil { held = (number, record); break }
            if let tx = try takeTransaction(record, what: what, keep: true, wanted: id) { return tx }
        }
        return nil
    }

    @discardableResult
    private func take(_ line: [UInt8], number: Int, from stream: LineStream, keep: Bool, wanted: [UInt8]? = nil) throws -> [UInt8]? {
        let what = "\(stream.name) line \(number)"
        return try takeTransaction(try Self.object(line, what: what), what: what, keep: keep, wanted: wanted)
    }

    /// Files a transaction record: the pool, the one wanted (returned), dropped (a skipped
    /// block's), or waiting for its block.
    @discardableResult
    private func takeTransaction(_ record: JSONObject, what: String, keep: Bool, wanted: [UInt8]? = nil) throws -> [UInt8]? {
        guard case .string(let idText)? = record["tx_hash"], case .string(let hex)? = record["hex"] else {
            throw ScanError.malformed(what: what, reason: "neither a block record (height, blob) nor a transaction record (tx_hash, hex)")
        }
        let id: [UInt8]
        do { id = try Hex.decode(idText) } catch { throw ScanError.malformed(what: what, reason: "tx_hash: " + error.message) }
        let inPool = record["in_pool"] == .bool(true)
        if !inPool, skipped.remove(id) != nil { return nil }
        if !inPool, !keep, id != wanted { return nil }
        let blob: [UInt8]
        do { blob = try Hex.decode(hex) } catch { throw ScanError.malformed(what: what, reason: error.message) }
        if inPool {
            pool.append(blob)
            return nil
        }
        if id == wanted { return blob }
        waiting[id] = blob
        return nil
    }

    private static func object(_ line: [UInt8], what: String) throws -> JSONObject { try FileRecords.object(line, what: what) }

    private static func hexList(_ value: JSONValue?, what: String) throws -> [[UInt8]] {
        guard let value else { return [] }
        guard case .array(let items) = value else { throw ScanError.malformed(what: what, reason: "tx_hashes must be a list") }
        return try items.map { item in
            guard case .string(let text) = item, let id = try? Hex.decode(text), id.count == 32 else {
                throw ScanError.malformed(what: what, reason: "tx_hashes must hold 32-byte hex ids")
            }
            return id
        }
    }
}
