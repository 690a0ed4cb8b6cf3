import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import WalletCore
import WalletScan

/// Chain data from a monerod over its RPC: blocks and their transactions in batches with the
/// binary get_blocks_by_height.bin, get_height and get_transaction_pool (JSON) for the rest.
/// Only this type opens sockets; by default it only talks to loopback.
public final class MoneroRPCSource: BlockSource, Sendable {
    public let url: URL
    public let timeout: TimeInterval
    public let retries: Int

    public init(address: String, timeout: TimeInterval = 30, retries: Int = 3) throws(SourceError) {
        let text = address.contains("://") ? address : "http://" + address
        guard let url = URL(string: text), url.host != nil else { throw .badAddress(address) }
        self.url = url
        self.timeout = timeout
        self.retries = retries
    }

    public func chainHeight() throws -> Int? {
        guard let height = try call(path: "get_height", body: [:])["height"] as? Int else { throw SourceError.badReply("get_height") }
        return height
    }

    public func blocks(from height: Int, count: Int) throws -> [BlockData] {
        let heights = Array(height..<min(height + count, try chainHeight() ?? 0))
        guard !heights.isEmpty else { return [] }
        // One binary get_blocks_by_height.bin call for the batch (as Monero's own wallet does);
        // the block ids are computed from the blobs and checked by the synchronizer's parent
        // links and the transactions' ids.
        let body = EpeeStorage.request("heights", uint64s: heights.map(UInt64.init))
        let reply = try EpeeStorage.parse(try post(path: "get_blocks_by_height.bin", body: body))
        guard let entries = reply["blocks"]?.array, entries.count == heights.count else {
            throw SourceError.badReply("get_blocks_by_height.bin")
        }
        return try zip(heights, entries).map { (h, entry) throws -> BlockData in
            guard let blob = entry["block"]?.string else { throw SourceError.badReply("get_blocks_by_height.bin (block \(h))") }
            let txs = try (entry["txs"]?.array ?? []).map { tx throws -> [UInt8] in
                if let b = tx.string { return b }
                if let b = tx["blob"]?.string { return b }
                throw SourceError.badReply("get_blocks_by_height.bin (a transaction of block \(h))")
            }
            return BlockData(height: h, blob: blob, transactions: txs)
        }
    }

    public func mempool() throws -> [[UInt8]] {
        let reply = try call(path: "get_transaction_pool", body: [:])
        let txs = reply["transactions"] as? [[String: Any]] ?? []
        return try txs.compactMap { $0["tx_blob"] as? String }.map { hex throws in try Hex.decode(hex) }
    }

    // MARK: - Transport

    private func call(path: String, body: [String: Any]) throws -> [String: Any] {
        let data = try post(path: path, body: Array(try JSONSerialization.data(withJSONObject: body)), json: true)
        guard let object = try? JSONSerialization.jsonObject(with: Data(data)) as? [String: Any] else { throw SourceError.badReply(path) }
        return object
    }

    private func post(path: String, body: [UInt8], json: Bool = false) throws -> [UInt8] {
        var request = URLRequest(url: url.appendingPathComponent(path), timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue(json ? "application/json" : "application/octet-stream", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(body)
        var lastError = "no answer"
        for attempt in 0..<max(retries, 1) {
            if attempt > 0 { Thread.sleep(forTimeInterval: 0.5 * Double(attempt)) }
            let (data, status, error) = Self.send(request)
            if let data, status == 200 { return Array(data) }
            lastError = error ?? "HTTP \(status)"
        }
        throw SourceError.unavailable(url.absoluteString, lastError)
    }

    private static func send(_ request: URLRequest) -> (Data?, Int, String?) {
        nonisolated(unsafe) var result: (Data?, Int, String?) = (nil, 0, nil)
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { data, response, error in
            result = (data, (response as? HTTPURLResponse)?.statusCode ?? 0, error?.localizedDescription)
            done.signal()
        }.resume()
        done.wait()
        return result
    }
}

public enum SourceError: WalletError, Equatable {
    case badAddress(String)
    case unavailable(String, String)
    case badReply(String)

    public var code: String {
        switch self {
        case .badAddress: "source.bad_address"
        case .unavailable: "source.unavailable"
        case .badReply: "source.bad_reply"
        }
    }

    public var exitStatus: ExitStatus {
        switch self {
        case .badAddress: .usage
        case .unavailable: .unavailable
        case .badReply: .protocolError
        }
    }

    public var message: String {
        switch self {
        case .badAddress(let a): "'\(a)' is not a node address (host:port or http://host:port)"
        case .unavailable(let url, let why): "the node at \(url) does not answer (\(why))"
        case .badReply(let what): "the node's reply to \(what) is not what Monero's RPC returns"
        }
    }
}
