import WalletScan

/// The Bitcoin scan tests' block source (blocks and a mempool held in memory) and event sink
/// (every event kept, in order, with its wallet).
final class MemorySource: BlockSource, @unchecked Sendable {
    let blocks: [BlockData]
    let pool: [PoolTransaction]
    init(_ blocks: [BlockData], pool: [[UInt8]] = []) { (self.blocks, self.pool) = (blocks, pool.map { PoolTransaction(blob: $0) }) }
    init(_ blocks: [BlockData], poolTransactions: [PoolTransaction]) { (self.blocks, self.pool) = (blocks, poolTransactions) }
    func chainHeight() throws -> Int? { blocks.count }
    func blocks(from height: Int, count: Int) throws -> [BlockData] {
        Array(blocks[min(height, blocks.count)..<min(blocks.count, height + count)])
    }
    func mempool() throws -> [[UInt8]] { pool.map(\.blob) }
    func mempoolTransactions() throws -> [PoolTransaction] { pool }
}

final class Sink: EventSink {
    var events = [(wallet: String?, event: ScanEvent)]()
    func encode(_ event: ScanEvent, wallet: String?, id: Int64) -> [UInt8] {
        events.append((wallet, event))
        return Array("\(id)\n".utf8)
    }
    func write(_ bytes: [UInt8]) throws {}
    func show(_ event: ScanEvent, wallet: String?) throws { events.append((wallet, event)) }
    func position() throws -> SinkPosition? { nil }
    func contents(at position: SinkPosition, count: Int) throws -> (bytes: [UInt8], end: Int64)? { nil }
}
