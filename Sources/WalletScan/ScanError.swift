import WalletCore

/// Errors of the Wallet Synchronizer and its parsers. They name blocks, transactions and byte
/// offsets, never keys.
public enum ScanError: WalletError, Equatable {
    case truncated(what: String, offset: Int)
    case malformed(what: String, reason: String)
    case hashMismatch(what: String, expected: String, computed: String)
    case unsupported(String)
    /// A chain file that cannot be opened or read: its path and the system's reason.
    case unreadable(String, String)
    /// A source whose chain changed more often, or further back, in one run than any real
    /// chain does: a server that is not to be followed (it would re-report the same payments).
    case reorgLimit(String)
    /// Block data from a server (`BlockSource.serverName`) that does not parse or check: the
    /// server is not the node it claims to be, or is broken.
    case badServerData(server: String, problem: String)

    public var code: String {
        switch self {
        case .truncated: "scan.truncated"
        case .malformed: "scan.malformed"
        case .hashMismatch: "scan.hash_mismatch"
        case .unsupported: "scan.unsupported"
        case .unreadable: "scan.unreadable"
        case .reorgLimit: "scan.reorg_limit"
        case .badServerData: "source.bad_reply"
        }
    }

    public var message: String {
        switch self {
        case .truncated(let what, let offset): "\(what) ends early (at byte \(offset))"
        case .malformed(let what, let reason): "\(what) is malformed: \(reason)"
        case .hashMismatch(let what, let expected, let computed): "\(what) hashes to \(computed), not \(expected)"
        case .unsupported(let what): what
        case .unreadable(let path, let why): "cannot read \(path): \(why)"
        case .reorgLimit(let what): what
        case .badServerData(let server, let problem):
            "\(server) sent chain data that does not check: \(problem); use another node or server"
        }
    }

    public var exitStatus: ExitStatus {
        switch self {
        case .unreadable: .ioError
        case .reorgLimit, .badServerData: .protocolError
        default: .dataError
        }
    }
}
