import Bitcoin
import Foundation
import WalletCore
import WalletCrypto
import WalletScan

/// BIP352 tweak records: what a silent payment receiver needs of a block with the scan key
/// alone, written once by a pass that has each input's spent output (a node's files or RPC),
/// read by any number of receivers elsewhere. Per block, one `sp_block` record (height, hash,
/// prev: a reorg is followed by hash, as in raw block records; `tweaks`: how many records
/// follow), then one `sp_tweak` record per transaction that can hold a silent payment: its
/// txid, its tweak data input_hash·A (33 bytes) and its taproot outputs (vout, x-only key,
/// value). Nothing in them is secret: every receiver reads the same records.
public enum TweakRecords {
    public static let version = 1
    public static let blockType = "sp_block"
    public static let tweakType = "sp_tweak"

    /// The records of `block` at `height`, one line each. Throws when the block came without
    /// what its inputs spend: its tweak data cannot be made, and a block written without them
    /// would read as one that pays no one.
    public static func lines(_ block: BitcoinBlock, height: Int) throws(ScanError) -> [UInt8] {
        if let blind = block.transactions.first(where: { !$0.isCoinbase && !$0.spentKnown }) {
            throw .unsupported(
                "tweak records need what each input spends, and block \(height) came without it (transaction \(Bitcoin.display(blind.id))): read the node's blk and rev files, its RPC, or records with \"spent\""
            )
        }
        let hash = Bitcoin.display(block.id)
        let eligible = block.transactions.filter { $0.silentPaymentTweak != nil }
        var out = [UInt8]()
        var header = JSONObject()
        header["type"] = .string(blockType)
        header["v"] = .number(String(version))
        header["height"] = .number(String(height))
        header["hash"] = .string(hash)
        header["prev"] = .string(Bitcoin.display(block.previousID))
        header["tweaks"] = .number(String(eligible.count))
        JSONWriter.serialize(header, into: &out)
        out.append(0x0A)
        for tx in eligible {
            var r = JSONObject()
            r["type"] = .string(tweakType)
            r["v"] = .number(String(version))
            r["height"] = .number(String(height))
            r["block"] = .string(hash)
            r["txid"] = .string(Bitcoin.display(tx.id))
            // input_hash·A in variable time: public data, the same for every receiver.
            r["tweak"] = .string(Hex.encode(tx.silentPaymentTweak!.point.compressed))
            r["outputs"] = .array(
                tx.taprootOutputs.map { o in
                    var item = JSONObject()
                    item["vout"] = .number(String(o.vout))
                    item["key"] = .string(Hex.encode(o.key))
                    item["value"] = .string(String(o.value))
                    return .object(item)
                })
            JSONWriter.serialize(r, into: &out)
            out.append(0x0A)
        }
        return out
    }

    /// An `sp_block` record's fields, checked.
    struct Header {
        let height: Int
        let id: [UInt8]
        let previousID: [UInt8]
        let tweaks: Int
    }

    static func header(_ line: [UInt8], what: String) throws(ScanError) -> Header {
        let record = try object(line, type: blockType, what: what)
        let height = try number(record, "height", in: 0...BlockData.maxHeight, what: what)
        let tweaks = try number(record, "tweaks", in: 0...1_000_000, what: what)
        return Header(
            height: height, id: try hash(record, "hash", what: what), previousID: try hash(record, "prev", what: what), tweaks: tweaks)
    }

    /// A record of `type`, version 1; another type or version is said, not skipped.
    static func object(_ line: [UInt8], type: String, what: String) throws(ScanError) -> JSONObject {
        let record = try FileRecords.object(line, what: what)
        guard record["type"] == .string(type) else {
            let got = record["type"]?.stringValue.map { "\"\($0)\"" } ?? "no type"
            throw .malformed(what: what, reason: "expected a tweak record of type \"\(type)\", found \(got)")
        }
        guard record["v"] == .number(String(version)) else {
            throw .unsupported(
                "\(what): an \(type) record of another version than \(version): written by a newer Satchel? Read it with that version")
        }
        return record
    }

    static func number(_ record: JSONObject, _ key: String, in range: ClosedRange<Int>, what: String) throws(ScanError) -> Int {
        guard case .number(let text)? = record[key], let n = Int(text), range.contains(n) else {
            throw .malformed(what: what, reason: "\"\(key)\" must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return n
    }

    /// A displayed hash (byte-reversed hex), in internal order; required.
    static func hash(_ record: JSONObject, _ key: String, what: String) throws(ScanError) -> [UInt8] {
        guard let bytes = try BitcoinRecords.hash(record, key, what: what) else {
            throw .malformed(what: what, reason: "\"\(key)\" must be a 64-digit hex hash")
        }
        return bytes
    }

    static func hex(_ record: JSONObject, _ key: String, count: Int, what: String) throws(ScanError) -> [UInt8] {
        guard case .string(let text)? = record[key], text.count == 2 * count, let bytes = try? Hex.decode(text) else {
            throw .malformed(what: what, reason: "\"\(key)\" must be \(count) bytes in hex")
        }
        return bytes
    }
}

/// A block as tweak records give it: its place in the chain and its eligible transactions.
public struct TweakBlock: ChainBlock {
    public let id: [UInt8]
    public let previousID: [UInt8]
    public let transactions: [TweakTransaction]
}

/// A transaction that can hold a silent payment, as its tweak record gives it. Its inputs are
/// not in the record: a spend of the wallet's outputs cannot be seen.
public struct TweakTransaction: ChainTransaction {
    public let id: [UInt8]
    /// input_hash·A.
    public let tweak: Secp256k1.PublicKey
    public let outputs: [TaprootOutput]
    public var spendTags: [[UInt8]] { [] }

    /// An `sp_tweak` record of block `block` at `height`, checked.
    init(_ line: [UInt8], height: Int, block: [UInt8], what: String) throws(ScanError) {
        let record = try TweakRecords.object(line, type: TweakRecords.tweakType, what: what)
        guard try TweakRecords.number(record, "height", in: 0...BlockData.maxHeight, what: what) == height,
            try TweakRecords.hash(record, "block", what: what) == block
        else {
            throw .malformed(what: what, reason: "its \"height\" and \"block\" are not those of the sp_block record before it")
        }
        id = try TweakRecords.hash(record, "txid", what: what)
        do { tweak = try Secp256k1.PublicKey(parsing: try TweakRecords.hex(record, "tweak", count: 33, what: what)) } catch let error
            as ScanError
        {
            throw error
        } catch {
            throw .malformed(what: what, reason: "\"tweak\" is not a point of the curve (33 bytes, compressed)")
        }
        guard case .array(let items)? = record["outputs"], !items.isEmpty, items.count <= 1 << 20 else {
            throw .malformed(what: what, reason: "\"outputs\" must be a list of the transaction's taproot outputs, at least one")
        }
        var outputs = [TaprootOutput]()
        var last = -1
        for (i, item) in items.enumerated() {
            let place = "\(what) output \(i)"
            guard case .object(let o) = item else { throw .malformed(what: place, reason: "must be an object of vout, key and value") }
            let vout = try TweakRecords.number(o, "vout", in: 0...Int(UInt32.max), what: place)
            guard vout > last else { throw .malformed(what: place, reason: "vouts must grow, as the outputs' order") }
            last = vout
            guard case .string(let text)? = o["value"], let value = UInt64(text), value <= 21_000_000 * 100_000_000 * 4 else {
                throw .malformed(what: place, reason: "\"value\" must be a decimal string of atomic units")
            }
            outputs.append(TaprootOutput(vout: vout, key: try TweakRecords.hex(o, "key", count: 32, what: place), value: value))
        }
        self.outputs = outputs
    }
}

/// Tweak records as JSON Lines, plain or zstd, "-" for stdin: each block's `sp_block` record
/// and its `sp_tweak` records one block, in the order a node connects blocks. A reorg in the
/// file, and a file that begins below the wallet's height, are read as `FileChain` says, as
/// raw block records are.
public final class TweakRecordSource: BlockSource, @unchecked Sendable {  // every use holds `lock`
    private let lock = NSLock()
    private let file: FileBlockBatches

    public init(path: String) throws { file = try FileBlockBatches(path: path, what: "the tweak records") }

    public func chainHeight() throws -> Int? { nil }

    public func blocks(from height: Int, count: Int) throws -> [BlockData] {
        lock.lock()
        defer { lock.unlock() }
        return try file.blocks(from: height, count: count, next: Self.nextBlock)
    }

    /// The next block: its `sp_block` record and the `tweaks` records after it, as lines for
    /// the parser (on every core); whether it switches to another branch.
    private static func nextBlock(_ lines: LineStream, _ chain: inout FileChain) throws -> (BlockData, switched: Bool)? {
        guard let (number, line) = try lines.next() else { return nil }
        let what = "\(lines.name) line \(number)"
        let header = try TweakRecords.header(line, what: what)
        var records = [[UInt8]]()
        records.reserveCapacity(header.tweaks)
        for n in 0..<header.tweaks {
            guard let (_, record) = try lines.next() else {
                throw ScanError.malformed(
                    what: lines.name,
                    reason:
                        "it ends inside block \(header.height), after \(n) of its \(header.tweaks) tweak records: cut short? (a writer appends whole blocks)"
                )
            }
            records.append(record)
        }
        let switched: Bool
        do { switched = try chain.admit(height: header.height, id: header.id, parent: header.previousID) } catch {
            throw ScanError.malformed(what: what, reason: error.reason)
        }
        return (BlockData(height: header.height, blob: line, transactions: records, claimedID: header.id), switched)
    }

    public func mempool() throws -> [[UInt8]] { [] }
}

extension TweakBlock {
    /// A block's records as `TweakRecordSource` hands them over: the `sp_block` record as the
    /// blob, the `sp_tweak` records as transactions.
    static func parse(_ data: BlockData) -> Result<TweakBlock, ScanError> {
        do throws(ScanError) {
            let what = "the sp_block record of block \(data.height)"
            let header = try TweakRecords.header(data.blob, what: what)
            guard header.height == data.height else {
                throw ScanError.malformed(what: what, reason: "block \(header.height) given as block \(data.height)")
            }
            var transactions = [TweakTransaction]()
            transactions.reserveCapacity(data.transactions.count)
            for (i, line) in data.transactions.enumerated() {
                transactions.append(
                    try TweakTransaction(
                        line, height: header.height, block: header.id, what: "tweak record \(i + 1) of block \(data.height)"))
            }
            return .success(TweakBlock(id: header.id, previousID: header.previousID, transactions: transactions))
        } catch {
            return .failure(error)
        }
    }
}
