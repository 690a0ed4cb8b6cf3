import ArgumentParser
import Bitcoin
import BitcoinScan
import BitcoinNode
import KeySources
import ScanRecords
import Monero
import MoneroNode
import WalletCore
import WalletKeys
import WalletScan
import Zcash
import ZcashLightwalletd
import WalletRecords
import MoneroScan
import ZcashScan

@main
struct ScanBlocksCommand: ParsableCommand {
    /// Core dumps off before anything is read: a crash must not write secrets to disk.
    static func main() {
        ProcessHardening.disableCoreDumps()
        ProcessHardening.reuseLargeBuffers()
        main(nil)
    }

    static let configuration = CommandConfiguration(
        commandName: "scan-blocks",
        abstract: "The wallet synchronizer: finds Monero, Zcash, Bitcoin and Litecoin wallets' payments and spends in blocks, resumably.",
        discussion: """
            Writes events as JSON Lines: received, spent, pending (mempool), reorg, and a final \
            balance. State (scanned height, outputs, key images, events not yet written) is kept \
            in SQLite per wallet; a killed or repeated run goes on where it stopped. Appending to a \
            file, every event is written exactly once; on a pipe a repeat keeps its event_id. \
            Several wallets (--wallet repeated, or --wallets FILE) share one pass over the chain; \
            their records carry "wallet". See scan-blocks(1).

            --chain zcash reads lightwalletd's compact blocks (.pb stream or JSON Lines, or live with \
            --lightwalletd over gRPC and TLS) and trial-decrypts every Sapling output and every \
            Orchard and Ironwood action with the wallet's viewing keys. --chain bitcoin or litecoin reads raw blocks (JSON Lines of height, \
            hash, hex; a node's blocks directory of blk*.dat; or live with --node from bitcoind's or \
            litecoind's RPC) and watches each account's scripts up to --gap-limit past the last used one.

            Examples (cron: "*/5 * * * *" and the command, on one line):
              scan-blocks --wallet shop --keystore-pass-file ~/.pass \\
                --blocks /srv/xmr/blocks.jsonl --txs /srv/xmr/txs.jsonl >> payments.jsonl
              scan-blocks --chain zcash --wallet zshop --keystore-pass-file ~/.pass \\
                --blocks /srv/zec/compact.pb >> zec-payments.jsonl
              scan-blocks --chain zcash --wallet zshop --keystore-pass-file ~/.pass \\
                --lightwalletd lwd.example.org:9067 >> zec-payments.jsonl
              scan-blocks --chain bitcoin --wallet btc --keystore-pass-file ~/.pass \\
                --node 127.0.0.1 >> btc-payments.jsonl
            """,
        version: SatchelVersion.string + " (curve kernels: \(CurveBatchPath.inUse.rawValue)"
            + (CurveBatchPath.forcedButUnavailable ? "; SATCHEL_SIMD names a path this CPU lacks" : "") + ")")

    @Option(
        help: "Chain: monero, zcash (from compact blocks), bitcoin or litecoin (from raw blocks).",
        completion: .list(["monero", "zcash", "bitcoin", "litecoin"]))
    var chain: String = "monero"

    @Option(
        help:
            "Network: main (the default), test; stagenet (monero); regtest, signet (bitcoin, litecoin). Monero's regtest uses main addresses. mainnet and testnet are main and test.",
        completion: .list(["main", "test", "stagenet", "regtest", "signet"]))
    var network: String = "main"

    @Option(
        help: ArgumentHelp(
            "First block height to scan (the wallet's birthday); default: the key-store entry's xmr (zec) birthday.", valueName: "height"))
    var birthday: Int?

    @Option(help: ArgumentHelp("Where the scan state lives (default $XDG_DATA_HOME/satchel/scan).", valueName: "dir"))
    var stateDir: String?

    @OptionGroup var source: ScanSourceOptions

    @Option(
        help: ArgumentHelp(
            "The deepest reorg a run follows, in blocks; a deeper one ends it (exit 76). At most 10 reorgs are followed per run.",
            valueName: "blocks"))
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

    @Option(help: "Progress on stderr: auto (a line on a terminal), jsonl, or none.", completion: .list(["auto", "jsonl", "none"]))
    var progress: String = "auto"

    @Option(help: ArgumentHelp("Subaddress lookahead, majors,minors (Monero's default 50,200).", valueName: "m,n"))
    var lookahead: String = "50,200"

    @Option(
        name: .customLong("wallet"),
        help: ArgumentHelp("A key-store entry to scan; repeat it to scan several wallets in one pass.", valueName: "name"))
    var walletNames: [String] = []

    @Option(
        help: ArgumentHelp(
            "A file (mode 0600) of wallets to scan in one pass, one per line: a key-store entry's name, or a key record (view_key and address, …; optional name and birthday).",
            valueName: "file"))
    var wallets: String?

    @OptionGroup var keyStore: KeyStoreOptions

    @OptionGroup var keyOptions: KeyOptions

    @OptionGroup var bitcoin: BitcoinScanOptions

    func validate() throws {
        guard ["monero", "zcash"].contains(chain) || BitcoinScanOptions.chains.contains(chain) else {
            throw ValidationError("--chain must be monero, zcash, bitcoin or litecoin")
        }
        let (blocks, txs, node, lightwalletd) = (source.blocks, source.txs, source.node, source.lightwalletd)
        try bitcoin.validate(chain: chain, network: network, node: node)
        if BitcoinScanOptions.chains.contains(chain) {
            if lightwalletd != nil { throw ValidationError("--lightwalletd is Zcash's; a \(chain) node's RPC address goes to --node") }
            if txs != nil { throw ValidationError("--txs is Monero's and Zcash's; \(chain) mempool transactions come with --mempool FILE") }
        } else if chain == "zcash" {
            guard ["main", "test"].contains(NetworkName.canonical(network)) else {
                throw ValidationError("--network must be main or test for zcash")
            }
            if node != nil { throw ValidationError("--node is monerod's; Zcash compact blocks come from --blocks or --lightwalletd") }
            if lightwalletd != nil && blocks != nil { throw ValidationError("give --blocks or --lightwalletd, not both") }
            if lightwalletd != nil && txs != nil {
                throw ValidationError("--txs goes with --blocks (memos are not fetched from a lightwalletd)")
            }
        } else {
            if lightwalletd != nil { throw ValidationError("--lightwalletd is Zcash's (--chain zcash); monerod's address goes to --node") }
            guard moneroNetwork != nil else { throw ValidationError("--network must be main, test or stagenet for monero") }
        }
        guard ["auto", "jsonl", "none"].contains(progress) else { throw ValidationError("--progress must be auto, jsonl or none") }
        guard parsedLookahead != nil else { throw ValidationError("--lookahead takes two numbers, e.g. 50,200") }
        if let maxBlocks, !(1...Self.maxHeight).contains(maxBlocks) { throw ValidationError("--max-blocks must be 1 to \(Self.maxHeight)") }
        for (name, value) in [("--birthday", birthday), ("--until-height", untilHeight)] {
            if let value, !(0...Self.maxHeight).contains(value) {
                throw ValidationError("\(name) must be a height from 0 to \(Self.maxHeight)")
            }
        }
        guard interval.isFinite, (0.1...86_400).contains(interval) else { throw ValidationError("--interval must be 0.1 to 86400 seconds") }
        if follow && !source.isServer { throw ValidationError("--follow goes with --node or --lightwalletd") }
        guard (1...1_000_000).contains(maxReorgDepth) else { throw ValidationError("--max-reorg-depth must be 1 to 1000000") }
        try KeySourceOptions.checkOne(
            keyFile: keyOptions.keyFile != nil, keyFd: keyOptions.keyFd != nil, wallets: walletNames.count, card: false)
        if blocks == "-" && walletNames.isEmpty && wallets == nil && !keyOptions.isGiven {
            throw ValidationError("--blocks - reads the chain from stdin: give the wallet with --wallet, --wallets, --key-file or --key-fd")
        }
    }

    static let maxHeight = KeyStoreRecords.maxHeight

    /// --network for monero: main, test and stagenet are Monero's mainnet, testnet and stagenet.
    var moneroNetwork: MoneroNetwork? {
        let name = ["main": "mainnet", "test": "testnet"][NetworkName.canonical(network)] ?? network
        return MoneroNetwork.all.first { $0.name == name }
    }

    var parsedLookahead: (UInt32, UInt32)? {
        let parts = lookahead.split(separator: ",").compactMap { UInt32($0) }
        return parts.count == 2 && parts.allSatisfy({ $0 >= 1 && $0 <= 100_000 }) ? (parts[0], parts[1]) : nil
    }

    /// The scan's own options, for the library's run.
    var scanRun: ScanRun {
        var run = ScanRun()
        (run.birthday, run.stateDirectory, run.rescan, run.maxReorgDepth) = (birthday, stateDir, rescan, maxReorgDepth)
        (run.follow, run.interval, run.untilHeight, run.maxBlocks, run.progress) = (follow, interval, untilHeight, maxBlocks, progress)
        return run
    }

    /// The run's wallets, read for `reader`'s chain.
    func gather<R: ScanWalletReader>(_ reader: R) throws -> [GivenWallet<R.Scanner>] {
        try WalletsGiven.read(names: walletNames, walletsFile: wallets)
            .wallets(reader, keyStore: keyStore, keyOptions: keyOptions, stdinHoldsKey: source.blocks != "-")
    }

    func run() throws {
        let pipeline = RecordPipeline(tool: "scan-blocks")
        do {
            if chain == "zcash" { return try runZcash(pipeline) }
            if chain == "bitcoin" { return try runBitcoin(BitcoinMainChain.self, pipeline) }
            if chain == "litecoin" { return try runBitcoin(LitecoinChain.self, pipeline) }
            let net = moneroNetwork!
            let (blocks, txs, node) = (source.blocks, source.txs, source.node)
            // Before the keys are read: a Zcash stream names its option, not its key's kind.
            if let blocks, blocks != "-", let first = try ByteStream.firstByte(of: blocks), first != UInt8(ascii: "{") {
                throw CLIError.usage(
                    "\(blocks) is not JSON Lines of Monero blocks (it starts with byte 0x\(Hex.encode([first]))): "
                        + "Zcash compact blocks (a .pb stream) are scanned with --chain zcash")
            }
            let reader = MoneroWalletReader(network: net, lookahead: parsedLookahead!)
            let given = try gather(reader)
            var source: (any BlockSource)?
            if let blocks { source = try MoneroFileBlockSource(blocksPath: blocks, transactionsPath: txs) }
            if let node { source = try MoneroRPCSource(address: node, timeout: self.source.timeout) }
            try scanRun.synchronize(pipeline, reader: reader, wallets: given, source: source)
        } catch let error as any WalletError {
            try pipeline.fail(error).exitIfFailed()
        }
    }

    /// --chain bitcoin or litecoin: raw blocks from a file or the node's RPC.
    func runBitcoin<C: BitcoinFamily>(_ chain: C.Type, _ pipeline: RecordPipeline) throws {
        let net = try BitcoinNetwork(C.self, network: network)
        let makeSource = { (spentOutputs: Bool) throws -> (any BlockSource)? in
            if let node = source.node {
                return try BitcoinRPCSource(
                    address: node, network: net, timeout: source.timeout, credentials: bitcoin.credentials(network: net),
                    spentOutputs: spentOutputs)
            }
            return try bitcoin.fileSource(blocks: source.blocks, network: net, spentOutputs: spentOutputs)
        }
        try bitcoin.run(C.self, network: net, source: makeSource, scanRun: scanRun, pipeline: pipeline, gather: gather)
    }

    /// --chain zcash: Sapling and Orchard notes in compact blocks, from a file or a lightwalletd.
    func runZcash(_ pipeline: RecordPipeline) throws {
        let reader = ZcashWalletReader(network: NetworkName.canonical(network) == "main" ? .main : .test)
        let given = try gather(reader)
        var blockSource: (any BlockSource)? = try source.blocks.map { try CompactBlockFileSource(path: $0, transactionsPath: source.txs) }
        if let lightwalletd = source.lightwalletd {
            var options = LightwalletdSource.Options()
            options.plaintext = source.plaintext
            options.trustRoots = source.caFile
            options.timeout = source.timeout
            // Ironwood is scanned with the Orchard keys: a server must serve it from NU6.3 on.
            if given.contains(where: { !$0.scanner.addedPools.isEmpty }) {
                options.ironwoodFrom = ZcashScanner.ironwoodActivation[reader.network] ?? 0
            }
            blockSource = try LightwalletdSource(address: lightwalletd, options: options)
        }
        try scanRun.synchronize(pipeline, reader: reader, wallets: given, source: blockSource)
    }
}
