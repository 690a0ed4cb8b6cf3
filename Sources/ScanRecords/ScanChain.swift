import ArgumentParser
import WalletRecords
import WalletScan

/// What scan-blocks was asked, for any chain: where blocks come from, the network, the
/// wallets, and the chains' own options. Each chain reads what it takes and refuses what is
/// another chain's.
public struct ScanOptions {
    public var network = "main"
    public var source = ScanSourceOptions()
    /// Monero's subaddress lookahead, "majors,minors".
    public var lookahead = "50,200"
    public var bitcoin = BitcoinScanOptions()
    public var walletNames: [String] = []
    public var walletsFile: String?
    public var keyStore = KeyStoreOptions()
    public var keyOptions = KeyOptions()
    /// --birthday, when given (for the chains' checks; the run takes it from `ScanRun`).
    public var birthday: Int?
    /// --rescan (for the chains' checks; the run takes it from `ScanRun`).
    public var rescan = false

    public init() {}

    public var hasBirthday: Bool { birthday != nil }
    /// Whether a wallet is named: --wallet, --wallets, --key-file or --key-fd.
    public var namesAWallet: Bool { !walletNames.isEmpty || walletsFile != nil || keyOptions.isGiven }

    /// --lookahead's two numbers, each 1 to 100,000; nil when it is not that.
    public var lookaheadPair: (majors: UInt32, minors: UInt32)? {
        let parts = lookahead.split(separator: ",").compactMap { UInt32($0) }
        return parts.count == 2 && parts.allSatisfy({ $0 >= 1 && $0 <= 100_000 }) ? (parts[0], parts[1]) : nil
    }

    /// The run's wallets, read for `reader`'s chain.
    /// `readStdin` false: no key record is read from stdin when nothing else names a wallet
    /// (a run that only writes tweak records).
    func wallets<R: ScanWalletReader>(_ reader: R, readStdin: Bool = true) throws -> [GivenWallet<R.Scanner>] {
        try WalletsGiven.read(names: walletNames, walletsFile: walletsFile)
            .wallets(
                reader, keyStore: keyStore, keyOptions: keyOptions,
                stdinHoldsKey: readStdin && source.blocks != "-" && bitcoin.tweaks != "-")
    }
}

/// A chain as scan-blocks scans it: the one shape every chain takes. The chain's file in this
/// library supplies the conformer; the executable's table pairs it with the factory of its
/// server source, so that this library opens no socket.
public protocol ScanChain: SendableMetatype {
    associatedtype Reader: ScanWalletReader
    /// What the chain's server source (--node, --lightwalletd) is made from.
    associatedtype ServerRequest
    /// Refuses another chain's options and values this chain does not take (ValidationError).
    static func validate(_ options: ScanOptions) throws
    /// The chain's reader and sources, for options `validate` passed.
    init(_ options: ScanOptions) throws
    var reader: Reader { get }
    /// What is checked before a key is read; by default nothing.
    func checkBeforeKeys() throws
    /// The source --blocks names (with --txs or --mempool); nil without --blocks.
    func fileSource(for wallets: [GivenWallet<Reader.Scanner>]) throws -> (any BlockSource)?
    /// What the server factory is given for `address` (--node or --lightwalletd).
    func serverRequest(address: String, for wallets: [GivenWallet<Reader.Scanner>]) throws -> ServerRequest
    /// Whether this conformer scans what `options` ask, where a chain has several (Bitcoin's
    /// tweak records beside its blocks); by default it does.
    static func claims(_ options: ScanOptions) -> Bool
    /// Passes that write something of every block stored, beside or instead of the wallets
    /// (--tweaks-out); by default none.
    func recorders() throws -> [BlockRecorder<Reader.Scanner>]
}

extension ScanChain {
    /// --chain's word: the chain its records name.
    public static var name: String { Reader.Scanner.chainName }

    public func checkBeforeKeys() throws {}
    public static func claims(_ options: ScanOptions) -> Bool { true }
    public func recorders() throws -> [BlockRecorder<Reader.Scanner>] { [] }
}

/// A pass with a state of its own that writes something of every block it stores (tweak
/// records): a wallet with no keys, its events not shown. What it writes is written before
/// its batch commits (`Synchronizer.Wallet.stored`), so a killed run may write a block again
/// but never skips one.
public struct BlockRecorder<Scanner: ChainScanner> {
    /// Its name in messages; a wallet of the same name is refused, as two wallets of one name are.
    public let name: String
    public let scanner: Scanner
    public let record: ([(height: Int, block: Scanner.Block)]) throws -> Void

    public init(name: String, scanner: Scanner, record: @escaping ([(height: Int, block: Scanner.Block)]) throws -> Void) {
        (self.name, self.scanner, self.record) = (name, scanner, record)
    }
}

/// A row of scan-blocks' table of chains: a chain and the factory of its server source. Every
/// chain's scan takes the same path: check the source, read the wallets, open the source,
/// synchronize.
public struct ScanChainEntry: Sendable {
    public let name: String
    private let claim: @Sendable (ScanOptions) -> Bool
    private let check: @Sendable (ScanOptions) throws -> Void
    private let scan: @Sendable (ScanOptions, ScanRun, RecordPipeline) throws -> Void

    public init<C: ScanChain>(_ chain: C.Type, server: @escaping @Sendable (C.ServerRequest) throws -> any BlockSource) {
        name = C.name
        claim = { C.claims($0) }
        check = { try C.validate($0) }
        scan = { options, run, pipeline in
            let chain = try C(options)
            try chain.checkBeforeKeys()
            let recorders = try chain.recorders()
            let given = try options.wallets(chain.reader, readStdin: recorders.isEmpty)
            let source: (any BlockSource)?
            if let address = options.source.node ?? options.source.lightwalletd {
                source = try server(try chain.serverRequest(address: address, for: given))
            } else {
                source = try chain.fileSource(for: given)
            }
            try run.synchronize(pipeline, reader: chain.reader, wallets: given, recorders: recorders, source: source)
        }
    }

    /// Whether this row scans what `options` ask (a chain's rows share its name).
    public func claims(_ options: ScanOptions) -> Bool { claim(options) }

    /// A chain that reads files alone.
    public init<C: ScanChain>(_ chain: C.Type) where C.ServerRequest == Never {
        self.init(chain) { request in switch request {} }
    }

    /// The chain's checks of the options, for the command's validate.
    public func validate(_ options: ScanOptions) throws { try check(options) }

    /// Scans the wallets `options` names; a failure is the pipeline's error record.
    public func scan(_ options: ScanOptions, run: ScanRun, pipeline: RecordPipeline) throws { try scan(options, run, pipeline) }

    /// "a, b or c": the names of `entries`, for messages.
    public static func names(_ entries: [ScanChainEntry]) -> String {
        var names = [String]()
        for entry in entries where !names.contains(entry.name) { names.append(entry.name) }
        return names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + names.last!
    }
}

/// A server source's address and how long it may keep a call waiting: what a node's RPC
/// needs (monerod's).
public struct ServerAddress: Sendable {
    public let address: String
    public let timeout: Double
}
