import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import WalletCore
import WalletFiles

/// The Wallet Initializer: gathers what a sync needs — the wallets with their birthdays, the
/// state directory, the block source — names each missing piece, and takes each wallet's
/// lock. It is a value that resolves once; it answers no queries and holds no connection, and
/// it knows no chain: a wallet comes as the name of its state (which the chain derives from
/// its public keys), and the chain's words for its keys and sources come in `chainWords`.
public struct WalletInitializer {
    public struct Wallet {
        /// The wallet's name in events (a key-store entry's name); nil for one unnamed wallet.
        public let name: String?
        /// The state file's base name, from the chain and the wallet's public keys.
        public let stateName: String
        /// The wallet's own birthday (key-store entry, key record); `birthday` overrides it.
        public let birthday: Int?

        public init(name: String?, stateName: String, birthday: Int?) {
            self.name = name
            self.stateName = stateName
            self.birthday = birthday
        }
    }

    public var wallets: [Wallet]
    /// --birthday: the first height to scan for every wallet.
    public var birthday: Int?
    public var stateDirectory: String?
    public var source: BlockSource?
    public var chainWords: ChainWords

    /// How the chain's front end names a wallet's key fields and its block sources, in the
    /// errors that ask for them.
    public struct ChainWords: Sendable, Equatable {
        /// "view_key with public_spend_key, spend_key, or a Monero mnemonic".
        public let keyRecordFields: String
        /// "--node HOST:PORT, or --blocks FILE (and --txs FILE)".
        public let blockSources: String

        public init(keyRecordFields: String, blockSources: String) {
            (self.keyRecordFields, self.blockSources) = (keyRecordFields, blockSources)
        }
    }

    public init(
        wallets: [Wallet] = [], birthday: Int? = nil, stateDirectory: String? = nil, source: BlockSource? = nil,
        chainWords: ChainWords = ChainWords(keyRecordFields: "the wallet's keys", blockSources: "a block source")
    ) {
        self.wallets = wallets
        self.birthday = birthday
        self.stateDirectory = stateDirectory
        self.source = source
        self.chainWords = chainWords
    }

    public struct ResolvedWallet {
        public let name: String?
        public let birthday: Int
        public let statePath: String
        public let lockPath: String
    }

    public struct Resolved {
        public let wallets: [ResolvedWallet]
        public let source: BlockSource

        /// Takes every wallet's lock, or none: one scan per wallet at a time, and a second one
        /// exits 75 at once (cron runs that overlap).
        public func lock() throws -> WalletLocks {
            let locks = WalletLocks()
            for wallet in wallets {
                let lock = open(wallet.lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
                guard lock >= 0 else {
                    locks.release()
                    throw InitializerError.stateDirectory(wallet.lockPath)
                }
                locks.descriptors.append(lock)
                guard flock(lock, LOCK_EX | LOCK_NB) == 0 else {
                    locks.release()
                    throw ScanStateError.locked(wallet.lockPath)
                }
            }
            return locks
        }
    }

    /// $XDG_DATA_HOME/satchel/scan, else ~/.local/share/satchel/scan.
    public static var defaultStateDirectory: String {
        let env = ProcessInfo.processInfo.environment
        let base = env["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? ((env["HOME"] ?? "/root") + "/.local/share")
        return base + "/satchel/scan"
    }

    /// Files a run of `wallets` wallets holds open: each wallet's lock for the whole run, and
    /// its state (a database, its WAL and shared memory) while it is used — all of them up to
    /// `statesKeptOpen` wallets, one at a time past that — and a margin for the
    /// source, the standard streams and the libraries.
    public static func openFilesNeeded(wallets: Int) -> Int {
        wallets + 3 * (wallets <= statesKeptOpen ? wallets : 1) + 128
    }

    /// Up to this many wallets a synchronizer keeps every state open; past it, each state is
    /// opened for its part of a batch and closed after (files and memory per wallet stay small).
    public static let statesKeptOpen = 64

    /// Raises this process's soft limit on open files toward its hard limit when `needed` is
    /// more (Debian's soft limit is 1,024 and its hard limit far higher); a hard limit below
    /// `needed` is refused before any state is touched.
    static func reserveOpenFiles(_ needed: Int, wallets: Int) throws(InitializerError) {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max,
            Int(limit.rlim_cur) < needed
        else { return }
        let hard = limit.rlim_max == rlim_t.max ? Int.max : Int(limit.rlim_max)
        guard hard >= needed else { throw .tooManyWallets(wallets: wallets, files: needed, limit: hard) }
        limit.rlim_cur = rlim_t(needed)
        guard setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
            throw .tooManyWallets(wallets: wallets, files: needed, limit: Int(limit.rlim_cur))
        }
    }

    public func resolve() throws(InitializerError) -> Resolved {
        // What is missing (a wallet, a birthday, a source) is said all at once, not one run at a time.
        var missing = [InitializerError]()
        if wallets.isEmpty {
            missing.append(.noWallet(keyRecordFields: chainWords.keyRecordFields))
            if birthday == nil { missing.append(.noBirthday(nil)) }
        }
        var seen = Set<String>(), names = Set<String>()
        for wallet in wallets {
            guard seen.insert(wallet.stateName).inserted else { throw .sameWalletTwice(wallet.name ?? wallet.stateName) }
            // Events are told apart by the wallet's name: two wallets may not share one.
            if let name = wallet.name, !names.insert(name).inserted { throw .sameName(name) }
        }
        var birthdays = [Int]()
        for wallet in wallets {
            guard let birthday = birthday ?? wallet.birthday else {
                missing.append(.noBirthday(wallets.count > 1 ? wallet.name : nil))
                continue
            }
            guard birthday >= 0 else { throw .badBirthday(birthday) }
            birthdays.append(birthday)
        }
        if source == nil { missing.append(.noSource(chainWords.blockSources)) }
        if missing.count == 1 { throw missing[0] }
        if missing.count > 1 { throw .missing(missing) }
        guard let source else { throw .noSource(chainWords.blockSources) }
        try Self.reserveOpenFiles(Self.openFilesNeeded(wallets: wallets.count), wallets: wallets.count)
        let directory = stateDirectory ?? Self.defaultStateDirectory
        do { try PrivateDirectory.prepare(directory) } catch {
            switch error {
            case .loose(let path, let mode): throw .looseStateDirectory(path: path, mode: mode)
            case .notOwned(let path): throw .looseStateDirectory(path: path, mode: "owned by another user")
            case .cannotCreate(let path, _), .notADirectory(let path): throw .stateDirectory(path)
            }
        }
        let resolved = zip(wallets, birthdays).map { wallet, birthday in
            let base = directory + "/" + wallet.stateName
            return ResolvedWallet(name: wallet.name, birthday: birthday, statePath: base + ".sqlite", lockPath: base + ".lock")
        }
        return Resolved(wallets: resolved, source: source)
    }
}

/// A run's wallet locks (flock on each wallet's lock file), held until `release`.
public final class WalletLocks {
    fileprivate var descriptors = [Int32]()

    public func release() {
        descriptors.forEach { close($0) }
        descriptors = []
    }

    deinit { release() }
}

public enum InitializerError: WalletError, Equatable {
    /// The chain's key fields, for the message.
    case noWallet(keyRecordFields: String)
    /// The wallet's name when several are scanned.
    case noBirthday(String?)
    case badBirthday(Int)
    case sameWalletTwice(String)
    case sameName(String)
    /// The chain's block sources, for the message.
    case noSource(String)
    case stateDirectory(String)
    case looseStateDirectory(path: String, mode: String)
    /// More wallets than this process may hold files open for.
    case tooManyWallets(wallets: Int, files: Int, limit: Int)
    /// Several of a wallet, a birthday and a block source are missing: each, in one error.
    indirect case missing([InitializerError])

    public var code: String {
        switch self {
        case .noWallet: "scan.no_wallet"
        case .noBirthday: "scan.no_birthday"
        case .badBirthday: "scan.bad_birthday"
        case .sameWalletTwice: "scan.same_wallet_twice"
        case .sameName: "scan.same_wallet_name"
        case .noSource: "scan.no_source"
        case .stateDirectory: "scan.state_directory"
        case .looseStateDirectory: "scan.insecure_state_directory"
        case .tooManyWallets: "scan.too_many_wallets"
        case .missing: "scan.missing"
        }
    }

    public var exitStatus: ExitStatus {
        switch self {
        case .stateDirectory: return .ioError
        case .tooManyWallets: return .unavailable
        default: return .usage
        }
    }

    public var message: String {
        switch self {
        case .noWallet(let fields): "no wallet: give --wallet NAME, or a key record on stdin (\(fields))"
        case .noBirthday(let name?):
            "no birthday for wallet '\(name)': store one in its entry or record, or give --birthday HEIGHT (for every wallet)"
        case .noBirthday(nil):
            "no birthday: give --birthday HEIGHT (the first block that can hold the wallet's outputs; 0 scans everything), or store one in the key-store entry"
        case .badBirthday(let h): "birthday \(h) is not a block height"
        case .sameWalletTwice(let w): "wallet '\(w)' is given twice (the same keys): scan it once"
        case .sameName(let name): "two wallets are named '\(name)': their records could not be told apart; give each its own name"
        case .noSource(let sources): "no block source: give \(sources)"
        case .stateDirectory(let d): "cannot create the state directory \(d)"
        case .looseStateDirectory(let d, let mode):
            "the state directory \(d) is open to other users (\(mode)); it holds which outputs are yours: chmod 700 it"
        case .tooManyWallets(let wallets, let files, let limit):
            "\(wallets) wallets need about \(files) open files, and this process may open \(limit) (its hard limit, ulimit -Hn): raise the limit, or split the wallets over several runs"
        case .missing(let errors): "\(errors.count) things are missing: " + errors.map(\.message).joined(separator: "; ")
        }
    }
}
