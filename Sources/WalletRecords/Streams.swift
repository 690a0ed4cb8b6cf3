#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import WalletCore

/// Reads a file descriptor line by line without ever holding more than `maxLineBytes` of one
/// line: a longer line is reported and skipped, so a 1 GB line costs no memory.
public struct LineReader {
    public enum Item {
        case line(number: Int, bytes: [UInt8])
        case tooLong(number: Int)
    }

    private let fd: Int32
    private let name: String
    private let maxLineBytes: Int
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var start = 0
    private var end = 0
    private var current = [UInt8]()
    private var overflowing = false
    private var lineNumber = 0
    private var eof = false

    /// Called before every read(2) that may block, so a writer can flush what it holds: the
    /// tool never waits for input while output it has made sits in a buffer.
    private let beforeRead: () throws(CLIError) -> Void

    public init(fd: Int32, name: String, maxLineBytes: Int, beforeRead: @escaping () throws(CLIError) -> Void = {}) {
        self.fd = fd
        self.name = name
        self.maxLineBytes = maxLineBytes
        self.beforeRead = beforeRead
    }

    /// The next line without its terminator ("\n" or "\r\n"), or nil at the end.
    ///
    /// Lines may hold secrets: the previous line's bytes are wiped here, in place, once the
    /// caller has let go of them, and the read buffer is wiped at the end of the input.
    public mutating func next() throws(CLIError) -> Item? {
        wipeCurrent()
        while true {
            if start < end {
                let chunk = buffer[start..<end]
                if let nl = chunk.firstIndex(of: 0x0A) {
                    append(buffer[start..<nl])
                    start = nl + 1
                    return finishLine()
                }
                append(chunk)
                start = end
            }
            if eof {
                if current.isEmpty && !overflowing {
                    SecureBytes.wipe(&buffer)
                    return nil
                }
                return finishLine()
            }
            try fill()
        }
    }

    private mutating func append(_ bytes: ArraySlice<UInt8>) {
        guard !overflowing else { return }
        if current.count + bytes.count > maxLineBytes + 1 {  // +1: a "\r" may still be stripped
            overflowing = true
            wipeCurrent()
        } else {
            current.append(contentsOf: bytes)
        }
    }

    private mutating func finishLine() -> Item {
        lineNumber += 1
        defer { overflowing = false }
        if overflowing { return .tooLong(number: lineNumber) }
        if current.last == 0x0D { current.removeLast() }
        if current.count > maxLineBytes { return .tooLong(number: lineNumber) }
        return .line(number: lineNumber, bytes: current)
    }

    private mutating func wipeCurrent() {
        SecureBytes.wipe(&current)
        current.removeAll(keepingCapacity: true)
    }

    private mutating func fill() throws(CLIError) {
        try beforeRead()
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 { start = 0; end = n; return }
            if n == 0 { eof = true; return }
            if errno == EINTR { continue }
            throw .readFailed(path: name, reason: String(cString: strerror(errno)))
        }
    }
}

/// Writes whole lines with write(2), one call per record, so each record reaches a pipe
/// at once and a reader never sees half a line from us.
public struct OutputStream: Sendable {
    public let fd: Int32

    public init(fd: Int32) { self.fd = fd }

    public static let standardOutput = OutputStream(fd: 1)
    public static let standardError = OutputStream(fd: 2)

    public func write(_ bytes: [UInt8]) throws(CLIError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n >= 0 { offset += n; continue }
            if errno == EINTR { continue }
            throw .writeFailed(reason: String(cString: strerror(errno)))
        }
    }

    public func write(_ text: String) throws(CLIError) { try write(Array(text.utf8)) }
}

extension OutputStream {
    /// Which regular file this descriptor writes and where its next write lands (the end, when
    /// it appends); nil for a pipe, a terminal or a socket.
    public func filePosition() -> (device: UInt64, inode: UInt64, offset: Int64)? {
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        let appending = fcntl(fd, F_GETFL) & O_APPEND != 0
        let offset = appending ? Int64(st.st_size) : Int64(lseek(fd, 0, SEEK_CUR))
        guard offset >= 0 else { return nil }
        return (UInt64(st.st_dev), UInt64(st.st_ino), offset)
    }

    /// Up to `count` bytes of this descriptor's file at `offset`, if it is still the file
    /// (device, inode). The file is opened again to read it: stdout is often write-only.
    public func readBack(device: UInt64, inode: UInt64, offset: Int64, count: Int) -> [UInt8]? {
        let reader = open("/proc/self/fd/\(fd)", O_RDONLY | O_CLOEXEC)
        guard reader >= 0 else { return nil }
        defer { close(reader) }
        var st = stat()
        guard fstat(reader, &st) == 0, UInt64(st.st_dev) == device, UInt64(st.st_ino) == inode else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = bytes.withUnsafeMutableBytes { pread(reader, $0.baseAddress! + got, count - got, off_t(offset) + off_t(got)) }
            if n > 0 { got += n; continue }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return nil }
            break
        }
        return Array(bytes[..<got])
    }

    /// Makes what was written durable, where the descriptor is a file (fsync); a no-op for
    /// pipes and terminals.
    public func sync() throws(CLIError) {
        guard fsync(fd) == 0 || errno == EINVAL || errno == EROFS else {
            throw .writeFailed(reason: String(cString: strerror(errno)))
        }
    }
}
