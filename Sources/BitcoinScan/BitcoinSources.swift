import Bitcoin
import Foundation
import WalletCore
import WalletScan

/// Raw blocks as JSON Lines, in the order a node connects them: {"height","hash","hex"} with
/// an optional "prev" (what `getblock HASH 0` returns, with its height and hash beside it)
/// and an optional "spent" (each input's spent scriptPubKey, for silent payments),
/// plain or zstd; "-" is stdin. Mempool transactions come from another file of {"txid","hex"}
/// records. A reorg in the file, and a file that begins below the wallet's height, are read
/// as `FileChain` says.
public final class BitcoinRecordSource: BlockSource, @unchecked Sendable {  // every use holds `lock`
    private let lock = NSLock()
    private let mempoolPath: String?
    private let file: FileBlockBatches

    public init(path: String, mempoolPath: String?) throws {
        self.mempoolPath = mempoolPath
        file = try FileBlockBatches(path: path, what: "the chain")
    }

    public func chainHeight() throws -> Int? { nil }

    public func blocks(from height: Int, count: Int) throws -> [BlockData] {
        lock.lock()
        defer { lock.unlock() }
        return try file.blocks(from: height, count: count, next: Self.nextRecord)
    }

    /// The next block record, checked for order and form, and whether it switches to another
    /// branch; the hex is decoded, not parsed.
    private static func nextRecord(_ lines: LineStream, _ chain: inout FileChain) throws -> (BlockData, switched: Bool)? {
        guard let (number, line) = try lines.next() else { return nil }
        let what = "\(lines.name) line \(number)"
        let record = try FileRecords.object(line, what: what)
        guard case .number(let text)? = record["height"], let height = Int(text), (0...BlockData.maxHeight).contains(height) else {
            throw ScanError.malformed(what: what, reason: "a block record needs a height (a whole number), a hash and the hex")
        }
        let hash = try BitcoinRecords.hash(record, "hash", what: what)
        guard case .string(let hex)? = record["hex"] else {
            throw ScanError.malformed(what: what, reason: "a block record needs its raw block as \"hex\"")
        }
        let blob: [UInt8]
        do { blob = try Hex.decode(hex) } catch { throw ScanError.malformed(what: "block \(height)", reason: error.message) }
        let parent = blob.count >= 36 ? Array(blob[4..<36]) : nil
        if let prev = try BitcoinRecords.hash(record, "prev", what: what), parent != nil, parent != prev {
            throw ScanError.malformed(what: "block \(height)", reason: "its header's parent is not the record's \"prev\"")
        }
        let switched: Bool
        do { switched = try chain.admit(height: height, id: hash, parent: parent) } catch {
            throw ScanError.malformed(what: what, reason: error.reason)
        }
        // Optional: what each input spends (silent payments), one scriptPubKey (hex) per input
        // of every transaction but the coinbase, in block order.
        let spent = try BitcoinRecords.spent(record, what: what)
        return (BlockData(height: height, blob: blob, transactions: [], claimedID: hash, spent: spent), switched)
    }

    public func mempool() throws -> [[UInt8]] { try mempoolTransactions().map(\.blob) }

    public func mempoolTransactions() throws -> [PoolTransaction] {
        try mempoolPath.map(BitcoinRecords.mempool) ?? []
    }
}

/// The record forms Bitcoin sources share.
public enum BitcoinRecords {
    /// A displayed (byte-reversed) 32-byte hash field, in internal order; nil when absent or null.
    static func hash(_ record: JSONObject, _ key: String, what: String) throws(ScanError) -> [UInt8]? {
        guard let value = record[key], value != .null else { return nil }
        guard case .string(let text) = value, text.count == 64, let bytes = try? Bitcoin.internalBytes(ofDisplayed: text) else {
            throw .malformed(what: what, reason: "\"\(key)\" must be a 64-digit hex hash")
        }
        return bytes
    }

    /// A mempool file's transactions: {"txid","hex"} records (the txid is the node's word for
    /// it, and not checked: an MWEB transaction's is not a hash of these bytes), with "spent"
    /// (one scriptPubKey per input, as block records give it) for silent payments.
    public static func mempool(_ path: String) throws -> [PoolTransaction] {
        let lines = try LineStream(path: path)
        var out = [PoolTransaction]()
        while let (number, line) = try lines.next() {
            let what = "\(lines.name) line \(number)"
            let record = try FileRecords.object(line, what: what)
            guard case .string(let hex)? = record["hex"] else {
                throw ScanError.malformed(what: what, reason: "a mempool record needs the raw transaction as \"hex\"")
            }
            let blob: [UInt8]
            do { blob = try Hex.decode(hex) } catch { throw ScanError.malformed(what: what, reason: error.message) }
            out.append(PoolTransaction(blob: blob, spent: try spent(record, what: what)))
        }
        return out
    }

    /// A record's "spent": one scriptPubKey (hex) per input; nil when absent or null.
    static func spent(_ record: JSONObject, what: String) throws -> [[UInt8]]? {
        guard let value = record["spent"], value != .null else { return nil }
        guard case .array(let items) = value else {
            throw ScanError.malformed(what: what, reason: "\"spent\" must be a list of scriptPubKeys (hex), one per input")
        }
        return try items.enumerated().map { i, item in
            guard case .string(let hex) = item, let script = try? Hex.decode(hex) else {
                throw ScanError.malformed(what: what, reason: "\"spent\" item \(i) is not a scriptPubKey in hex")
            }
            return script
        }
    }
}
