import ArgumentParser
import KeySources
import WalletCore
import WalletKeys
import WalletKeyStore
import WalletScan
import Zcash
import ZcashScan

/// Zcash wallets: zec entries, and records with a ufvk, uivk, extended_full_viewing_key, or a
/// BIP39 phrase or seed (with "account").
public struct ZcashWalletReader: ScanWalletReader {
    public let network: ZcashNetwork

    public init(network: ZcashNetwork) { self.network = network }

    public var keyRecordFields: String { "ufvk, uivk, extended_full_viewing_key, or a BIP39 mnemonic or seed" }
    public var blockSources: String { "--lightwalletd HOST:PORT, or --blocks FILE (and --txs FILE)" }

    public func wallet(entry: KeyStoreEntry, name: String) throws -> (scanner: ZcashScanner, birthday: Int?) {
        guard let material = try KeyStoreRecords.keySource(entry, bip39Passphrase: nil).chainKey(ZcashKeyMaterial.self) else {
            throw DerivationError.unsupported("entry '\(name)' is not a Zcash wallet")
        }
        let keys = try ZcashAccountKeys(material: material, network: network, account: 0)
        guard keys.network == network else {
            throw DerivationError.unsupported("entry '\(name)' is for the \(keys.network.rawValue) network")
        }
        return (Self.scanner(keys), entry.metadata.birthdays["zec"])
    }

    public var notThisChain: String { "is not a Zcash wallet" }

    public func unreadNotice(_ n: Int) -> String {
        "\(n) compact block part\(n == 1 ? "" : "s") (transactions or blocks) carry fields this version does not read, perhaps a newer network upgrade's pool: notes there are not scanned, so a balance may miss funds; a newer version may read them"
    }

    public func wallet(record: JSONObject) throws -> ZcashScanner? {
        let rule = try ZcashAccountKeys.rivkRule(record)
        if ZcashAccountKeys.hasViewingKey(record) { return Self.scanner(try ZcashAccountKeys(viewingKeyOf: record, network: network)) }
        var scratch = record
        let seed = try RecordKeys(coin: "zec", accountPath: nil, sharedPassphrase: nil).seed(record, out: &scratch)
        // ZIP-32 accounts are hardened indexes: below 2^31.
        let account = try record.optionalInt("account", in: 0...Int(Int32.max)) ?? 0
        let keys = try ZcashAccountKeys(seed: seed, network: network, account: UInt32(account), orchardRivk: rule)
        // use_qsk changes Orchard's (and Ironwood's) rivk only: the seed's Sapling notes are the
        // standard record's, and a use_qsk record beside it (the man page's advice, to follow
        // both kinds of account) would count them twice.
        guard rule == .standard else {
            return ZcashScanner(fullViewingKey: nil, network: keys.network, account: UInt32(account), orchard: keys.orchardFullViewing)
        }
        return Self.scanner(keys)
    }

    /// Full viewing keys when every pool the keys have comes with one (spends known), else
    /// incoming keys for all: a wallet's spends are known in all its pools or in none.
    public static func scanner(_ keys: ZcashAccountKeys) -> ZcashScanner {
        if (keys.incoming == nil || keys.fullViewing != nil) && (keys.orchardIncoming == nil || keys.orchardFullViewing != nil) {
            return ZcashScanner(
                fullViewingKey: keys.fullViewing, network: keys.network, account: keys.account ?? 0, orchard: keys.orchardFullViewing)
        }
        return ZcashScanner(
            incomingViewingKey: keys.incoming, network: keys.network, account: keys.account ?? 0, orchard: keys.orchardIncoming)
    }
}

/// --chain zcash: Sapling, Orchard and Ironwood notes in compact blocks, from a file or a
/// lightwalletd.
public struct ZcashScanChain: ScanChain {
    public let reader: ZcashWalletReader
    let source: ScanSourceOptions

    /// What a lightwalletd source is made from.
    public struct ServerRequest: Sendable {
        public let address: String
        /// --plaintext: no TLS (a server on this machine).
        public let plaintext: Bool
        /// --ca-file: PEM certificates to trust instead of the system's.
        public let trustRoots: String?
        public let timeout: Double
        /// The height from which the server must serve Ironwood; nil: no wallet scans it.
        public let ironwoodFrom: Int?
    }

    public static func validate(_ options: ScanOptions) throws {
        try options.bitcoin.refuseGiven()
        let source = options.source
        guard ["main", "test"].contains(NetworkName.canonical(options.network)) else {
            throw ValidationError("--network must be main or test for zcash")
        }
        if source.node != nil { throw ValidationError("--node is monerod's; Zcash compact blocks come from --blocks or --lightwalletd") }
        if source.lightwalletd != nil && source.blocks != nil { throw ValidationError("give --blocks or --lightwalletd, not both") }
        if source.lightwalletd != nil && source.txs != nil {
            throw ValidationError("--txs goes with --blocks (memos are not fetched from a lightwalletd)")
        }
    }

    public init(_ options: ScanOptions) throws {
        reader = ZcashWalletReader(network: NetworkName.canonical(options.network) == "main" ? .main : .test)
        source = options.source
    }

    public func fileSource(for wallets: [GivenWallet<ZcashScanner>]) throws -> (any BlockSource)? {
        try source.blocks.map { try CompactBlockFileSource(path: $0, transactionsPath: source.txs) }
    }

    public func serverRequest(address: String, for wallets: [GivenWallet<ZcashScanner>]) throws -> ServerRequest {
        // Ironwood is scanned with the Orchard keys: a server must serve it from NU6.3 on.
        let ironwood = wallets.contains { !$0.scanner.addedPools.isEmpty }
        return ServerRequest(
            address: address, plaintext: source.plaintext, trustRoots: source.caFile, timeout: source.timeout,
            ironwoodFrom: ironwood ? ZcashScanner.ironwoodActivation[reader.network] ?? 0 : nil)
    }
}

/// Its record words are the scanner's own members.
extension ZcashScanner: ChainRecords {}
