import Foundation
import WalletCore

/// Chain data from files in the fixture's format: blocks.jsonl ({"height","hash","blob",
/// "tx_hashes"} per line, in height order) and txs.jsonl ({"tx_hash","hex","in_pool"}).
/// Either may be zstd-compressed (name ending .zst).
public final class FileBlockSource: BlockSource {
    private var blocks: [BlockData] = []
    private var pool: [[UInt8]] = []
    private let firstHeight: Int

    public init(blocksPath: String, transactionsPath: String?) throws {
        var txByID = [String: [UInt8]]()
        if let transactionsPath {
            for (n, line) in try Self.lines(transactionsPath).enumerated() {
                let what = "\(transactionsPath) line \(n + 1)"
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      let id = object["tx_hash"] as? String, let hex = object["hex"] as? String else {
                    throw ScanError.malformed(what: what, reason: "not a transaction record")
                }
                let blob: [UInt8]
                do { blob = try Hex.decode(hex) } catch { throw ScanError.malformed(what: what, reason: error.message) }
                if object["in_pool"] as? Bool == true { pool.append(blob) } else { txByID[id] = blob }
            }
        }
        var expectedHeight: Int?
        for (n, line) in try Self.lines(blocksPath).enumerated() {
            let what = "\(blocksPath) line \(n + 1)"
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let height = object["height"] as? Int, let hex = object["blob"] as? String else {
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
                guard let tx = txByID[id] else { throw ScanError.malformed(what: "block \(height)", reason: "transaction \(id) is not in the transaction file") }
                txs.append(tx)
            }
            let claimed = (object["hash"] as? String).flatMap { try? Hex.decode($0) }
            blocks.append(BlockData(height: height, blob: blob, transactions: txs, claimedID: claimed))
        }
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
        guard let data = FileManager.default.contents(atPath: path) else { throw ScanError.unsupported("cannot read \(path)") }
        let bytes = path.hasSuffix(".zst") ? try Zstd.decompress(Array(data)) : Array(data)
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }
}
