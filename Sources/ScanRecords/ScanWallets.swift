#if canImport(Glibc)
    import Glibc
#endif
import WalletCore
import WalletKeyStore
import WalletKeys
import WalletScan
import WalletRecords
import KeySources

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
public protocol ScanWalletReader: SendableMetatype {
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
