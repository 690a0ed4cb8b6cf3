import Foundation
import WalletCore

/// Chain data from files in the fixture's format: block records ({"height","hash","blob",
/// "tx_hashes"}, in height order) and transaction records ({"tx_hash","hex","in_pool"}).
/// Records are told apart by their fields, so one stream may carry both (`cat txs blocks`);
/// a path of "-" is stdin. Either input may be zstd-compressed (found by its magic number).
public final class FileBlockSource: BlockSource {
    private let blocks: [BlockData]
    private let pool: [[UInt8]]
    private let firstHeight: Int

    public init(blocksPath: String, transactionsPath: String?) throws {
        var blocks = [BlockData]()
        var pool = [[UInt8]]()
        var txByID = [String: [UInt8]]()
        var blockRecords = [(what: String, object: [String: Any])]()
        for path in [transactionsPath, blocksPath].compactMap({ $0 }) {
            for (n, line) in try Self.lines(path).enumerated() {
                let what = "\(path == "-" ? "<stdin>" : path) line \(n + 1)"
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                    throw ScanError.malformed(what: what, reason: "not a JSON object")
                }
                if object["blob"] != nil {
                    blockRecords.append((what, object))
                    continue
                }
                guard let id = object["tx_hash"] as? String, let hex = object["hex"] as? String else {
                    throw ScanError.malformed(what: what, reason: "neither a block record (height, blob) nor a transaction record (tx_hash, hex)")
                }
                let blob: [UInt8]
                do { blob = try Hex.decode(hex) } catch { throw ScanError.malformed(what: what, reason: error.message) }
                if object["in_pool"] as? Bool == true { pool.append(blob) } else { txByID[id] = blob }
            }
        }
        var expectedHeight: Int?
        for (what, object) in blockRecords {
            guard let height = object["height"] as? Int, let hex = object["blob"] as? String else {
                throw ScanError.malformed(what: what, reason: "not a block record")
            }
            if let expectedHeight, height != expectedHeight {
                throw ScanError.malformed(what: what, reason: "block \(height) out of order (expected \(expectedHeight))")
            }
            expectedHeight = height + 1
            let blob: [UInt8]
            do { blob = try Hex.decode(hex) } catch { throw ScanError.malformed(what: "block \(height)", reason: error.message) }
            var txs = [[UInt8]]()
            for id in object["tx_hashes"] as? [String] ?? [] {
                guard let tx = txByID[id] else { throw ScanError.malformed(what: "block \(height)", reason: "transaction \(id) is not among the transaction records") }
                txs.append(tx)
            }
            let claimed = (object["hash"] as? String).flatMap { try? Hex.decode($0) }
            blocks.append(BlockData(height: height, blob: blob, transactions: txs, claimedID: claimed))
        }
        self.blocks = blocks
        self.pool = pool
        firstHeight = blocks.first?.height ?? 0
    }

    public func chainHeight() throws -> Int { (blocks.last?.height ?? -1) + 1 }

    public func blocks(from height: Int, count: Int) throws -> [BlockData] {
        let start = height - firstHeight
        guard start >= 0 else { throw ScanError.unsupported("the block file starts at \(firstHeight), after the birthday \(height)") }
        guard start < blocks.count else { return [] }
        return Array(blocks[start..<min(blocks.count, start + count)])
    }

    public func mempool() throws -> [[UInt8]] { pool }

    static func lines(_ path: String) throws -> [String] {
        let data: Data?
        if path == "-" {
            data = try? FileHandle.standardInput.readToEnd() ?? Data()
        } else {
            data = FileManager.default.contents(atPath: path)
        }
        guard let data else { throw ScanError.unsupported("cannot read \(path == "-" ? "stdin" : path)") }
        let bytes = data.starts(with: Zstd.magic) || path.hasSuffix(".zst") ? try Zstd.decompress(Array(data)) : Array(data)
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }
}
