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
    /// Each block comes with what its inputs spend (silent payments).
    private let spentOutputs: Bool
    private let dialect: BitcoinDialect

    struct State {
        /// "user:password" as last read.
        var login: String
        /// Whether the node answers REST: nil until its first block is asked for.
        var rest: Bool?
        /// Whether `getblock HASH 3` gives each input's prevout (Bitcoin Core 23 and later):
        /// nil until asked.
        var prevouts: Bool?
    }

    /// `address`: host:port or http://host:port (the network's RPC port when none is given).
    /// The credentials are read at once, so that a missing cookie is said before any scan.
    public init(
        address: String, network: BitcoinNetwork, timeout: Double = 30, retries: Int = 3,
        credentials: @escaping @Sendable () throws -> String, spentOutputs: Bool = false
    ) throws {
        self.spentOutputs = spentOutputs
        dialect = network.dialect
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
            let spent = spentOutputs ? try spentScripts(hash, blob: blob, height: height + i) : nil
            out.append(BlockData(height: height + i, blob: blob, transactions: [], claimedID: hash, spent: spent))
        }
        return out
    }

    /// What the block's inputs spend: `getblock HASH 3`'s prevouts where the node gives them
    /// (Bitcoin Core 23 and later), else the spent transactions, from the block itself or
    /// `getrawtransaction` (which needs the node's -txindex: litecoind 0.21, older bitcoinds).
    private func spentScripts(_ hash: [UInt8], blob: [UInt8], height: Int) throws -> [[UInt8]] {
        let block = try Bitcoin.parseBlock(blob, what: "block \(height)", dialect: dialect, verifyWitness: false)
        let inputs = block.transactions.filter { !$0.isCoinbase }.flatMap { $0.inputs.map(\.outpoint) }
        if state.get().prevouts != false, let scripts = try verbosePrevouts(hash, count: inputs.count, height: height) {
            return scripts
        }
        var known: [[UInt8]: BitcoinTransaction] = [:]
        for tx in block.transactions { known[tx.id] = tx }
        let missing = Array(Set(inputs.map { Array($0.prefix(32)) }).subtracting(known.keys))
        for start in stride(from: 0, to: missing.count, by: 200) {
            let chunk = Array(missing[start..<min(missing.count, start + 200)])
            for (id, answer) in zip(chunk, try batch(chunk.map { ("getrawtransaction", [Bitcoin.display($0)]) })) {
                switch answer {
                case .failure(let error) where error.code == -5:
                    throw SourceError.unavailable(
                        client.url,
                        "block \(height) spends transaction \(Bitcoin.display(id)), which the node does not find: silent payments through this node's RPC need it started with -txindex (or read its blk and rev files)"
                    )
                case .failure(let error): throw bad("getrawtransaction \(Bitcoin.display(id)) (\(error.message))")
                case .success(let value):
                    guard let text = value as? String, let bytes = try? Hex.decode(text),
                        let tx = try? Bitcoin.parseTransaction(bytes, what: "a spent transaction", dialect: dialect), tx.id == id
                    else { throw bad("getrawtransaction \(Bitcoin.display(id))") }
                    known[id] = tx
                }
            }
        }
        return try inputs.map { outpoint in
            let index = Int(Self.index(outpoint))
            guard let tx = known[Array(outpoint.prefix(32))], index < tx.outputs.count else {
                throw bad("block \(height) spends an output its transaction does not have")
            }
            return tx.outputs[index].script
        }
    }

    /// `getblock HASH 3`'s prevout scripts, in block order; nil (and not asked again) when the
    /// node gives no prevouts.
    private func verbosePrevouts(_ hash: [UInt8], count: Int, height: Int) throws -> [[UInt8]]? {
        let answer = try batch([("getblock", [Bitcoin.display(hash), 3])])[0]
        guard case .success(let value) = answer, let block = value as? [String: Any], let txs = block["tx"] as? [[String: Any]] else {
            state.withLock { $0.prevouts = false }
            return nil
        }
        var scripts: [[UInt8]] = []
        for tx in txs {
            for input in (tx["vin"] as? [[String: Any]]) ?? [] where input["coinbase"] == nil {
                guard let prevout = input["prevout"] as? [String: Any] else {
                    state.withLock { $0.prevouts = false }
                    return nil
                }
                guard let key = prevout["scriptPubKey"] as? [String: Any], let hex = key["hex"] as? String,
                    let script = try? Hex.decode(hex)
                else { throw bad("getblock \(Bitcoin.display(hash)) 3 (a prevout without its script)") }
                scripts.append(script)
            }
        }
        guard scripts.count == count else { throw bad("getblock \(Bitcoin.display(hash)) 3 (not one prevout per input)") }
        state.withLock { $0.prevouts = true }
        return scripts
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

    public func mempool() throws -> [[UInt8]] { try rawMempool() }

    /// With silent payments, each mempool transaction with the scripts its inputs spend: a
    /// mempool parent's output from the parent (fetched with the pool), a confirmed one's from
    /// `gettxout TXID N false` — the UTXO set as the blocks leave it, which needs no -txindex
    /// (with include_mempool true the node hides an output the mempool spends). A transaction
    /// whose spent output neither gives is passed without (the scan says so).
    public func mempoolTransactions() throws -> [PoolTransaction] {
        let raw = try rawMempool()
        guard spentOutputs else { return raw.map { PoolTransaction(blob: $0) } }
        let parsed = raw.map { try? Bitcoin.parseTransaction($0, what: "a mempool transaction", dialect: dialect) }
        var pool: [[UInt8]: BitcoinTransaction] = [:]
        for case let tx? in parsed { pool[tx.id] = tx }
        var outside = Set<[UInt8]>()
        for case let tx? in parsed {
            for input in tx.inputs where pool[Array(input.outpoint.prefix(32))] == nil { outside.insert(input.outpoint) }
        }
        var scripts: [[UInt8]: [UInt8]] = [:]
        let asked = Array(outside)
        for start in stride(from: 0, to: asked.count, by: 500) {
            let chunk = asked[start..<min(asked.count, start + 500)]
            let calls = chunk.map { ("gettxout", [Bitcoin.display(Array($0.prefix(32))), Int(Self.index($0)), false] as [Any]) }
            for (outpoint, answer) in zip(chunk, try batch(calls)) {
                switch answer {
                case .failure(let error): throw bad("gettxout (\(error.message))")
                case .success(let value):
                    // null: not in the UTXO set (spent by a block since, or never there).
                    guard let found = value as? [String: Any] else { continue }
                    guard let key = found["scriptPubKey"] as? [String: Any], let hex = key["hex"] as? String,
                        let script = try? Hex.decode(hex)
                    else { throw bad("gettxout (an output without its script)") }
                    scripts[outpoint] = script
                }
            }
        }
        return zip(raw, parsed).map { blob, tx in
            guard let tx else { return PoolTransaction(blob: blob) }
            var spent = [[UInt8]]()
            for input in tx.inputs {
                let index = Int(Self.index(input.outpoint))
                if let parent = pool[Array(input.outpoint.prefix(32))], index < parent.outputs.count {
                    spent.append(parent.outputs[index].script)
                } else if let script = scripts[input.outpoint] {
                    spent.append(script)
                } else {
                    return PoolTransaction(blob: blob)
                }
            }
            return PoolTransaction(blob: blob, spent: spent)
        }
    }

    /// An outpoint's output index (its last four bytes, little-endian).
    static func index(_ outpoint: [UInt8]) -> UInt32 { outpoint.suffix(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }

    private func rawMempool() throws -> [[UInt8]] {
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
