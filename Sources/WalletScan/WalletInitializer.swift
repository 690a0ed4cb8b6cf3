import Foundation
#if canImport(Glibc)
import Glibc
#endif
import WalletCore
import WalletKeys

/// The Wallet Initializer: gathers what a sync needs and names each missing piece. It is a
/// value that resolves once; it answers no queries and holds no connection.
public struct WalletInitializer {
    public var keys: MoneroKeys?
    public var birthday: Int?
    public var stateDirectory: String?
    public var source: BlockSource?

    public init(keys: MoneroKeys? = nil, birthday: Int? = nil, stateDirectory: String? = nil, source: BlockSource? = nil) {
        self.keys = keys
        self.birthday = birthday
        self.stateDirectory = stateDirectory
        self.source = source
    }

    public struct Resolved {
        public let keys: MoneroKeys
        public let birthday: Int
        public let statePath: String
        public let lockPath: String
        public let source: BlockSource
    }

    /// $XDG_DATA_HOME/satchel/scan, else ~/.local/share/satchel/scan.
    public static var defaultStateDirectory: String {
        let env = ProcessInfo.processInfo.environment
        let base = env["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? ((env["HOME"] ?? "/root") + "/.local/share")
        return base + "/satchel/scan"
    }

    public func resolve(network: String) throws(InitializerError) -> Resolved {
        guard let keys else { throw .noWallet }
        guard let birthday else { throw .noBirthday }
        guard birthday >= 0 else { throw .badBirthday(birthday) }
        guard let source else { throw .noSource }
        let directory = stateDirectory ?? Self.defaultStateDirectory
        do { try PrivateDirectory.prepare(directory) } catch {
            switch error {
            case .loose(let path, let mode): throw .looseStateDirectory(path: path, mode: mode)
            case .notOwned(let path): throw .looseStateDirectory(path: path, mode: "owned by another user")
            case .cannotCreate(let path, _), .notADirectory(let path): throw .stateDirectory(path)
            }
        }
        // One state file per wallet and network, named by a hash of its public keys.
        let id = Hex.encode(Keccak256.hash(keys.spendPublic + keys.viewPublic + Array(network.utf8)).prefix(12))
        let base = directory + "/monero-\(network)-\(id)"
        return Resolved(keys: keys, birthday: birthday, statePath: base + ".sqlite", lockPath: base + ".lock", source: source)
    }
}

public enum InitializerError: WalletError, Equatable {
    case noWallet
    case noBirthday
    case badBirthday(Int)
    case noSource
    case stateDirectory(String)
    case looseStateDirectory(path: String, mode: String)

    public var code: String {
        switch self {
        case .noWallet: "scan.no_wallet"
        case .noBirthday: "scan.no_birthday"
        case .badBirthday: "scan.bad_birthday"
        case .noSource: "scan.no_source"
        case .stateDirectory: "scan.state_directory"
        case .looseStateDirectory: "scan.insecure_state_directory"
        }
    }

    public var exitStatus: ExitStatus {
        if case .stateDirectory = self { return .ioError }
        return .usage
    }

    public var message: String {
        switch self {
        case .noWallet: "no wallet: give --wallet NAME, or a key record on stdin (view_key with public_spend_key, spend_key, or a Monero mnemonic)"
        case .noBirthday: "no birthday: give --birthday HEIGHT (the first block that can hold the wallet's outputs; 0 scans everything), or store one in the key-store entry"
        case .badBirthday(let h): "birthday \(h) is not a block height"
        case .noSource: "no block source: give --node HOST:PORT, or --blocks FILE (and --txs FILE)"
        case .stateDirectory(let d): "cannot create the state directory \(d)"
        case .looseStateDirectory(let d, let mode): "the state directory \(d) is open to other users (\(mode)); it holds which outputs are yours: chmod 700 it"
        }
    }
}
