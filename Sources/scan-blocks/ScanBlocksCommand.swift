import ArgumentParser
import Foundation
import WalletCLI
import WalletCore
import WalletKeys
import WalletScan
#if canImport(Glibc)
import Glibc
#endif

@main
struct ScanBlocksCommand: ParsableCommand {
    /// Core dumps off before anything is read: a crash must not write secrets to disk.
    static func main() {
        ProcessHardening.disableCoreDumps()
        main(nil)
    }

    static let configuration = CommandConfiguration(
        commandName: "scan-blocks",
        abstract: "The wallet synchronizer: finds a Monero wallet's payments and spends in blocks, resumably.",
        discussion: """
        Writes events as JSON Lines: received, spent, pending (mempool), reorg, and a final
        balance. State (scanned height, outputs, key images, events not yet written) is kept
        in SQLite per wallet; a killed or repeated run goes on where it stopped. Appending to a
        file, every event is written exactly once; on a pipe a repeat keeps its event_id.
        See scan-blocks(1).

        Example (cron, every 5 minutes):
          */5 * * * * scan-blocks --wallet shop --keystore-pass-file ~/.pass --blocks /srv/xmr/blocks.jsonl --txs /srv/xmr/txs.jsonl >> payments.jsonl
        """,
        version: SatchelVersion.string)

    @Option(help: "Chain: monero.")
    var chain: String = "monero"

    @Option(help: "mainnet, testnet or stagenet (regtest chains use mainnet addresses).")
    var network: String = "mainnet"

    @Option(help: ArgumentHelp("First block height to scan (the wallet's birthday); default: the key-store entry's xmr birthday.", valueName: "height"))
    var birthday: Int?

    @Option(help: ArgumentHelp("Where the scan state lives (default $XDG_DATA_HOME/satchel/scan).", valueName: "dir"))
    var stateDir: String?

    @Option(help: ArgumentHelp("Block records, JSON Lines, plain or zstd: height, hash, blob, tx_hashes; transaction records may be mixed in. - is stdin (the key then comes from --wallet, --key-file or --key-fd).", valueName: "file"))
    var blocks: String?

    @Option(help: ArgumentHelp("Transaction records, JSON Lines, plain or zstd: tx_hash, hex, in_pool.", valueName: "file"))
    var txs: String?

    @Option(help: ArgumentHelp("A monerod RPC address, e.g. 127.0.0.1:18081, instead of --blocks.", valueName: "host:port"))
    var node: String?

    @Flag(help: "Forget what was scanned (keeping the subaddress table) and scan again from the birthday, reporting everything again.")
    var rescan = false

    @Flag(help: "With --node: keep polling for new blocks (every --interval seconds) until stopped.")
    var follow = false

    @Option(help: "Seconds between polls with --follow.")
    var interval: Double = 30

    @Option(help: ArgumentHelp("Stop after this height.", valueName: "height"))
    var untilHeight: Int?

    @Option(help: ArgumentHelp("Scan at most this many blocks in this run.", valueName: "n"))
    var maxBlocks: Int?

    @Option(help: "Progress on stderr: auto (a line on a terminal), jsonl, or none.")
    var progress: String = "auto"

    @Option(help: ArgumentHelp("Subaddress lookahead, majors,minors (Monero's default 50,200).", valueName: "m,n"))
    var lookahead: String = "50,200"

    @OptionGroup var walletOptions: WalletOptions

    @OptionGroup var keyOptions: KeyOptions

    func validate() throws {
        guard chain == "monero" else { throw ValidationError("--chain: only monero is supported so far") }
        guard MoneroNetwork.all.contains(where: { $0.name == network }) else { throw ValidationError("--network must be mainnet, testnet or stagenet") }
        guard ["auto", "jsonl", "none"].contains(progress) else { throw ValidationError("--progress must be auto, jsonl or none") }
        guard parsedLookahead != nil else { throw ValidationError("--lookahead takes two numbers, e.g. 50,200") }
        if let maxBlocks, !(1...Self.maxHeight).contains(maxBlocks) { throw ValidationError("--max-blocks must be 1 to \(Self.maxHeight)") }
        for (name, value) in [("--birthday", birthday), ("--until-height", untilHeight)] {
            if let value, !(0...Self.maxHeight).contains(value) { throw ValidationError("\(name) must be a height from 0 to \(Self.maxHeight)") }
        }
        guard interval.isFinite, (0.1...86_400).contains(interval) else { throw ValidationError("--interval must be 0.1 to 86400 seconds") }
        if node != nil && blocks != nil { throw ValidationError("give --blocks or --node, not both") }
        if follow && node == nil { throw ValidationError("--follow goes with --node") }
        if walletOptions.wallet != nil && keyOptions.isGiven { throw ValidationError("give --wallet or --key-file/--key-fd, not both") }
        if txs == "-" { throw ValidationError("--txs cannot be stdin: give --blocks - with the transaction records mixed in") }
        if blocks == "-" && walletOptions.wallet == nil && !keyOptions.isGiven {
            throw ValidationError("--blocks - reads the chain from stdin: give the wallet with --wallet, --key-file or --key-fd")
        }
    }

    static let maxHeight = KeyStoreRecords.maxHeight

    var parsedLookahead: (UInt32, UInt32)? {
        let parts = lookahead.split(separator: ",").compactMap { UInt32($0) }
        return parts.count == 2 && parts.allSatisfy({ $0 >= 1 && $0 <= 100_000 }) ? (parts[0], parts[1]) : nil
    }

    func run() throws {
        let pipeline = RecordPipeline(tool: "scan-blocks")
        do {
            var initializer = WalletInitializer(birthday: birthday, stateDirectory: stateDir)
            // The wallet: a key-store entry, a key record from --key-file/--key-fd, or the one line on stdin.
            if let name = walletOptions.wallet {
                let entry = try walletOptions.keyStore.store.load(name, passphrase: try walletOptions.keyStore.passphrase(confirm: false))
                guard case .monero(let keys) = try KeyStoreRecords.keySource(entry, bip39Passphrase: nil) else {
                    throw DerivationError.unsupported("entry '\(name)' is not a Monero wallet")
                }
                initializer.keys = keys
                if initializer.birthday == nil { initializer.birthday = entry.metadata.birthdays["xmr"] }
            } else if let record = try keyOptions.read() ?? (isatty(0) == 0 ? try SingleRecord.read() : nil) {
                // A view-only or full key record: --key-file/--key-fd, or the one line on stdin.
                var scratch = record
                guard case .monero(let keys) = try RecordKeys(coin: "xmr", accountPath: nil, sharedPassphrase: nil,
                                                                   moneroNetwork: MoneroNetwork.all.first { $0.name == network }).source(record, out: &scratch) else {
                    throw DerivationError.unsupported("the key record is not a Monero wallet")
                }
                initializer.keys = keys
                if initializer.birthday == nil, let h = try record.optionalInt("birthday") { initializer.birthday = h }
            }
            if let blocks { initializer.source = try FileBlockSource(blocksPath: blocks, transactionsPath: txs) }
            if let node { initializer.source = try MoneroRPCSource(address: node) }
            let resolved = try initializer.resolve(network: network)

            // One scan per wallet at a time: a second one exits 75 at once (cron overlap).
            let lock = open(resolved.lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard lock >= 0 else { throw InitializerError.stateDirectory(resolved.lockPath) }
            defer { close(lock) }
            guard flock(lock, LOCK_EX | LOCK_NB) == 0 else { throw ScanStateError.locked(resolved.lockPath) }

            let sync = try MoneroSynchronizer(keys: resolved.keys, source: resolved.source, statePath: resolved.statePath,
                                              birthday: resolved.birthday, lookahead: parsedLookahead!)
            if rescan { try sync.resetToBirthday() }
            let net = MoneroNetwork.all.first { $0.name == network }!
            let addresses = AddressBook(keys: resolved.keys, network: net)
            let sink = StandardOutputSink(pipeline: pipeline, progress: progress, balanceOnChange: follow) { Self.record($0, addresses: addresses) }
            repeat {
                try sync.run(untilHeight: untilHeight, maxBlocks: maxBlocks, sink: sink)
                try pipeline.flush()
                if follow { Thread.sleep(forTimeInterval: interval) }
            } while follow
            sink.endProgress()
            try pipeline.flush()
        } catch let error as any WalletError {
            try pipeline.fail(error).exitIfFailed()
        }
    }

    static func record(_ event: ScanEvent, addresses: AddressBook) -> JSONObject {
        var r = JSONObject()
        func put(_ o: ReceivedOutput) {
            r["txid"] = .string(Hex.encode(o.txID))
            r["index"] = .number(String(o.index))
            r["amount"] = .string(String(o.amount))
            r["major"] = .number(String(o.major))
            r["minor"] = .number(String(o.minor))
            if let address = addresses.address(major: o.major, minor: o.minor) { r["address"] = .string(address) }
            if let pid = o.paymentID { r["payment_id"] = .string(Hex.encode(pid)) }
            if let image = o.keyImage { r["key_image"] = .string(Hex.encode(image)) }
            if o.unlockTime != 0 { r["unlock_time"] = .string(String(o.unlockTime)) }
            if o.isCoinbase { r["coinbase"] = .bool(true) }
            if o.isChange { r["change"] = .bool(true) }
        }
        switch event {
        case .received(let o, let confirmations):
            r["type"] = .string("received"); r["chain"] = .string("monero")
            r["height"] = .number(String(o.height ?? 0))
            put(o)
            r["confirmations"] = .number(String(confirmations))
        case .pending(let o):
            r["type"] = .string("pending"); r["chain"] = .string("monero")
            put(o)
            r["confirmations"] = .number("0")
        case .spent(let s, let confirmations):
            r["type"] = .string("spent"); r["chain"] = .string("monero")
            r["height"] = .number(String(s.height))
            r["txid"] = .string(Hex.encode(s.spendingTxID))
            r["key_image"] = .string(Hex.encode(s.keyImage))
            r["output_txid"] = .string(Hex.encode(s.outputTxID))
            r["output_index"] = .number(String(s.outputIndex))
            r["amount"] = .string(String(s.amount))
            r["major"] = .number(String(s.major))
            r["minor"] = .number(String(s.minor))
            r["confirmations"] = .number(String(confirmations))
        case .reorg(let fork, let outputs, let spends):
            r["type"] = .string("reorg"); r["chain"] = .string("monero")
            r["fork_height"] = .number(String(fork))
            r["undone_outputs"] = .number(String(outputs))
            r["undone_spends"] = .number(String(spends))
        case .balance(let b):
            r["type"] = .string("balance"); r["chain"] = .string("monero")
            r["height"] = .number(String(b.height))
            r["total"] = .string(String(b.total))
            r["unlocked"] = .string(String(b.unlocked))
            r["spends_known"] = .bool(b.spendsKnown)
            r["accounts"] = .array(b.perAccount.keys.sorted().map { major in
                .object(JSONObject(["major": .number(String(major)), "total": .string(String(b.perAccount[major]!.total)),
                                    "unlocked": .string(String(b.perAccount[major]!.unlocked))]))
            })
        case .progress:
            break
        }
        return r
    }
}

/// Each subaddress's text, derived once: a wallet's payments land on few addresses, and deriving
/// one costs two scalar multiplications.
final class AddressBook {
    let keys: MoneroKeys
    let network: MoneroNetwork
    private var known = [UInt64: String]()

    init(keys: MoneroKeys, network: MoneroNetwork) {
        self.keys = keys
        self.network = network
    }

    func address(major: UInt32, minor: UInt32) -> String? {
        let index = UInt64(major) << 32 | UInt64(minor)
        if let text = known[index] { return text }
        let text = try? keys.subaddress(major: major, minor: minor, network).address
        known[index] = text
        return text
    }
}

/// scan-blocks' stdout as the synchronizer's event sink. Kept events are written straight to
/// the descriptor (after whatever the pipeline holds) and synced; when stdout is a regular file
/// (`>> payments.jsonl`), the synchronizer can read back what a killed run wrote, so no event
/// is written twice.
final class StandardOutputSink: EventSink {
    let pipeline: RecordPipeline
    let progress: String
    let record: (ScanEvent) -> JSONObject
    private let onTerminal = isatty(2) != 0
    private let output = OutputStream.standardOutput
    /// With --follow: a balance record only when the balance differs from the last one written
    /// (a poll that finds new blocks but no payment writes nothing).
    let balanceOnChange: Bool
    private var lastBalance: [UInt8]?

    init(pipeline: RecordPipeline, progress: String, balanceOnChange: Bool = false, record: @escaping (ScanEvent) -> JSONObject) {
        self.pipeline = pipeline
        self.progress = progress
        self.balanceOnChange = balanceOnChange
        self.record = record
    }

    func encode(_ event: ScanEvent, id: Int64) -> [UInt8] {
        var r = record(event)
        r["event_id"] = .number(String(id))
        var line = [UInt8]()
        JSONWriter.serialize(RecordSchema.stamped(r), into: &line)
        line.append(0x0A)
        return line
    }

    func write(_ bytes: [UInt8]) throws {
        try pipeline.flush()
        try output.write(bytes)
        try output.sync()
    }

    func show(_ event: ScanEvent) throws {
        if case .balance = event, balanceOnChange {
            var r = record(event)
            r["height"] = nil  // the height moves with every block; the balance may not
            var key = [UInt8]()
            JSONWriter.serialize(r, into: &key)
            if key == lastBalance { return }
            lastBalance = key
        }
        guard case .progress(let height, let chainHeight) = event else { return try pipeline.emit(record(event)) }
        switch progress {
        case "jsonl": try? OutputStream.standardError.write(#"{"type":"progress","height":\#(height),"chain_height":\#(chainHeight)}"# + "\n")
        case "auto" where onTerminal: try? OutputStream.standardError.write("\r" + Self.bar(height: height, chainHeight: chainHeight))
        default: break
        }
    }

    /// "[#########-----------]  45%  5200/11500", one line, redrawn in place.
    static func bar(height: Int, chainHeight: Int, width: Int = 30) -> String {
        let fraction = chainHeight > 0 ? min(1, Double(height) / Double(chainHeight)) : 1
        let filled = Int(fraction * Double(width))
        let percent = String(Int(fraction * 100))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
            + String(repeating: " ", count: 3 - percent.count) + percent + "%  \(height)/\(chainHeight)"
    }

    func endProgress() {
        if progress == "auto" && onTerminal { try? OutputStream.standardError.write("\n") }
    }

    func position() throws -> SinkPosition? {
        try pipeline.flush()
        return output.filePosition().map { SinkPosition(device: $0.device, inode: $0.inode, offset: $0.offset) }
    }

    func contents(at position: SinkPosition, count: Int) throws -> (bytes: [UInt8], end: Int64)? {
        guard let now = output.filePosition(), now.device == position.device, now.inode == position.inode,
              let bytes = output.readBack(device: position.device, inode: position.inode, offset: position.offset, count: count) else { return nil }
        return (bytes, now.offset)
    }
}
