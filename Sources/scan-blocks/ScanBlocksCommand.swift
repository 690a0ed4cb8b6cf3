import ArgumentParser
import Bitcoin
import BitcoinNode
import KeySources
import MoneroNode
import ScanRecords
import WalletCore
import WalletRecords
import WalletScan
import ZcashLightwalletd
import WalletCrypto

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
            litecoind's RPC) and watches each account's scripts up to --gap-limit past the last used one; \
            --tweaks-out writes BIP352 tweak records of the blocks scanned, which --tweaks scans for \
            silent payment receivers with the scan key alone.

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

    /// The chains, each with the factory of its server source: this executable opens the sockets.
    static let chains: [ScanChainEntry] = [
        ScanChainEntry(MoneroScanChain.self) { try MoneroRPCSource(address: $0.address, timeout: $0.timeout) },
        ScanChainEntry(ZcashScanChain.self) { request in
            var options = LightwalletdSource.Options()
            (options.plaintext, options.trustRoots) = (request.plaintext, request.trustRoots)
            (options.timeout, options.ironwoodFrom) = (request.timeout, request.ironwoodFrom)
            return try LightwalletdSource(address: request.address, options: options)
        },
        ScanChainEntry(BitcoinScanChain<BitcoinMainChain>.self, server: bitcoinNode),
        ScanChainEntry(BitcoinScanChain<LitecoinChain>.self, server: bitcoinNode),
        ScanChainEntry(TweakScanChain<BitcoinMainChain>.self),
        ScanChainEntry(TweakScanChain<LitecoinChain>.self),
    ]

    static func bitcoinNode<C>(_ request: BitcoinScanChain<C>.ServerRequest) throws -> any BlockSource {
        try BitcoinRPCSource(
            address: request.address, network: request.network, timeout: request.timeout, credentials: request.credentials,
            spentOutputs: request.spentOutputs)
    }

    var chainEntry: ScanChainEntry? { Self.chains.first { $0.name == chain && $0.claims(options) } }

    /// What the chain is asked, from the command's options.
    var options: ScanOptions {
        var options = ScanOptions()
        (options.network, options.source, options.lookahead, options.bitcoin) = (network, source, lookahead, bitcoin)
        (options.walletNames, options.walletsFile, options.keyStore, options.keyOptions) = (walletNames, wallets, keyStore, keyOptions)
        (options.birthday, options.rescan) = (birthday, rescan)
        return options
    }

    func validate() throws {
        guard let chainEntry else { throw ValidationError("--chain must be \(ScanChainEntry.names(Self.chains))") }
        try chainEntry.validate(options)
        guard ["auto", "jsonl", "none"].contains(progress) else { throw ValidationError("--progress must be auto, jsonl or none") }
        guard options.lookaheadPair != nil else { throw ValidationError("--lookahead takes two numbers, e.g. 50,200") }
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
        if source.blocks == "-" && walletNames.isEmpty && wallets == nil && !keyOptions.isGiven {
            throw ValidationError("--blocks - reads the chain from stdin: give the wallet with --wallet, --wallets, --key-file or --key-fd")
        }
    }

    static let maxHeight = KeyStoreRecords.maxHeight

    /// The scan's own options, for the library's run.
    var scanRun: ScanRun {
        var run = ScanRun()
        (run.birthday, run.stateDirectory, run.rescan, run.maxReorgDepth) = (birthday, stateDir, rescan, maxReorgDepth)
        (run.follow, run.interval, run.untilHeight, run.maxBlocks, run.progress) = (follow, interval, untilHeight, maxBlocks, progress)
        return run
    }

    func run() throws {
        let pipeline = RecordPipeline(tool: "scan-blocks")
        do {
            try chainEntry!.scan(options, run: scanRun, pipeline: pipeline)
        } catch let error as any WalletError {
            try pipeline.fail(error).exitIfFailed()
        }
    }
}
