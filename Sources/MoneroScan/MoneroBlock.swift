import WalletCore
import WalletScan
import Monero
import WalletCrypto

/// A Monero block: header, miner transaction and the ids of its other transactions.
public struct MoneroBlock: Sendable {
    public let majorVersion: UInt64
    public let minorVersion: UInt64
    public let timestamp: UInt64
    public let previousID: [UInt8]
    public let minerTransaction: MoneroTransaction
    public let transactionIDs: [[UInt8]]
    public let id: [UInt8]

    public init(blob: [UInt8]) throws(ScanError) {
        var r = ByteReader(blob, what: "block")
        majorVersion = try r.varint()
        minorVersion = try r.varint()
        timestamp = try r.varint()
        previousID = try r.take(32)
        _ = try r.take(4)  // nonce
        let headerEnd = r.offset
        minerTransaction = try MoneroTransaction(reader: &r, whole: false)
        let count = try r.count(minimumItemSize: 32)
        var ids = [[UInt8]]()
        for _ in 0..<count { ids.append(try r.take(32)) }
        guard r.isAtEnd else { throw .malformed(what: "block", reason: "\(blob.count - r.offset) bytes after its end") }
        transactionIDs = ids
        let all = [minerTransaction.id] + ids
        let hashingBlob = Array(blob[0..<headerEnd]) + Self.treeHash(all) + varintBytes(UInt64(all.count))
        id = Keccak256.hash(varintBytes(UInt64(hashingBlob.count)) + hashingBlob)
    }

    /// Monero's Merkle root (crypto/tree-hash.c): pairs are hashed from the right so that the
    /// leaf count becomes a power of two, then halved.
    static func treeHash(_ hashes: [[UInt8]]) -> [UInt8] {
        switch hashes.count {
        case 0: return [UInt8](repeating: 0, count: 32)
        case 1: return hashes[0]
        case 2: return Keccak256.hash(hashes[0] + hashes[1])
        default:
            var cnt = 1
            while cnt * 2 < hashes.count { cnt *= 2 }
            var ints = Array(hashes[0..<(2 * cnt - hashes.count)])
            var i = 2 * cnt - hashes.count
            while ints.count < cnt { ints.append(Keccak256.hash(hashes[i] + hashes[i + 1])); i += 2 }
            while cnt > 2 {
                cnt /= 2
                ints = (0..<cnt).map { Keccak256.hash(ints[2 * $0] + ints[2 * $0 + 1]) }
            }
            return Keccak256.hash(ints[0] + ints[1])
        }
    }
}
