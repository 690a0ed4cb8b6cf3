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

    public init() {}

    /// --lookahead's two numbers, each 1 to 100,000; nil when it is not that.
    public var lookaheadPair: (majors: UInt32, minors: UInt32)? {
        let parts = lookahead.split(separator: ",").compactMap { UInt32($0) }
        return parts.count == 2 && parts.allSatisfy({ $0 >= 1 && $0 <= 100_000 }) ? (parts[0], parts[1]) : nil
    }

    /// The run's wallets, read for `reader`'s chain.
    func wallets<R: ScanWalletReader>(_ reader: R) throws -> [GivenWallet<R.Scanner>] {
        try WalletsGiven.read(names: walletNames, walletsFile: walletsFile)
            .wallets(reader, keyStore: keyStore, keyOptions: keyOptions, stdinHoldsKey: source.blocks != "-")
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
}

extension ScanChain {
    /// --chain's word: the chain its records name.
    public static var name: String { Reader.Scanner.chainName }

    public func checkBeforeKeys() throws {}
}

/// A row of scan-blocks' table of chains: a chain and the factory of its server source. Every
/// chain's scan takes the same path: check the source, read the wallets, open the source,
/// synchronize.
public struct ScanChainEntry: Sendable {
    public let name: String
    private let check: @Sendable (ScanOptions) throws -> Void
    private let scan: @Sendable (ScanOptions, ScanRun, RecordPipeline) throws -> Void

    public init<C: ScanChain>(_ chain: C.Type, server: @escaping @Sendable (C.ServerRequest) throws -> any BlockSource) {
        name = C.name
        check = { try C.validate($0) }
        scan = { options, run, pipeline in
            let chain = try C(options)
            try chain.checkBeforeKeys()
            let given = try options.wallets(chain.reader)
            let source: (any BlockSource)?
            if let address = options.source.node ?? options.source.lightwalletd {
                source = try server(try chain.serverRequest(address: address, for: given))
            } else {
                source = try chain.fileSource(for: given)
            }
            try run.synchronize(pipeline, reader: chain.reader, wallets: given, source: source)
        }
    }

    /// The chain's checks of the options, for the command's validate.
    public func validate(_ options: ScanOptions) throws { try check(options) }

    /// Scans the wallets `options` names; a failure is the pipeline's error record.
    public func scan(_ options: ScanOptions, run: ScanRun, pipeline: RecordPipeline) throws { try scan(options, run, pipeline) }

    /// "a, b or c": the names of `entries`, for messages.
    public static func names(_ entries: [ScanChainEntry]) -> String {
        let names = entries.map(\.name)
        return names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + names.last!
    }
}

/// A server source's address and how long it may keep a call waiting: what a node's RPC
/// needs (monerod's).
public struct ServerAddress: Sendable {
    public let address: String
    public let timeout: Double
}
