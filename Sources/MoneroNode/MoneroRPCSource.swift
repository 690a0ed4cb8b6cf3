import Foundation
import Monero
import NodeHTTP
import WalletCore
import WalletScan
import MoneroScan

/// Chain data from a monerod over its RPC: blocks and their transactions in batches with the
/// binary get_blocks_by_height.bin, get_height and get_transaction_pool (JSON) for the rest.
/// Only this type opens sockets; by default it only talks to loopback.
public final class MoneroRPCSource: BlockSource, Sendable {
    let client: NodeClient
    public var url: String { client.url }

    public init(address: String, timeout: TimeInterval = 30, retries: Int = 3) throws(SourceError) {
        client = try NodeClient(address: address, defaultPort: 18081, timeout: timeout, retries: retries, maxReply: Self.maxReply)
    }

    public func chainHeight() throws -> Int? {
        // A height from the node is checked before any range is built on it (a negative one
        // trapped the scan).
        guard let height = try call(path: "get_height", body: [:])["height"] as? Int, (0...BlockData.maxHeight).contains(height) else {
            throw bad("get_height")
        }
        return height
    }

    /// Blocks fetched ahead (get_blocks.bin answers up to 1,000 at once), served in order.
    private let ahead = Locked(Ahead())

    struct Ahead {
        var blocks = [BlockData]()
        /// The height the next request is expected at; a request below it (going back to
        /// find a fork) drops what was fetched ahead, which may be of another branch.
        var next = 0
        /// The following answer, asked for while the last of these blocks are scanned.
        var refill: Refill?
    }

    /// One get_blocks.bin call on another thread, and where it starts.
    struct Refill {
        let from: Int
        let fetch: BackgroundTask<[BlockData]>
    }

    /// An answer of more blocks than this (the tip is not near) has the next one asked for as
    /// soon as its first blocks are served: monerod takes as long to answer a busy stretch as
    /// the scan takes for it, and waiting until the last blocks left the scan idle meanwhile.
    /// At most one answer is held ahead.
    static let refillAbove = 300

    public func blocks(from height: Int, count: Int) throws -> [BlockData] {
        enum Plan { case served([BlockData]), wait(Refill), fetch }
        let plan = ahead.withLock { state -> Plan in
            if height >= state.next, let first = state.blocks.first?.height, height >= first, height < first + state.blocks.count {
                let slice = Array(state.blocks[(height - first)..<min(state.blocks.count, height - first + count)])
                state.next = height + slice.count
                let end = first + state.blocks.count
                if state.refill == nil, state.blocks.count > Self.refillAbove {
                    state.refill = Refill(from: end, fetch: BackgroundTask { [self] in try fetch(from: end, count: count) })
                }
                return .served(slice)
            }
            state.blocks = []
            if let refill = state.refill, refill.from == height, height >= state.next {
                state.refill = nil
                return .wait(refill)
            }
            state.refill = nil  // going back, or elsewhere: its answer may be of another branch
            return .fetch
        }
        let fetched: [BlockData]
        switch plan {
        case .served(let blocks): return blocks
        case .wait(let refill):
            if let early = try? refill.fetch.get() { fetched = early } else { fetched = try fetch(from: height, count: count) }
        case .fetch: fetched = try fetch(from: height, count: count)
        }
        return ahead.withLock { state in
            state.blocks = fetched
            let slice = Array(fetched.prefix(count))
            state.next = height + slice.count
            return slice
        }
    }

    /// From `height` on: get_blocks.bin, which answers up to 1,000 blocks with their
    /// transactions in one call, as Monero's wallet fetches them (get_blocks_by_height.bin
    /// costs the daemon about 15 times as much per block). Not pruned: a pruned transaction's
    /// id needs the node's hash of the part left out, which monerod may answer as zeros, and
    /// then the transaction could not be checked against its block. From genesis, whose id
    /// the call would need, get_blocks_by_height.bin. The block ids are computed from the
    /// blobs and checked by the synchronizer's parent links and the transactions' ids.
    private func fetch(from height: Int, count: Int) throws -> [BlockData] {
        guard height > 0 else {
            let heights = Array(height..<min(height + count, try chainHeight() ?? 0))
            guard !heights.isEmpty else { return [] }
            let body = EpeeStorage.request("heights", uint64s: heights.map(UInt64.init))
            let reply = try epee(path: "get_blocks_by_height.bin", body: body)
            guard let entries = reply["blocks"]?.array, entries.count == heights.count else {
                throw bad("get_blocks_by_height.bin")
            }
            return try zip(heights, entries).map { try block($0.1, height: $0.0, call: "get_blocks_by_height.bin") }
        }
        let reply = try epee(path: "get_blocks.bin", body: EpeeStorage.blocksRequest(startHeight: UInt64(height)))
        guard reply["status"]?.string == Array("OK".utf8) else {
            // The daemon answers "Failed" past its tip.
            if height >= (try chainHeight() ?? 0) { return [] }
            throw bad("get_blocks.bin (status \(String(decoding: reply["status"]?.string ?? [], as: UTF8.self)))")
        }
        guard case .uint(let start)? = reply["start_height"], start == UInt64(height), let entries = reply["blocks"]?.array else {
            throw bad("get_blocks.bin (not the blocks from \(height))")
        }
        return try entries.enumerated().map { try block($0.element, height: height + $0.offset, call: "get_blocks.bin") }
    }

    private func block(_ entry: EpeeStorage.Value, height h: Int, call: String) throws -> BlockData {
        guard let blob = entry["block"]?.string else { throw bad("\(call) (block \(h))") }
        let txs = try (entry["txs"]?.array ?? []).map { tx throws -> [UInt8] in
            if let b = tx.string { return b }
            if let b = tx["blob"]?.string { return b }
            throw bad("\(call) (a transaction of block \(h))")
        }
        return BlockData(height: h, blob: blob, transactions: txs)
    }

    public func mempool() throws -> [[UInt8]] {
        let reply = try call(path: "get_transaction_pool", body: [:])
        let txs = reply["transactions"] as? [[String: Any]] ?? []
        return try txs.compactMap { $0["tx_blob"] as? String }.enumerated().map { i, hex throws in
            guard let blob = try? Hex.decode(hex) else { throw bad("get_transaction_pool (transaction \(i)'s tx_blob is not hex)") }
            return blob
        }
    }

    public var serverName: String? { "the node at \(url)" }

    private func bad(_ what: String) -> SourceError { .badReply(node: url, what) }

    /// A binary call's answer read as epee: a reply that is not is the node's fault (76).
    private func epee(path: String, body: [UInt8]) throws -> EpeeStorage.Value {
        let bytes = try post(path: path, body: body)
        do { return try EpeeStorage.parse(bytes) } catch { throw bad("\(path) (\(error.message))") }
    }

    // MARK: - Transport

    private func call(path: String, body: [String: Any]) throws -> [String: Any] {
        let data = try post(path: path, body: Array(try JSONSerialization.data(withJSONObject: body)), json: true)
        guard let object = try? JSONSerialization.jsonObject(with: Data(data)) as? [String: Any] else { throw bad(path) }
        return object
    }

    private func post(path: String, body: [UInt8], json: Bool = false) throws -> [UInt8] {
        try client.send(path: path, body: body, contentType: json ? "application/json" : "application/octet-stream").body
    }

    /// No answer of monerod's is near this (get_blocks.bin's 1,000 blocks are tens of MB): a
    /// reply that goes on past it is not monerod's, and is not buffered further.
    static let maxReply = 512 << 20
}
