import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import WalletCore

/// Chain data from a monerod over its RPC (JSON): get_block by height with its blob and
/// transaction ids, get_transactions for the blobs, get_transaction_pool for the mempool.
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

    public func chainHeight() throws -> Int {
        guard let height = try call(path: "get_height", body: [:])["height"] as? Int else { throw SourceError.badReply("get_height") }
        return height
    }

    public func blocks(from height: Int, count: Int) throws -> [BlockData] {
        // One get_block per block (several in flight were measured slower against monerod
        // 0.18), then get_transactions for all of the batch's transactions at once.
        var headers = [(height: Int, blob: [UInt8], hash: [UInt8], ids: [String])]()
        for h in height..<min(height + count, try chainHeight()) {
            let result = try jsonRPC("get_block", ["height": h])
            guard let blob = result["blob"] as? String, let header = result["block_header"] as? [String: Any],
                  let hash = header["hash"] as? String else { throw SourceError.badReply("get_block \(h)") }
            headers.append((h, try Hex.decode(blob), try Hex.decode(hash), result["tx_hashes"] as? [String] ?? []))
        }
        let allIDs = headers.flatMap(\.ids)
        var blobs = [String: [UInt8]]()
        for chunk in stride(from: 0, to: allIDs.count, by: 100).map({ Array(allIDs[$0..<min($0 + 100, allIDs.count)]) }) {
            let reply = try call(path: "get_transactions", body: ["txs_hashes": chunk, "decode_as_json": false])
            guard let hexes = reply["txs_as_hex"] as? [String], hexes.count == chunk.count else {
                throw SourceError.badReply("get_transactions (\(chunk.count) asked, some missing)")
            }
            for (id, hex) in zip(chunk, hexes) { blobs[id] = try Hex.decode(hex) }
        }
        return headers.map { BlockData(height: $0.height, blob: $0.blob, transactions: $0.ids.map { blobs[$0]! }, claimedID: $0.hash) }
    }

    public func mempool() throws -> [[UInt8]] {
        let reply = try call(path: "get_transaction_pool", body: [:])
        let txs = reply["transactions"] as? [[String: Any]] ?? []
        return try txs.compactMap { $0["tx_blob"] as? String }.map { hex throws in try Hex.decode(hex) }
    }

    // MARK: - Transport

    private func jsonRPC(_ method: String, _ params: [String: Any]) throws -> [String: Any] {
        let reply = try call(path: "json_rpc", body: ["jsonrpc": "2.0", "id": "0", "method": method, "params": params])
        if let error = reply["error"] as? [String: Any] { throw SourceError.rpcError(method, (error["message"] as? String) ?? "error") }
        guard let result = reply["result"] as? [String: Any] else { throw SourceError.badReply(method) }
        return result
    }

    private func call(path: String, body: [String: Any]) throws -> [String: Any] {
        var request = URLRequest(url: url.appendingPathComponent(path), timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        var lastError = "no answer"
        for attempt in 0..<max(retries, 1) {
            if attempt > 0 { Thread.sleep(forTimeInterval: 0.5 * Double(attempt)) }
            let (data, status, error) = Self.send(request)
            if let data, status == 200 {
                guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { throw SourceError.badReply(path) }
                return object
            }
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
    case rpcError(String, String)

    public var code: String {
        switch self {
        case .badAddress: "source.bad_address"
        case .unavailable: "source.unavailable"
        case .badReply: "source.bad_reply"
        case .rpcError: "source.rpc_error"
        }
    }

    public var exitStatus: ExitStatus {
        switch self {
        case .badAddress: .usage
        case .unavailable: .unavailable
        case .badReply, .rpcError: .protocolError
        }
    }

    public var message: String {
        switch self {
        case .badAddress(let a): "'\(a)' is not a node address (host:port or http://host:port)"
        case .unavailable(let url, let why): "the node at \(url) does not answer (\(why))"
        case .badReply(let what): "the node's reply to \(what) is not what Monero's RPC returns"
        case .rpcError(let method, let message): "the node refused \(method): \(message)"
        }
    }
}
