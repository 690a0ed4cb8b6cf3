import Foundation
import SwiftProtobuf
import WalletCore
import WalletScan
import Zcash

/// Compact blocks from a file, plain or zstd, streamed: lightwalletd's length-delimited
/// protobuf (varint length ‖ CompactBlock, as `.pb` files and SDK caches keep them) or JSON
/// Lines with the proto's field names and hex bytes. The form is told by the first byte
/// ("{" for JSON). Blocks come in the order a node connects them (a reorg in the file, and a
/// file that begins below the wallet's height, are read as `FileChain` says); going back (a
/// reorg against the stored chain) reopens the file, which stdin cannot.
///
/// Full transactions (for memos) may come from a second file of JSON Lines records
/// {"height", "txid" (hex, wire order), "raw_tx" (hex)} in height order, read alongside.
public final class CompactBlockFileSource: BlockSource, @unchecked Sendable {  // every use holds `lock`
    private let lock = NSLock()
    private let path: String
    private let transactionsPath: String?
    private var reader: Reader
    private var txLines: LineStream?
    private var heldTransaction: (height: Int, txid: [UInt8], raw: [UInt8])?
    private var chain = FileChain()
    private var firstHeight: Int?
    private var held: BlockData?

    public init(path: String, transactionsPath: String? = nil) throws {
        self.path = path
        self.transactionsPath = transactionsPath
        reader = try Reader(path: path)
        txLines = try transactionsPath.map(LineStream.init)
    }

    public func chainHeight() throws -> Int? { nil }
    public func mempool() throws -> [[UInt8]] { [] }

    public func blocks(from height: Int, count: Int) throws -> [BlockData] {
        lock.lock()
        defer { lock.unlock() }
        if try chain.mustReread(from: height, holding: held != nil, path: path, what: "compact blocks") {
            reader = try Reader(path: path)
            txLines = try transactionsPath.map(LineStream.init)
            heldTransaction = nil
            (held, chain) = (nil, FileChain())
        }
        var batch = FileBatch(from: height, count: count)
        while !batch.isFull {
            let data: BlockData, switched: Bool
            if let kept = held {
                (data, switched) = (kept, false)
                held = nil
            } else {
                guard let (block, bytes) = try reader.next() else { break }
                guard block.height <= UInt64(BlockData.maxHeight) else {
                    throw ScanError.malformed(
                        what: "\(reader.name) block \(reader.count)",
                        reason: "height \(block.height) is beyond any chain (at most \(BlockData.maxHeight))")
                }
                let h = Int(block.height)
                do {
                    switched = try chain.admit(height: h, id: Array(block.hash), parent: Array(block.prevHash))
                } catch {
                    throw ScanError.malformed(what: "\(reader.name) block \(reader.count)", reason: error.reason)
                }
                if firstHeight == nil {
                    firstHeight = h
                    guard h <= height else { throw ScanError.unsupported("the compact blocks start at \(h), after the birthday \(height)") }
                }
                // Far below the batch: skipped unread (its full transactions are passed over
                // by the next block that reads them).
                guard batch.wants(h) || switched else { continue }
                data = BlockData(height: h, blob: bytes, transactions: try fullTransactions(of: block), claimedID: nil)
            }
            guard batch.add(data, switched: switched) else {
                held = data
                break
            }
        }
        return batch.result
    }

    /// The block's full transactions in the order of its compact ones, empty where the file
    /// has none; records of lower heights are passed over.
    private func fullTransactions(of block: WireCompactBlock) throws -> [[UInt8]] {
        guard let txLines else { return [] }
        let height = Int(block.height)
        var byID = [[UInt8]: [UInt8]]()
        while true {
            let record: (height: Int, txid: [UInt8], raw: [UInt8])
            if let h = heldTransaction {
                record = h
                heldTransaction = nil
            } else {
                guard let (number, line) = try txLines.next() else { break }
                let what = "\(txLines.name) line \(number)"
                let object: JSONObject
                do { object = try JSONParser.parseObject(line) } catch {
                    throw ScanError.malformed(what: what, reason: "not a JSON object")
                }
                guard case .number(let h)? = object["height"], let h = Int(h),
                    case .string(let txid)? = object["txid"], case .string(let raw)? = object["raw_tx"]
                else {
                    throw ScanError.malformed(what: what, reason: "a transaction record needs height, txid and raw_tx")
                }
                do { record = (h, try Hex.decode(txid), try Hex.decode(raw)) } catch {
                    throw ScanError.malformed(what: what, reason: "txid or raw_tx is not hex")
                }
            }
            if record.height < height { continue }
            if record.height > height { heldTransaction = record; break }
            byID[record.txid] = record.raw
        }
        return block.vtx.map { byID[Array($0.txid)] ?? [] }
    }

    /// One pass over the file: delimited protobuf or JSON Lines.
    final class Reader {
        private let stream: ByteStream
        private var buffer = [UInt8]()
        private var start = 0
        private var ended = false
        private var json: Bool?
        private(set) var count = 0
        var name: String { stream.name }

        init(path: String) throws { stream = try ByteStream(path: path) }

        /// Ensures `n` bytes are buffered past `start`; false at the end of the data.
        private func fill(_ n: Int) throws -> Bool {
            while buffer.count - start < n && !ended {
                if start > 0 { buffer.removeFirst(start); start = 0 }
                if !(try stream.next { buffer.append(contentsOf: $0) }) { ended = true }
            }
            return buffer.count - start >= n
        }

        /// The next block, and its serialized bytes (as read from a .pb stream; serialized
        /// from JSON) for the engine to hand to the scanner's parser.
        func next() throws -> (WireCompactBlock, [UInt8])? {
            guard try fill(1) else { return nil }
            if json == nil { json = buffer[start] == UInt8(ascii: "{") }
            count += 1
            if !json! { return try nextDelimited() }
            let block = try nextJSON()
            do { return (block, try block.serializedBytes()) } catch {
                throw ScanError.malformed(what: "\(name) line \(count)", reason: "cannot be serialized as a CompactBlock")
            }
        }

        private func nextDelimited() throws -> (WireCompactBlock, [UInt8]) {
            var length = 0, shift = 0
            while true {
                guard try fill(1) else {
                    throw ScanError.malformed(what: "\(name) block \(count)", reason: "the file ends inside a length")
                }
                let byte = buffer[start]
                start += 1
                length |= Int(byte & 0x7F) << shift
                if byte & 0x80 == 0 { break }
                shift += 7
                guard shift < 35 else { throw ScanError.malformed(what: "\(name) block \(count)", reason: "a length longer than 5 bytes") }
            }
            guard length <= 1 << 26 else { throw ScanError.malformed(what: "\(name) block \(count)", reason: "a block of \(length) bytes") }
            guard try fill(length) else {
                throw ScanError.malformed(what: "\(name) block \(count)", reason: "the file ends inside a block (a cut file?)")
            }
            let bytes = Array(buffer[start..<(start + length)])
            start += length
            do {
                return (try WireCompactBlock(serializedBytes: bytes), bytes)
            } catch {
                throw ScanError.malformed(what: "\(name) block \(count)", reason: "not a CompactBlock message")
            }
        }

        private func nextJSON() throws -> WireCompactBlock {
            while true {
                if let newline = buffer[start...].firstIndex(of: 0x0A) {
                    let line = Array(buffer[start..<newline])
                    start = newline + 1
                    if line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) { continue }
                    return try decode(line)
                }
                if ended {
                    let line = Array(buffer[start...])
                    start = buffer.count
                    return try decode(line)
                }
                guard buffer.count - start < 1 << 26 else {
                    throw ScanError.malformed(what: "\(name) line \(count)", reason: "a line over 64 MiB")
                }
                _ = try fill(buffer.count - start + 1)
            }
        }

        private func decode(_ line: [UInt8]) throws -> WireCompactBlock {
            do {
                return try WireCompactBlock(record: try JSONParser.parseObject(line))
            } catch let error as JSONSyntaxError {
                throw ScanError.malformed(
                    what: "\(name) line \(count)", reason: "not a JSON object (\(error.reason) at byte \(error.offset))")
            } catch let error as any WalletError {
                throw ScanError.malformed(what: "\(name) line \(count)", reason: error.message)
            }
        }
    }
}
