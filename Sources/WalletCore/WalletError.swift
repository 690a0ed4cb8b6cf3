/// The process outcome, as sysexits(3) numbers. This is the one table every tool uses.
public enum ExitStatus: Int32, Sendable, Comparable, CaseIterable {
    case ok = 0
    case usage = 64  // EX_USAGE: bad flags or arguments
    case dataError = 65  // EX_DATAERR: a record or value is not what it claims
    case noInput = 66  // EX_NOINPUT: an input file does not exist or cannot be opened
    case unavailable = 69  // EX_UNAVAILABLE: no reader, node down
    case software = 70  // EX_SOFTWARE: a bug in Satchel
    case cantCreate = 73  // EX_CANTCREAT: an entry or file exists already
    case ioError = 74  // EX_IOERR: reading or writing failed
    case tryAgain = 75  // EX_TEMPFAIL: a lock is held
    case protocolError = 76  // EX_PROTOCOL: bad APDU or node reply
    case noPermission = 77  // EX_NOPERM: wrong PIN or passphrase

    /// Which of two outcomes a run reports: any failure beats success; between failures, the
    /// more fundamental one (I/O, usage) beats a bad record.
    public static func < (lhs: ExitStatus, rhs: ExitStatus) -> Bool { lhs.rank < rhs.rank }

    private var rank: Int {
        switch self {
        case .ok: 0
        case .dataError: 1
        case .noPermission: 2
        case .protocolError: 3
        case .tryAgain: 4
        case .cantCreate: 5
        case .unavailable: 5
        case .noInput: 6
        case .ioError: 7
        case .usage: 8
        case .software: 9
        }
    }
}

/// A value attached to an error, written as an extra field of the error record.
public enum ErrorDetail: Sendable, Equatable {
    case int(Int)
    case string(String)
    case strings([String])
}

/// Every error a Satchel module throws. Each module has its own enum conforming to this.
///
/// `message` and `details` must never contain secret material (phrases, seeds, keys,
/// passphrases): they are printed to stderr and written to error records.
public protocol WalletError: Error, Sendable, CustomStringConvertible {
    /// Stable, dotted, machine-readable code such as `mnemonic.checksum_failed`.
    var code: String { get }
    /// The exit status a run that met this error ends with.
    var exitStatus: ExitStatus { get }
    /// One human sentence, without secrets.
    var message: String { get }
    /// Extra record fields in order (e.g. `position`, `suggestions`); may be shown on stdout only.
    var details: [(key: String, value: ErrorDetail)] { get }
    /// Whether the error ends a run of records: what caused it (a card lost, a reset) would
    /// fail every record after it, so one error is reported and the rest are not tried.
    var endsRun: Bool { get }
}

extension WalletError {
    public var exitStatus: ExitStatus { .dataError }
    public var details: [(key: String, value: ErrorDetail)] { [] }
    public var endsRun: Bool { false }
    public var description: String { "\(code): \(message)" }
}
