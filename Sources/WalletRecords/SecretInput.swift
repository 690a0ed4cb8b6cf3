#if canImport(Glibc)
    import Glibc
#endif
import WalletCore

/// Where a secret (a passphrase) comes from. There is deliberately no argv or environment
/// variant: both are visible to other users of the machine (ps, /proc/PID/environ).
public enum SecretSource: Sendable, Equatable {
    /// A file that only its owner may read (mode 0600 or 0400).
    case file(String)
    /// An open file descriptor, read to its end (e.g. `3<secret.txt` or a pipe).
    case fileDescriptor(Int32)
    /// A prompt on /dev/tty with echo off; `confirm` asks twice.
    case prompt(label: String, confirm: Bool)
}

public enum SecretInputError: WalletError, Equatable {
    case cannotOpen(path: String, reason: String)
    case notRegularFile(path: String)
    case readableByOthers(path: String, mode: String)
    case readFailed(reason: String)
    case tooLong(limit: Int)
    case notUTF8
    case noTerminal
    case confirmationMismatch

    public var code: String {
        switch self {
        case .cannotOpen: "secret.cannot_open"
        case .notRegularFile: "secret.not_regular_file"
        case .readableByOthers: "secret.insecure_permissions"
        case .readFailed: "secret.read_failed"
        case .tooLong: "secret.too_long"
        case .notUTF8: "secret.invalid_utf8"
        case .noTerminal: "secret.no_terminal"
        case .confirmationMismatch: "secret.confirmation_mismatch"
        }
    }

    public var exitStatus: ExitStatus {
        switch self {
        case .cannotOpen: .noInput
        case .readFailed: .ioError
        case .notRegularFile, .readableByOthers, .noTerminal: .usage
        case .tooLong, .notUTF8, .confirmationMismatch: .dataError
        }
    }

    public var message: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open secret file \(path): \(reason)"
        case .notRegularFile(let path): "secret file \(path) is neither a regular file nor a pipe"
        case .readableByOthers(let path, let mode):
            "secret file \(path) has mode \(mode): others can read it; run chmod 600 \(path)"
        case .readFailed(let reason): "cannot read the secret: \(reason)"
        case .tooLong(let limit): "the secret is longer than \(limit) bytes"
        case .notUTF8: "the secret is not valid UTF-8 text"
        case .noTerminal: "cannot prompt: no terminal (/dev/tty); use a --…-file or --…-fd option"
        case .confirmationMismatch: "the two entries differ"
        }
    }
}

/// Reads secrets from the sources above into wiped-on-release buffers.
public enum SecretInput {
    public static let maxBytes = 64 * 1024

    /// One trailing newline ("\n" or "\r\n") is removed, as `echo` and editors add it;
    /// every other character, including leading and trailing spaces, is kept (BIP39 does
    /// not trim passphrases).
    public static func read(_ source: SecretSource) throws(SecretInputError) -> SecureBytes {
        switch source {
        case .file(let path):
            let fd = try openFile(path)
            defer { close(fd) }
            return try readAll(fd)
        case .fileDescriptor(let fd):
            return try readAll(fd)
        case .prompt(let label, let confirm):
            let first = try prompt(label)
            if confirm {
                let second = try prompt("Again: " + label)
                guard first == second else { throw .confirmationMismatch }
            }
            return first
        }
    }

    /// A secret file that its group may read too, not others: a node's RPC cookie, which the
    /// node may share with its group (bitcoind -rpccookieperms=group).
    public static func read(groupReadableFile path: String) throws(SecretInputError) -> SecureBytes {
        let fd = try openFile(path, forbidden: 0o007)
        defer { close(fd) }
        return try readAll(fd)
    }

    /// Opens a secret file as `.file` reads it: its owner's alone (no bit of `forbidden` set),
    /// a regular file or a pipe.
    private static func openFile(_ path: String, forbidden: mode_t = 0o077) throws(SecretInputError) -> Int32 {
        // /dev/fd/N is a link to an open descriptor: what `--key-file <(…)` names. Other
        // links are not followed.
        let descriptorPath = path.hasPrefix("/dev/fd/") || path.hasPrefix("/proc/self/fd/")
        let fd = open(path, O_RDONLY | O_CLOEXEC | (descriptorPath ? 0 : O_NOFOLLOW))
        guard fd >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        var info = stat()
        // A pipe (process substitution, a FIFO) is read like a file; its mode is checked
        // too, since whoever may open a named FIFO can read the secret from it.
        guard fstat(fd, &info) == 0, [S_IFREG, S_IFIFO].contains(info.st_mode & S_IFMT) else {
            close(fd)
            throw .notRegularFile(path: path)
        }
        guard info.st_mode & forbidden == 0 else {
            close(fd)
            throw .readableByOthers(path: path, mode: String(info.st_mode & 0o777, radix: 8))
        }
        return fd
    }

    /// A secret file checked as `.file`, read a line at a time so that its size has no bound
    /// (a --wallets file of 10,000 view keys is about 2 MB): each line, without its "\n" or
    /// "\r\n", goes to `body` with its number (from 1), in a buffer wiped afterwards. A line
    /// over `maxBytes` is refused; so is one that is not UTF-8.
    public static func forEachLine(ofFile path: String, _ body: (_ line: [UInt8], _ number: Int) throws -> Void) throws {
        let fd = try openFile(path)
        defer { close(fd) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var line = [UInt8]()
        defer {
            SecureBytes.wipe(&chunk)
            SecureBytes.wipe(&line)
        }
        var number = 0
        func deliver() throws {
            number += 1
            if line.last == 0x0D { line.removeLast() }
            guard RecordPipeline.firstInvalidUTF8(line) == nil else { throw SecretInputError.notUTF8 }
            try body(line, number)
            SecureBytes.wipe(&line)
            line.removeAll(keepingCapacity: true)
        }
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw SecretInputError.readFailed(reason: String(cString: strerror(errno)))
            }
            if n == 0 { break }
            for byte in chunk[0..<n] {
                if byte == 0x0A {
                    try deliver()
                } else {
                    line.append(byte)
                    guard line.count <= maxBytes else { throw SecretInputError.tooLong(limit: maxBytes) }
                }
            }
        }
        if !line.isEmpty { try deliver() }
    }

    private static func readAll(_ fd: Int32) throws(SecretInputError) -> SecureBytes {
        var bytes = [UInt8](repeating: 0, count: maxBytes + 1)
        defer { SecureBytes.wipe(&bytes) }
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                throw .readFailed(reason: String(cString: strerror(errno)))
            }
            count += n
        }
        guard count <= maxBytes else { throw .tooLong(limit: maxBytes) }
        return try finish(bytes[0..<count])
    }

    private static func finish(_ raw: ArraySlice<UInt8>) throws(SecretInputError) -> SecureBytes {
        var end = raw.endIndex
        if end > raw.startIndex, raw[end - 1] == 0x0A {
            end -= 1
            if end > raw.startIndex, raw[end - 1] == 0x0D { end -= 1 }
        }
        let text = raw[raw.startIndex..<end]
        guard RecordPipeline.firstInvalidUTF8(Array(text)) == nil else { throw .notUTF8 }
        return SecureBytes(text)
    }

    /// Asks on /dev/tty (not stdin, which carries records) with echo off.
    private static func prompt(_ label: String) throws(SecretInputError) -> SecureBytes {
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard tty >= 0 else { throw .noTerminal }
        defer { close(tty) }
        var saved = termios()
        guard tcgetattr(tty, &saved) == 0 else { throw .noTerminal }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        quiet.c_lflag |= tcflag_t(ECHONL)
        _ = label.withCString { Glibc.write(tty, $0, strlen($0)) }
        // Ctrl-C at the prompt must not leave the terminal without echo.
        promptTerminal = (tty, saved)
        let signals = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
        let previous = signals.map { signal($0, restoreTerminalAndReraise) }
        defer {
            for (sig, handler) in zip(signals, previous) { signal(sig, handler) }
            promptTerminal = nil
        }
        guard tcsetattr(tty, TCSAFLUSH, &quiet) == 0 else { throw .noTerminal }
        defer { _ = tcsetattr(tty, TCSAFLUSH, &saved) }
        var line = [UInt8]()
        defer { SecureBytes.wipe(&line) }
        var byte: UInt8 = 0
        while true {
            let n = Glibc.read(tty, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 || byte == 0x0A { break }
            line.append(byte)
            guard line.count <= maxBytes else { throw .tooLong(limit: maxBytes) }
        }
        byte = 0
        return try finish(line[...])
    }
}

/// The terminal a prompt has silenced, for the signal handler below.
nonisolated(unsafe) private var promptTerminal: (fd: Int32, saved: termios)?

/// Restores echo, then dies of the same signal with its default action.
private func restoreTerminalAndReraise(_ sig: Int32) {
    if var terminal = promptTerminal {
        _ = tcsetattr(terminal.fd, TCSAFLUSH, &terminal.saved)
        _ = Glibc.write(terminal.fd, "\n", 1)
    }
    signal(sig, SIG_DFL)
    raise(sig)
}
