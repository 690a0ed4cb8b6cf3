#if canImport(Glibc)
    import Glibc
#endif
import Monero
import WalletCore
import WalletKeys
import WalletKeyStore
import WalletScan
import Zcash
import WalletRecords
import KeySources
import MoneroScan
import ZcashScan

/// A wallet to scan, as given: its name in events (nil for one unnamed wallet), its chain's
/// scanner, and its own birthday (key-store entry, key record).
public struct GivenWallet<Scanner: ChainScanner & ChainRecords> {
    public let name: String?
    public let scanner: Scanner
    public let birthday: Int?

    public init(name: String?, scanner: Scanner, birthday: Int?) {
        (self.name, self.scanner, self.birthday) = (name, scanner, birthday)
    }
}

/// How one chain's wallets are read for a scan: from key-store entries and key records. The
/// rest of the gathering (which names and records were given, errors per line, names in
/// events) is the same for every chain: `WalletsGiven`.
public protocol ScanWalletReader {
    associatedtype Scanner: ChainScanner & ChainRecords
    /// What a key record holds for this chain, for the "no wallet" error.
    var keyRecordFields: String { get }
    /// Where this chain's blocks come from, for the "no block source" error.
    var blockSources: String { get }
    /// The wallet of a key-store entry, with its birthday for this chain.
    func wallet(entry: KeyStoreEntry, name: String) throws -> (scanner: Scanner, birthday: Int?)
    /// The wallet of a key record; nil when the record holds another chain's keys.
    func wallet(record: JSONObject) throws -> Scanner?
    /// What a record of another chain's keys is told: "is not a … wallet".
    var notThisChain: String { get }
    /// The warning for `n` parts of blocks this version could not read (`ChainBlock.unreadParts`).
    func unreadNotice(_ n: Int) -> String
}

extension ScanWalletReader {
    public func unreadNotice(_ n: Int) -> String {
        "\(n) block part\(n == 1 ? "" : "s") carry data this version does not read, perhaps a newer network upgrade's: outputs there are not scanned, so a balance may miss funds; a newer version may read them"
    }
}

/// The wallets a run was given, before they are read: key-store entries' names (--wallet,
/// names in --wallets) and key records (lines of --wallets, --key-file/--key-fd, or the one
/// record on stdin).
public struct WalletsGiven {
    public var names: [String] = []
    public var records: [(record: JSONObject, what: String)] = []

    public init() {}

    /// --wallet's names and the --wallets file's lines.
    public static func read(names: [String], walletsFile: String?) throws -> WalletsGiven {
        var given = WalletsGiven()
        given.names = names
        if let walletsFile { try given.readFile(walletsFile) }
        return given
    }

    /// The --wallets file's lines: key-store entries' names, and key records (a line starting
    /// with "{"); blank lines and "#" comments are skipped.
    mutating func readFile(_ path: String) throws {
        // A line at a time: the file has no size limit (10,000 wallets are about 2 MB).
        try SecretInput.forEachLine(ofFile: path) { line, lineNumber in
            let what = "\(path) line \(lineNumber)"
            var trimmed = Array(
                line.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }.reversed())
            defer { SecureBytes.wipe(&trimmed) }
            if trimmed.isEmpty || trimmed.first == UInt8(ascii: "#") { return }
            if trimmed.first == UInt8(ascii: "{") {
                let record: JSONObject
                do { record = try JSONParser.parseObject(trimmed) } catch let error as JSONSyntaxError {
                    throw ScanError.malformed(what: what, reason: "not a JSON object (\(error.reason) at byte \(error.offset))")
                }
                records.append((record, what))
            } else {
                let name = String(decoding: trimmed, as: UTF8.self)
                guard !name.contains(where: { $0 == " " || $0 == "\t" }) else {
                    throw ScanError.malformed(what: what, reason: "a line holds a key-store entry's name or a JSON key record")
                }
                names.append(name)
            }
        }
    }

    /// The wallets, read: the entries (each checked to exist before the key-store passphrase
    /// is asked for), then the records, with the key record of --key-file/--key-fd, or else
    /// the one on stdin when nothing else was given and `stdinHoldsKey` (stdin is not the
    /// block stream) and stdin is not a terminal. With several wallets a record's error names
    /// its line, and a record without a "name" is named by its first address.
    public func wallets<R: ScanWalletReader>(
        _ reader: R, keyStore: KeyStoreOptions, keyOptions: KeyOptions,
        stdinHoldsKey: Bool
    ) throws -> [GivenWallet<R.Scanner>] {
        var given = [GivenWallet<R.Scanner>]()
        if !names.isEmpty {
            for name in names { try keyStore.requireEntry(name) }
            let passphrase = try keyStore.passphrase(confirm: false)
            for name in names {
                let (scanner, birthday) = try reader.wallet(entry: try keyStore.store.load(name, passphrase: passphrase), name: name)
                given.append(GivenWallet(name: name, scanner: scanner, birthday: birthday))
            }
        }
        var records = self.records
        if let record = try keyOptions.read() {
            records.append((record, "the key record"))
        } else if names.isEmpty && records.isEmpty && stdinHoldsKey && isatty(0) == 0, let record = try SingleRecord.read() {
            records.append((record, "the key record on stdin"))
        }
        let several = names.count + records.count > 1
        for (record, what) in records {
            let read: R.Scanner?
            do { read = try reader.wallet(record: record) } catch let error as any WalletError where several {
                throw ScanError.malformed(what: what, reason: error.message)
            }
            guard let scanner = read else { throw DerivationError.unsupported("\(what) \(reader.notThisChain)") }
            // Several wallets' events are told apart by name: a record without one is named by
            // its first address.
            let label = try record.optionalString("name") ?? (several ? scanner.address(account: 0, index: 0) ?? scanner.stateName : nil)
            given.append(
                GivenWallet(name: label, scanner: scanner, birthday: try record.optionalInt("birthday", in: 0...KeyStoreRecords.maxHeight)))
        }
        return given
    }
}

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
        guard case .monero(let keys) = try KeyStoreRecords.keySource(entry, bip39Passphrase: nil) else {
            throw DerivationError.unsupported("entry '\(name)' is not a Monero wallet")
        }
        return (MoneroScanner(keys: keys, network: network, lookahead: lookahead), entry.metadata.birthdays["xmr"])
    }

    public var notThisChain: String { "is not a Monero wallet (Zcash keys are scanned with --chain zcash)" }

    public func wallet(record: JSONObject) throws -> MoneroScanner? {
        var scratch = record
        let source = try RecordKeys(coin: "xmr", accountPath: nil, sharedPassphrase: nil, moneroNetwork: network).source(
            record, out: &scratch)
        guard case .monero(let keys) = source else { return nil }
        return MoneroScanner(keys: keys, network: network, lookahead: lookahead)
    }
}

/// Zcash wallets: zec entries, and records with a ufvk, uivk, extended_full_viewing_key, or a
/// BIP39 phrase or seed (with "account").
public struct ZcashWalletReader: ScanWalletReader {
    public let network: ZcashNetwork

    public init(network: ZcashNetwork) { self.network = network }

    public var keyRecordFields: String { "ufvk, uivk, extended_full_viewing_key, or a BIP39 mnemonic or seed" }
    public var blockSources: String { "--lightwalletd HOST:PORT, or --blocks FILE (and --txs FILE)" }

    public func wallet(entry: KeyStoreEntry, name: String) throws -> (scanner: ZcashScanner, birthday: Int?) {
        guard case .zcash(let material) = try KeyStoreRecords.keySource(entry, bip39Passphrase: nil) else {
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
