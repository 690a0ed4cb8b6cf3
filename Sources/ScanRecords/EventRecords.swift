#if canImport(Glibc)
    import Glibc
#endif
import WalletCore
import WalletScan
import WalletRecords
import KeySources

/// Event records: the engine's events in the chain's words, with the wallet's name.
public enum EventRecords {
    public static func record<C: ChainScanner & ChainRecords>(
        _ event: ScanEvent, chain: C.Type, wallet: String?, addresses: AddressBook<C>
    ) -> JSONObject {
        let names = C.fieldNames
        var r = JSONObject()
        func head(_ type: String) {
            r["type"] = .string(type)
            r["chain"] = .string(C.chainName)
            if let wallet { r["wallet"] = .string(wallet) }
        }
        /// An output's index, and its pool where the chain has several.
        func putIndex(_ index: Int, as key: String) {
            let pool = C.pool(ofIndex: index)
            if let pool { r["pool"] = .string(pool.name) }
            r[key] = .number(String(pool?.index ?? index))
        }
        func put(_ fields: [(key: String, value: JSONValue)]) {
            for (key, value) in fields { r[key] = value }
        }
        func put(_ o: ReceivedOutput) {
            r["txid"] = .string(C.transactionID(o.txID))
            putIndex(o.index, as: names.index)
            r[names.amount] = .string(String(o.amount))
            put(addresses.scanner.placeFields(account: o.account, addressIndex: o.addressIndex))
            if let address = addresses.scanner.addressPaid(o) ?? addresses.address(account: o.account, index: o.addressIndex) {
                r["address"] = .string(address)
            }
            if let memo = o.memo { for (key, value) in C.memoFields(memo) { r[key] = .string(value) } }
            if let tag = o.spendTag, let key = names.spendTag { r[key] = .string(C.spendTagText(tag)) }
            if let position = o.position { r["position"] = .number(String(position)) }
            put(C.outputFields(o))
            if o.isCoinbase { r["coinbase"] = .bool(true) }
            if o.isChange { r["change"] = .bool(true) }
        }
        func put(_ s: SpentOutput) {
            r["txid"] = .string(C.transactionID(s.spendingTxID))
            if let key = names.input { r[key] = .number(String(s.input)) }
            if let key = names.spendTag { r[key] = .string(C.spendTagText(s.spendTag)) }
            r["output_txid"] = .string(C.transactionID(s.outputTxID))
            putIndex(s.outputIndex, as: "output_" + names.index)
            r[names.amount] = .string(String(s.amount))
            put(addresses.scanner.placeFields(account: s.account, addressIndex: s.addressIndex))
        }
        switch event {
        case .received(let o, let confirmations):
            head("received")
            r["height"] = .number(String(o.height ?? 0))
            put(o)
            r["confirmations"] = .number(String(confirmations))
        case .pending(let o):
            head("pending")
            put(o)
            r["confirmations"] = .number("0")
        case .spent(let s, let confirmations):
            head("spent")
            r["height"] = .number(String(s.height))
            put(s)
            r["confirmations"] = .number(String(confirmations))
        case .pendingSpent(let s):
            head("pending_spent")
            put(s)
            r["confirmations"] = .number("0")
        case .reorg(let fork, let outputs, let spends):
            head("reorg")
            r["fork_height"] = .number(String(fork))
            r["undone_outputs"] = .number(String(outputs))
            r["undone_spends"] = .number(String(spends))
        case .balance(let b):
            head("balance")
            r["height"] = .number(String(C.reportedHeight(walletHeight: b.height)))
            put(C.sumFields(total: b.total, unlocked: b.unlocked, pending: b.pending))
            r["spends_known"] = .bool(b.spendsKnown)
            if !b.perPool.isEmpty {
                var pools = JSONObject()
                for name in b.perPool.keys.sorted() {
                    let sums = b.perPool[name]!
                    pools[name] = .object(JSONObject(["total": .string(String(sums.total)), "unlocked": .string(String(sums.unlocked))]))
                }
                r["pools"] = .object(pools)
            }
            r["accounts"] = .array(
                b.perAccount.keys.sorted().map { account in
                    let sums = b.perAccount[account]!
                    let fields =
                        addresses.scanner.placeFields(account: account, addressIndex: nil)
                        + C.sumFields(total: sums.total, unlocked: sums.unlocked, pending: b.pendingPerAccount[account] ?? 0)
                    var entry = JSONObject()
                    for (key, value) in fields { entry[key] = value }
                    return .object(entry)
                })
        case .progress, .catchUp:
            break
        }
        return r
    }
}

/// Each address's text, derived once: a wallet's payments land on few addresses, and deriving
/// one costs two scalar multiplications.
public final class AddressBook<C: ChainScanner & ChainRecords> {
    public let scanner: C
    private var known = [UInt64: String?]()

    public init(scanner: C) { self.scanner = scanner }

    public func address(account: UInt32, index: UInt32) -> String? {
        let key = UInt64(account) << 32 | UInt64(index)
        if let text = known[key] { return text }
        let text = scanner.address(account: account, index: index)
        known[key] = text
        return text
    }
}

/// scan-blocks' stdout as the synchronizer's event sink: events encoded as records, kept ones
/// logged by `StandardOutputLog` (straight to the descriptor after whatever the pipeline holds,
/// synced; when stdout is a regular file, `>> payments.jsonl`, the synchronizer reads back what
/// a killed run wrote, so no event is written twice), the others shown (records, progress on
/// stderr, catch-up notices).
public final class StandardOutputSink: EventSink {
    let pipeline: RecordPipeline
    /// auto (a bar on a terminal), jsonl, or none.
    let progress: String
    let record: (ScanEvent, String?) -> JSONObject
    private let onTerminal = isatty(2) != 0
    private let log: StandardOutputLog
    /// With --follow: a balance record only when the balance differs from the last one written
    /// (a poll that finds new blocks but no payment writes nothing).
    let balanceOnChange: Bool
    private var lastBalance = [String: [UInt8]]()

    public init(
        pipeline: RecordPipeline, progress: String, balanceOnChange: Bool = false, record: @escaping (ScanEvent, String?) -> JSONObject
    ) {
        self.pipeline = pipeline
        log = StandardOutputLog(pipeline: pipeline)
        self.progress = progress
        self.balanceOnChange = balanceOnChange
        self.record = record
    }

    public func encode(_ event: ScanEvent, wallet: String?, id: Int64) -> [UInt8] {
        var r = record(event, wallet)
        r["event_id"] = .number(String(id))
        var line = [UInt8]()
        JSONWriter.serialize(RecordSchema.stamped(r), into: &line)
        line.append(0x0A)
        return line
    }

    public func write(_ bytes: [UInt8]) throws { try log.write(bytes) }

    public func show(_ event: ScanEvent, wallet: String?) throws {
        if case .balance = event, balanceOnChange {
            var r = record(event, wallet)
            r["height"] = nil  // the height moves with every block; the balance may not
            var key = [UInt8]()
            JSONWriter.serialize(r, into: &key)
            if key == lastBalance[wallet ?? ""] { return }
            lastBalance[wallet ?? ""] = key
        }
        if case .catchUp(let pool, let from, let to, let waiting) = event {
            let who = wallet.map { "wallet \($0): " } ?? ""
            return pipeline.warn(
                waiting
                    ? "\(who)the \(pool) pool is still to be scanned in blocks \(from)-\(to), which an earlier version scanned without it, and the source does not serve them now: its notes there are missing from the balance until a run whose source does"
                    : "\(who)blocks \(from)-\(to) were scanned by an earlier version that did not scan the \(pool) pool: scanning them again for \(pool) alone (once; what was reported stays as it is)"
            )
        }
        guard case .progress(let height, let chainHeight) = event else { return try pipeline.emit(record(event, wallet)) }
        switch progress {
        case "jsonl":
            let tip = chainHeight.map { #","chain_height":\#($0)"# } ?? ""
            try? OutputStream.standardError.write(#"{"type":"progress","height":\#(height)"# + tip + "}\n")
        case "auto" where onTerminal: try? OutputStream.standardError.write("\r" + Self.bar(height: height, chainHeight: chainHeight))
        default: break
        }
    }

    /// "[#########-----------]  45%  5200/11500", one line, redrawn in place; "block 5200" when
    /// the source cannot tell the tip (a file is read as a stream).
    public static func bar(height: Int, chainHeight: Int?, width: Int = 30) -> String {
        guard let chainHeight else { return "block \(height)" }
        let fraction = chainHeight > 0 ? min(1, Double(height) / Double(chainHeight)) : 1
        let filled = Int(fraction * Double(width))
        let percent = String(Int(fraction * 100))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
            + String(repeating: " ", count: 3 - percent.count) + percent + "%  \(height)/\(chainHeight)"
    }

    public func endProgress() {
        if progress == "auto" && onTerminal { try? OutputStream.standardError.write("\n") }
    }

    public func position() throws -> SinkPosition? { try log.position() }

    public func contents(at position: SinkPosition, count: Int) throws -> (bytes: [UInt8], end: Int64)? {
        try log.contents(at: position, count: count)
    }
}

/// Standard output as the event log: written whole and synced after the pipeline's own
/// records, read back when it is a regular file (so a killed run repeats nothing there).
public final class StandardOutputLog: EventLog {
    let pipeline: RecordPipeline
    private let output = OutputStream.standardOutput

    public init(pipeline: RecordPipeline) { self.pipeline = pipeline }

    public func write(_ bytes: [UInt8]) throws {
        try pipeline.flush()
        try output.write(bytes)
        try output.sync()
    }

    public func position() throws -> SinkPosition? {
        try pipeline.flush()
        return output.filePosition().map { SinkPosition(device: $0.device, inode: $0.inode, offset: $0.offset) }
    }

    public func contents(at position: SinkPosition, count: Int) throws -> (bytes: [UInt8], end: Int64)? {
        guard let now = output.filePosition(), now.device == position.device, now.inode == position.inode,
            let bytes = output.readBack(device: position.device, inode: position.inode, offset: position.offset, count: count)
        else { return nil }
        return (bytes, now.offset)
    }
}
