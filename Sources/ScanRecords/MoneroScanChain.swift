import ArgumentParser
import KeySources
import Monero
import MoneroScan
import WalletCore
import WalletKeys
import WalletKeyStore
import WalletRecords
import WalletScan

/// Monero wallets: entries and records with a Monero seed or keys.
public struct MoneroWalletReader: ScanWalletReader {
    public let network: MoneroNetwork
    public let lookahead: (majors: UInt32, minors: UInt32)

    public init(network: MoneroNetwork, lookahead: (majors: UInt32, minors: UInt32)) {
        (self.network, self.lookahead) = (network, lookahead)
    }

    public var keyRecordFields: String { "view_key with public_spend_key, spend_key, or a Monero mnemonic" }
    public var blockSources: String { "--node HOST:PORT, or --blocks FILE (and --txs FILE)" }

    public func wallet(entry: KeyStoreEntry, name: String) throws -> (scanner: MoneroScanner, birthday: Int?) {
        guard let keys = try KeyStoreRecords.keySource(entry, bip39Passphrase: nil).chainKey(MoneroKeys.self) else {
            throw DerivationError.unsupported("entry '\(name)' is not a Monero wallet")
        }
        return (MoneroScanner(keys: keys, network: network, lookahead: lookahead), entry.metadata.birthdays["xmr"])
    }

    public var notThisChain: String { "is not a Monero wallet (Zcash keys are scanned with --chain zcash)" }

    public func wallet(record: JSONObject) throws -> MoneroScanner? {
        var scratch = record
        let source = try RecordKeys(coin: "xmr", accountPath: nil, sharedPassphrase: nil, moneroNetwork: network).source(
            record, out: &scratch)
        guard let keys = source.chainKey(MoneroKeys.self) else { return nil }
        return MoneroScanner(keys: keys, network: network, lookahead: lookahead)
    }
}

/// --chain monero: blocks and transactions from JSON Lines files, or monerod's RPC.
public struct MoneroScanChain: ScanChain {
    public let reader: MoneroWalletReader
    let source: ScanSourceOptions

    /// --network for monero: main, test and stagenet are Monero's mainnet, testnet and stagenet.
    static func network(_ name: String) -> MoneroNetwork? {
        let name = ["main": "mainnet", "test": "testnet"][NetworkName.canonical(name)] ?? name
        return MoneroNetwork.all.first { $0.name == name }
    }

    public static func validate(_ options: ScanOptions) throws {
        try options.bitcoin.refuseGiven()
        if options.source.lightwalletd != nil {
            throw ValidationError("--lightwalletd is Zcash's (--chain zcash); monerod's address goes to --node")
        }
        guard network(options.network) != nil else { throw ValidationError("--network must be main, test or stagenet for monero") }
    }

    public init(_ options: ScanOptions) throws {
        reader = MoneroWalletReader(network: Self.network(options.network)!, lookahead: options.lookaheadPair!)
        source = options.source
    }

    /// Before the keys are read: a Zcash stream names its option, not its key's kind.
    public func checkBeforeKeys() throws {
        if let blocks = source.blocks, blocks != "-", let first = try ByteStream.firstByte(of: blocks), first != UInt8(ascii: "{") {
            throw CLIError.usage(
                "\(blocks) is not JSON Lines of Monero blocks (it starts with byte 0x\(Hex.encode([first]))): "
                    + "Zcash compact blocks (a .pb stream) are scanned with --chain zcash")
        }
    }

    public func fileSource(for wallets: [GivenWallet<MoneroScanner>]) throws -> (any BlockSource)? {
        try source.blocks.map { try MoneroFileBlockSource(blocksPath: $0, transactionsPath: source.txs) }
    }

    public func serverRequest(address: String, for wallets: [GivenWallet<MoneroScanner>]) throws -> ServerAddress {
        ServerAddress(address: address, timeout: source.timeout)
    }
}

/// Its record words are the scanner's own members.
extension MoneroScanner: ChainRecords {}
