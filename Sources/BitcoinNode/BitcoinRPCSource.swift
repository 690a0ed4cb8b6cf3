import Bitcoin
import BitcoinScan
import Foundation
import NodeHTTP
import WalletCore
import WalletScan

/// Blocks and mempool transactions from a bitcoind or litecoind: JSON-RPC (batched) for heights,
/// hashes and the mempool; each block's raw bytes through REST (`/rest/block/HASH.bin`, half
/// the size of getblock's hex) where the node has -rest, else `getblock HASH 0`. The RPC
/// password is read through `credentials` ("user:password", a cookie or a credentials file),
/// again when the node refuses it: a restarted node writes a new cookie.
public final class BitcoinRPCSource: BlockSource, Sendable {
    let client: NodeClient
    private let credentials: @Sendable () throws -> String
    private let state: Locked<State>

    struct State {
        /// "user:password" as last read.
        var login: String
        /// Whether the node answers REST: nil until its first block is asked for.
        var rest: Bool?
    }

    /// `address`: host:port or http://host:port (the network's RPC port when none is given).
    /// The credentials are read at once, so that a missing cookie is said before any scan.
    public init(
        address: String, network: BitcoinNetwork, timeout: Double = 30, retries: Int = 3,
        credentials: @escaping @Sendable () throws -> String
    ) throws {
        client = try NodeClient(address: address, defaultPort: network.rpcPort, timeout: timeout, retries: retries, maxReply: Self.maxReply)
        self.credentials = credentials
        state = Locked(State(login: try credentials()))
    }

    /// Every call asks the node to close the connection after its answer: a connection per
    /// call (a block each, by REST), closed by this side first, would leave one socket in
    /// TIME_WAIT per call and run out of local ports in a fast scan of small blocks; closed by
    /// the node first, it leaves none here. (bitcoind's HTTP server, unlike monerod's, sends
    /// a whole answer before it closes.)
    static let closing = [("Connection", "close")]

    /// A batch of getblock's hex is at most `rpcBlocks` blocks of 4 MB, twice over.
    static let maxReply = 160 << 20
    static let rpcBlocks = 8

    public var serverName: String? { "the node at \(client.url)" }

    public func chainHeight() throws -> Int? { try tip() + 1 }

    private func tip() throws -> Int {
        // A JSON number, never true (which Foundation would also give as 1).
        guard let number = try call("getblockcount", []) as? NSNumber, !Self.isBoolean(number), let count = Int(exactly: number),
            (0..<BlockData.maxHeight).contains(count)
        else { throw bad("getblockcount") }
        return count
    }

    public func blocks(from height: Int, count: Int) throws -> [BlockData] {
        let end = min(height + count, try tip() + 1)
        guard height < end else { return [] }
        // A height past the tip (the chain got shorter meanwhile) ends the list there.
        var hashes = [[UInt8]]()
        for (offset, answer) in try batch((height..<end).map { ("getblockhash", [$0]) }).enumerated() {
            guard case .success(let value) = answer else { break }
            guard let text = value as? String, text.count == 64, let hash = try? Bitcoin.internalBytes(ofDisplayed: text) else {
                throw bad("getblockhash \(height + offset)")
            }
            hashes.append(hash)
        }
        var blobs = [[UInt8]]()
        while blobs.count < hashes.count {
            blobs += try raw(Array(hashes[blobs.count..<min(hashes.count, blobs.count + Self.rpcBlocks)]), from: height + blobs.count)
        }
        // The hashes were read at one moment and the blocks at the next: if the chain changed
        // between, the list ends where it stops linking, and the scan asks again from there.
        var out = [BlockData]()
        for (i, (hash, blob)) in zip(hashes, blobs).enumerated() {
            if i > 0, blob.count < 36 || Array(blob[4..<36]) != hashes[i - 1] { break }
            out.append(BlockData(height: height + i, blob: blob, transactions: [], claimedID: hash))
        }
        return out
    }

    /// The raw blocks with these hashes (internal byte order), from height `first` on.
    private func raw(_ hashes: [[UInt8]], from first: Int) throws -> [[UInt8]] {
        var out = [[UInt8]]()
        if state.get().rest != false {
            for hash in hashes {
                let reply = try client.send(path: "rest/block/\(Bitcoin.display(hash)).bin", body: nil, headers: Self.closing) {
                    [200, 400, 403, 404, 503].contains($0)
                }
                guard reply.status == 200 else {
                    // -rest is off (404), or the node will not serve this one this way: RPC says why.
                    state.withLock { $0.rest = false }
                    break
                }
                state.withLock { $0.rest = true }
                out.append(reply.body)
            }
            if out.count == hashes.count { return out }
        }
        let rest = hashes[out.count...]
        for answer in try batch(rest.map { ("getblock", [Bitcoin.display($0), 0]) }) {
            let height = first + out.count
            switch answer {
            case .failure(let error) where error.code == -1 || error.code == -5:
                // A pruned node answers -1 ("Block not available (pruned data)").
                throw SourceError.unavailable(client.url, "block \(height): \(error.message)")
            case .failure(let error):
                throw bad("getblock (block \(height): \(error.message))")
            case .success(let value):
                guard let text = value as? String, let blob = try? Hex.decode(text) else {
                    throw bad("getblock (block \(height) is not hex)")
                }
                out.append(blob)
            }
        }
        return out
    }

    public func mempool() throws -> [[UInt8]] {
        guard let ids = try call("getrawmempool", []) as? [String] else { throw bad("getrawmempool") }
        var out = [[UInt8]]()
        for start in stride(from: 0, to: ids.count, by: 500) {
            let chunk = ids[start..<min(ids.count, start + 500)]
            for (id, answer) in zip(chunk, try batch(chunk.map { ("getrawtransaction", [$0]) })) {
                switch answer {
                case .failure(let error) where error.code == -5: continue  // mined or evicted since the list
                case .failure(let error): throw bad("getrawtransaction \(id) (\(error.message))")
                case .success(let value):
                    guard let text = value as? String, let bytes = try? Hex.decode(text) else { throw bad("getrawtransaction \(id)") }
                    out.append(bytes)
                }
            }
        }
        return out
    }

    // MARK: - JSON-RPC

    /// An error object of the node's: code and message.
    struct RPCError: Error {
        let code: Int
        let message: String
    }

    /// One call whose error ends the scan.
    private func call(_ method: String, _ params: [Any]) throws -> Any {
        switch try batch([(method, params)])[0] {
        case .success(let value): return value
        case .failure(let error): throw failure(method, error)
        }
    }

    /// Calls in one request (the node answers a JSON array), their answers in the calls' order.
    private func batch(_ calls: [(String, [Any])]) throws -> [Result<Any, RPCError>] {
        let request = calls.enumerated().map {
            ["jsonrpc": "1.0", "id": $0.offset, "method": $0.element.0, "params": $0.element.1] as [String: Any]
        }
        let body = Array(try JSONSerialization.data(withJSONObject: request))
        let method = calls.first?.0 ?? "batch"
        var reply = try post(body, login: login(fresh: false), method: method)
        if reply.status == 401 { reply = try post(body, login: login(fresh: true), method: method) }
        switch reply.status {
        case 401:
            throw SourceError.refused(
                node: client.url,
                "its RPC user and password were not accepted (HTTP 401): give the node's cookie with --rpc-cookie FILE, or --rpc-credentials FILE"
            )
        case 403: throw SourceError.refused(node: client.url, "this address may not call it (HTTP 403): see the node's rpcallowip")
        default: break
        }
        guard let answers = try? JSONSerialization.jsonObject(with: Data(reply.body)) as? [[String: Any]], answers.count == calls.count
        else {
            throw bad(method)
        }
        var results = [Result<Any, RPCError>?](repeating: nil, count: calls.count)
        for answer in answers {
            guard let id = answer["id"] as? Int, calls.indices.contains(id), results[id] == nil else { throw bad(method) }
            if let error = answer["error"] as? [String: Any], let code = error["code"] as? Int {
                let failure = RPCError(code: code, message: (error["message"] as? String) ?? "error \(code)")
                // The node is starting (-28: loading the block index): not ready, so unavailable.
                if code == -28 { throw SourceError.unavailable(client.url, failure.message) }
                results[id] = .failure(failure)
            } else if let value = answer["result"], !(value is NSNull) {
                results[id] = .success(value)
            } else {
                throw bad(calls[id].0)
            }
        }
        return results.map { $0! }
    }

    private func post(_ body: [UInt8], login: String, method: String) throws -> NodeHTTP.Reply {
        let authorization = "Basic " + Data(login.utf8).base64EncodedString()
        return try client.send(path: "", body: body, headers: Self.closing + [("Authorization", authorization)], name: method) {
            [200, 401, 403].contains($0)
        }
    }

    /// Whether JSONSerialization read a JSON true or false (an NSNumber of type char).
    static func isBoolean(_ number: NSNumber) -> Bool { String(cString: number.objCType) == "c" }

    /// "user:password", read once and again on request.
    private func login(fresh: Bool) throws -> String {
        if !fresh { return state.get().login }
        let read = try credentials()
        state.withLock { $0.login = read }
        return read
    }

    private func failure(_ method: String, _ error: RPCError) -> SourceError {
        bad("\(method) (\(error.message))")
    }

    private func bad(_ what: String) -> SourceError { .badReply(node: client.url, what) }
}
