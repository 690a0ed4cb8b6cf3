import ArgumentParser
import Foundation
import WalletCLI
import Monero
import MoneroNode
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
        abstract: "The wallet synchronizer: finds Monero and Zcash (Sapling) wallets' payments and spends in blocks, resumably.",
        discussion: """
        Writes events as JSON Lines: received, spent, pending (mempool), reorg, and a final
        balance. State (scanned height, outputs, key images, events not yet written) is kept
        in SQLite per wallet; a killed or repeated run goes on where it stopped. Appending to a
        file, every event is written exactly once; on a pipe a repeat keeps its event_id.
        Several wallets (--wallet repeated, or --wallets FILE) share one pass over the chain;
        their records carry "wallet". See scan-blocks(1).

        --chain zcash reads lightwalletd's compact blocks (.pb stream or JSON Lines, or live with
        --lightwalletd over gRPC and TLS) and trial-decrypts every Sapling output with the
        wallet's viewing keys.

        Example (cron, every 5 minutes):
          */5 * * * * scan-blocks --wallet shop --keystore-pass-file ~/.pass --blocks /srv/xmr/blocks.jsonl --txs /srv/xmr/txs.jsonl >> payments.jsonl
          scan-blocks --chain zcash --wallet zshop --keystore-pass-file ~/.pass --blocks /srv/zec/compact.pb >> zec-payments.jsonl
          scan-blocks --chain zcash --wallet zshop --keystore-pass-file ~/.pass --lightwalletd lwd.example.org:9067 >> zec-payments.jsonl
        """,
        version: SatchelVersion.string + " (curve kernels: \(CurveBatchPath.inUse.rawValue)"
            + (CurveBatchPath.forcedButUnavailable ? "; SATCHEL_SIMD names a path this CPU lacks" : "") + ")")

    @Option(help: "Chain: monero or zcash (Sapling, from compact blocks).")
    var chain: String = "monero"

    @Option(help: "mainnet, testnet or stagenet (regtest chains use mainnet addresses).")
    var network: String = "mainnet"

    @Option(help: ArgumentHelp("First block height to scan (the wallet's birthday); default: the key-store entry's xmr (zec) birthday.", valueName: "height"))
    var birthday: Int?

    @Option(help: ArgumentHelp("Where the scan state lives (default $XDG_DATA_HOME/satchel/scan).", valueName: "dir"))
    var stateDir: String?

    @Option(help: ArgumentHelp("Block records, JSON Lines, plain or zstd: height, hash, blob, tx_hashes; transaction records may be mixed in. - is stdin (the key then comes from --wallet, --key-file or --key-fd).", valueName: "file"))
    var blocks: String?

    @Option(help: ArgumentHelp("Transaction records, JSON Lines, plain or zstd: tx_hash, hex, in_pool (zcash: height, txid, raw_tx, for memos).", valueName: "file"))
    var txs: String?

    @Option(help: ArgumentHelp("A monerod RPC address, e.g. 127.0.0.1:18081, instead of --blocks.", valueName: "host:port"))
    var node: String?

    @Option(help: ArgumentHelp("--chain zcash: a lightwalletd's gRPC address, e.g. lwd.example.org:9067, instead of --blocks; TLS unless --plaintext.", valueName: "host:port"))
    var lightwalletd: String?

    @Flag(help: "With --lightwalletd on this machine (127.0.0.1, ::1, localhost): no TLS.")
    var plaintext = false

    @Option(help: ArgumentHelp("With --lightwalletd: PEM certificates to trust instead of the system's.", valueName: "file"))
    var caFile: String?

    @Option(help: ArgumentHelp("With --node or --lightwalletd: seconds without an answer before a call is tried again (3 times, then exit 69); with --node the whole call must end within it.", valueName: "seconds"))
    var timeout: Double = 30

    @Option(help: ArgumentHelp("The deepest reorg a run follows, in blocks; a deeper one ends it (exit 76). At most 10 reorgs are followed per run.", valueName: "blocks"))
    var maxReorgDepth: Int = 1_000

    @Flag(help: "Forget what was scanned (keeping the subaddress table) and scan again from the birthday, reporting everything again.")
    var rescan = false

    @Flag(help: "With --node or --lightwalletd: keep polling for new blocks (every --interval seconds) until stopped.")
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

    @Option(name: .customLong("wallet"), help: ArgumentHelp("A key-store entry to scan; repeat it to scan several wallets in one pass.", valueName: "name"))
    var walletNames: [String] = []

    @Option(help: ArgumentHelp("A file (mode 0600) of wallets to scan in one pass, one per line: a key-store entry's name, or a key record (view_key and address, …; optional name and birthday).", valueName: "file"))
    var wallets: String?

    @OptionGroup var keyStore: KeyStoreOptions

    @OptionGroup var keyOptions: KeyOptions

    func validate() throws {
        guard ["monero", "zcash"].contains(chain) else { throw ValidationError("--chain must be monero or zcash") }
        if chain == "zcash" {
            guard ["mainnet", "main", "testnet", "test"].contains(network) else { throw ValidationError("--network must be mainnet or testnet for zcash") }
            if node != nil { throw ValidationError("--node is monerod's; Zcash compact blocks come from --blocks or --lightwalletd") }
            if lightwalletd != nil && blocks != nil { throw ValidationError("give --blocks or --lightwalletd, not both") }
            if lightwalletd != nil && txs != nil { throw ValidationError("--txs goes with --blocks (memos are not fetched from a lightwalletd)") }
        } else {
            if lightwalletd != nil { throw ValidationError("--lightwalletd is Zcash's (--chain zcash); monerod's address goes to --node") }
            guard MoneroNetwork.all.contains(where: { $0.name == network }) else { throw ValidationError("--network must be mainnet, testnet or stagenet") }
        }
        guard ["auto", "jsonl", "none"].contains(progress) else { throw ValidationError("--progress must be auto, jsonl or none") }
        guard parsedLookahead != nil else { throw ValidationError("--lookahead takes two numbers, e.g. 50,200") }
        if let maxBlocks, !(1...Self.maxHeight).contains(maxBlocks) { throw ValidationError("--max-blocks must be 1 to \(Self.maxHeight)") }
        for (name, value) in [("--birthday", birthday), ("--until-height", untilHeight)] {
            if let value, !(0...Self.maxHeight).contains(value) { throw ValidationError("\(name) must be a height from 0 to \(Self.maxHeight)") }
        }
        guard interval.isFinite, (0.1...86_400).contains(interval) else { throw ValidationError("--interval must be 0.1 to 86400 seconds") }
        if node != nil && blocks != nil { throw ValidationError("give --blocks or --node, not both") }
        if follow && node == nil && lightwalletd == nil { throw ValidationError("--follow goes with --node or --lightwalletd") }
        if (plaintext || caFile != nil) && lightwalletd == nil { throw ValidationError("--plaintext and --ca-file go with --lightwalletd") }
        if plaintext && caFile != nil { throw ValidationError("give --plaintext or --ca-file, not both") }
        guard timeout.isFinite, (0.1...3_600).contains(timeout) else { throw ValidationError("--timeout must be 0.1 to 3600 seconds") }
        guard (1...1_000_000).contains(maxReorgDepth) else { throw ValidationError("--max-reorg-depth must be 1 to 1000000") }
        if !walletNames.isEmpty && keyOptions.isGiven { throw ValidationError("give --wallet or --key-file/--key-fd, not both") }
        if txs == "-" { throw ValidationError("--txs cannot be stdin: give --blocks - with the transaction records mixed in") }
        if blocks == "-" && walletNames.isEmpty && wallets == nil && !keyOptions.isGiven {
            throw ValidationError("--blocks - reads the chain from stdin: give the wallet with --wallet, --wallets, --key-file or --key-fd")
        }
    }

    static let maxHeight = KeyStoreRecords.maxHeight

    var parsedLookahead: (UInt32, UInt32)? {
        let parts = lookahead.split(separator: ",").compactMap { UInt32($0) }
        return parts.count == 2 && parts.allSatisfy({ $0 >= 1 && $0 <= 100_000 }) ? (parts[0], parts[1]) : nil
    }

    /// A wallet to scan, as given: its name in events (nil for one unnamed wallet), keys and birthday.
    struct GivenWallet {
        let name: String?
        let keys: MoneroKeys
        let birthday: Int?
    }

    func run() throws {
        let pipeline = RecordPipeline(tool: "scan-blocks")
        do {
            if chain == "zcash" { return try runZcash(pipeline) }
            let net = MoneroNetwork.all.first { $0.name == network }!
            // Before the keys are read: a Zcash stream names its option, not its key's kind.
            if let blocks, blocks != "-", let first = try ByteStream.firstByte(of: blocks), first != UInt8(ascii: "{") {
                throw CLIError.usage("\(blocks) is not JSON Lines of Monero blocks (it starts with byte 0x\(Hex.encode([first]))): "
                    + "Zcash compact blocks (a .pb stream) are scanned with --chain zcash")
            }
            let given = try gatherWallets(network: net)
            let scanners = given.map { MoneroScanner(keys: $0.keys, network: net, lookahead: parsedLookahead!) }
            var source: (any BlockSource)?
            if let blocks { source = try FileBlockSource(blocksPath: blocks, transactionsPath: txs) }
            if let node { source = try MoneroRPCSource(address: node, timeout: timeout) }
            try synchronize(pipeline, wallets: given.map { ($0.name, $0.birthday) }, scanners: scanners,
                            stateNames: scanners.map(\.stateName), source: source)
        } catch let error as any WalletError {
            try pipeline.fail(error).exitIfFailed()
        }
    }

    /// The run for any chain: state, locks, the synchronizer, events to stdout.
    func synchronize<C: ChainScanner>(_ pipeline: RecordPipeline, wallets given: [(name: String?, birthday: Int?)], scanners: [C],
                                      stateNames: [String], source: (any BlockSource)?, afterEachRun: () -> Void = {}) throws {
        do {
            var initializer = WalletInitializer(birthday: birthday, stateDirectory: stateDir)
            initializer.wallets = zip(given, stateNames).map { WalletInitializer.Wallet(name: $0.name, stateName: $1, birthday: $0.birthday) }
            initializer.source = source
            let resolved = try initializer.resolve()

            // One scan per wallet at a time: a second one exits 75 at once (cron overlap).
            var locks = [Int32]()
            defer { locks.forEach { close($0) } }
            for wallet in resolved.wallets {
                let lock = open(wallet.lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
                guard lock >= 0 else { throw InitializerError.stateDirectory(wallet.lockPath) }
                locks.append(lock)
                guard flock(lock, LOCK_EX | LOCK_NB) == 0 else { throw ScanStateError.locked(wallet.lockPath) }
            }

            let sync = try Synchronizer<C>(
                wallets: zip(resolved.wallets, scanners).map { .init(name: $0.name, scanner: $1, statePath: $0.statePath, birthday: $0.birthday) },
                source: resolved.source)
            sync.maxReorgDepth = maxReorgDepth
            if rescan { try sync.resetToBirthday() }
            let books = Dictionary(uniqueKeysWithValues: zip(given.map { $0.name ?? "" }, scanners).map { ($0, AddressBook(scanner: $1)) })
            let sink = StandardOutputSink(pipeline: pipeline, progress: progress, balanceOnChange: follow) { event, wallet in
                EventRecords.record(event, chain: C.self, wallet: wallet, addresses: books[wallet ?? ""]!)
            }
            repeat {
                try sync.run(untilHeight: untilHeight, maxBlocks: maxBlocks, sink: sink)
                afterEachRun()
                try pipeline.flush()
                if follow { Thread.sleep(forTimeInterval: interval) }
            } while follow
            sink.endProgress()
            try pipeline.flush()
        } catch let error as any WalletError {
            try pipeline.fail(error).exitIfFailed()
        }
    }

    /// The --wallet names and the --wallets file's lines: key-store entries' names, and key
    /// records (a line starting with "{"); blank lines and "#" comments are skipped.
    func walletsFile() throws -> (names: [String], records: [(name: String?, record: JSONObject, what: String)]) {
        var names = walletNames
        var records = [(name: String?, record: JSONObject, what: String)]()
        guard let wallets else { return (names, records) }
        // A line at a time: the file has no size limit (10,000 wallets are about 2 MB).
        try SecretInput.forEachLine(ofFile: wallets) { line, lineNumber in
            let what = "\(wallets) line \(lineNumber)"
            var trimmed = Array(line.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }.reversed())
            defer { SecureBytes.wipe(&trimmed) }
            if trimmed.isEmpty || trimmed.first == UInt8(ascii: "#") { return }
            if trimmed.first == UInt8(ascii: "{") {
                let record: JSONObject
                do { record = try JSONParser.parseObject(trimmed) } catch let error as JSONSyntaxError {
                    throw ScanError.malformed(what: what, reason: "not a JSON object (\(error.reason) at byte \(error.offset))")
                }
                records.append((try record.optionalString("name"), record, what))
            } else {
                let name = String(decoding: trimmed, as: UTF8.self)
                guard !name.contains(where: { $0 == " " || $0 == "\t" }) else {
                    throw ScanError.malformed(what: what, reason: "a line holds a key-store entry's name or a JSON key record")
                }
                names.append(name)
            }
        }
        return (names, records)
    }

    /// The wallets of this run: key-store entries (--wallet, names in --wallets), key records
    /// (--wallets, --key-file/--key-fd), or the one key record on stdin.
    func gatherWallets(network: MoneroNetwork) throws -> [GivenWallet] {
        var (names, records) = try walletsFile()
        var given = [GivenWallet]()
        if !names.isEmpty {
            for name in names { try keyStore.requireEntry(name) }
            let passphrase = try keyStore.passphrase(confirm: false)
            for name in names {
                let entry = try keyStore.store.load(name, passphrase: passphrase)
                guard case .monero(let keys) = try KeyStoreRecords.keySource(entry, bip39Passphrase: nil) else {
                    throw DerivationError.unsupported("entry '\(name)' is not a Monero wallet")
                }
                given.append(GivenWallet(name: name, keys: keys, birthday: entry.metadata.birthdays["xmr"]))
            }
        }
        if let record = try keyOptions.read() {
            records.append((nil, record, "the key record"))
        } else if names.isEmpty && records.isEmpty && isatty(0) == 0 && blocks != "-", let record = try SingleRecord.read() {
            records.append((nil, record, "the key record on stdin"))
        }
        let several = names.count + records.count > 1
        for (name, record, what) in records {
            var scratch = record
            let source: KeySource
            do {
                source = try RecordKeys(coin: "xmr", accountPath: nil, sharedPassphrase: nil, moneroNetwork: network).source(record, out: &scratch)
            } catch let error as any WalletError where several {
                throw ScanError.malformed(what: what, reason: error.message)
            }
            guard case .monero(let keys) = source else {
                throw DerivationError.unsupported("\(what) is not a Monero wallet (Zcash keys are scanned with --chain zcash)")
            }
            // Several wallets' events are told apart by name; a record without one is named by its address.
            let label = name ?? (several ? keys.primaryAddress(network) : nil)
            given.append(GivenWallet(name: label, keys: keys, birthday: try record.optionalInt("birthday", in: 0...Self.maxHeight)))
        }
        return given
    }
}

/// Event records: the engine's events in the chain's words, with the wallet's name.
enum EventRecords {
    static func record<C: ChainScanner>(_ event: ScanEvent, chain: C.Type, wallet: String?, addresses: AddressBook<C>) -> JSONObject {
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
        func put(_ o: ReceivedOutput) {
            r["txid"] = .string(Hex.encode(o.txID))
            putIndex(o.index, as: "index")
            r["amount"] = .string(String(o.amount))
            r[names.account] = .number(String(o.account))
            r[names.addressIndex] = .number(String(o.addressIndex))
            if let address = addresses.scanner.addressPaid(o) ?? addresses.address(account: o.account, index: o.addressIndex) {
                r["address"] = .string(address)
            }
            if let memo = o.memo { for (key, value) in C.memoFields(memo) { r[key] = .string(value) } }
            if let tag = o.spendTag { r[names.spendTag] = .string(Hex.encode(tag)) }
            if let position = o.position { r["position"] = .number(String(position)) }
            if o.unlockTime != 0 { r["unlock_time"] = .string(String(o.unlockTime)) }
            if o.isCoinbase { r["coinbase"] = .bool(true) }
            if o.isChange { r["change"] = .bool(true) }
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
            r["txid"] = .string(Hex.encode(s.spendingTxID))
            r[names.spendTag] = .string(Hex.encode(s.spendTag))
            r["output_txid"] = .string(Hex.encode(s.outputTxID))
            putIndex(s.outputIndex, as: "output_index")
            r["amount"] = .string(String(s.amount))
            r[names.account] = .number(String(s.account))
            r[names.addressIndex] = .number(String(s.addressIndex))
            r["confirmations"] = .number(String(confirmations))
        case .reorg(let fork, let outputs, let spends):
            head("reorg")
            r["fork_height"] = .number(String(fork))
            r["undone_outputs"] = .number(String(outputs))
            r["undone_spends"] = .number(String(spends))
        case .balance(let b):
            head("balance")
            r["height"] = .number(String(b.height))
            r["total"] = .string(String(b.total))
            r["unlocked"] = .string(String(b.unlocked))
            r["spends_known"] = .bool(b.spendsKnown)
            if !b.perPool.isEmpty {
                var pools = JSONObject()
                for name in b.perPool.keys.sorted() {
                    let sums = b.perPool[name]!
                    pools[name] = .object(JSONObject(["total": .string(String(sums.total)), "unlocked": .string(String(sums.unlocked))]))
                }
                r["pools"] = .object(pools)
            }
            r["accounts"] = .array(b.perAccount.keys.sorted().map { account in
                .object(JSONObject([names.account: .number(String(account)), "total": .string(String(b.perAccount[account]!.total)),
                                    "unlocked": .string(String(b.perAccount[account]!.unlocked))]))
            })
        case .progress:
            break
        }
        return r
    }
}

/// Each address's text, derived once: a wallet's payments land on few addresses, and deriving
/// one costs two scalar multiplications.
final class AddressBook<C: ChainScanner> {
    let scanner: C
    private var known = [UInt64: String?]()

    init(scanner: C) { self.scanner = scanner }

    func address(account: UInt32, index: UInt32) -> String? {
        let key = UInt64(account) << 32 | UInt64(index)
        if let text = known[key] { return text }
        let text = scanner.address(account: account, index: index)
        known[key] = text
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
    let record: (ScanEvent, String?) -> JSONObject
    private let onTerminal = isatty(2) != 0
    private let output = OutputStream.standardOutput
    /// With --follow: a balance record only when the balance differs from the last one written
    /// (a poll that finds new blocks but no payment writes nothing).
    let balanceOnChange: Bool
    private var lastBalance = [String: [UInt8]]()

    init(pipeline: RecordPipeline, progress: String, balanceOnChange: Bool = false, record: @escaping (ScanEvent, String?) -> JSONObject) {
        self.pipeline = pipeline
        self.progress = progress
        self.balanceOnChange = balanceOnChange
        self.record = record
    }

    func encode(_ event: ScanEvent, wallet: String?, id: Int64) -> [UInt8] {
        var r = record(event, wallet)
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

    func show(_ event: ScanEvent, wallet: String?) throws {
        if case .balance = event, balanceOnChange {
            var r = record(event, wallet)
            r["height"] = nil  // the height moves with every block; the balance may not
            var key = [UInt8]()
            JSONWriter.serialize(r, into: &key)
            if key == lastBalance[wallet ?? ""] { return }
            lastBalance[wallet ?? ""] = key
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
    static func bar(height: Int, chainHeight: Int?, width: Int = 30) -> String {
        guard let chainHeight else { return "block \(height)" }
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
