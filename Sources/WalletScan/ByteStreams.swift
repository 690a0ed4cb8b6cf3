import CZstd
#if canImport(Glibc)
    import Glibc
#endif

/// The first bytes of every zstd frame.
package enum Zstd {
    package static let magic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]
}

/// Bytes of a file or stdin, decompressed on the fly when they are zstd (found by the magic
/// number), read in chunks: memory does not grow with the file.
public final class ByteStream {
    private let fd: Int32
    private let closeWhenDone: Bool
    public let name: String
    private var raw = [UInt8](repeating: 0, count: 1 << 17)
    private var rawStart = 0, rawEnd = 0, rawEOF = false
    private var zstd: OpaquePointer?
    /// The last zstd call's hint: 0 only when a frame ended exactly; anything else at the end
    /// of the input is a cut file.
    private var zstdHint = 1
    private var decoded = [UInt8](repeating: 0, count: ZSTD_DStreamOutSize())

    /// `path` "-" is stdin.
    public init(path: String) throws {
        name = path == "-" ? "<stdin>" : path
        if path == "-" {
            fd = 0
            closeWhenDone = false
        } else {
            fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw ScanError.unreadable(path, String(cString: strerror(errno))) }
            closeWhenDone = true
        }
        try fillRaw()
        if rawEnd - rawStart >= 4, Array(raw[rawStart..<rawStart + 4]) == Zstd.magic {
            guard let stream = ZSTD_createDStream() else { throw ScanError.unsupported("zstd: out of memory") }
            ZSTD_initDStream(stream)
            zstd = stream
        }
    }

    deinit {
        if let zstd { ZSTD_freeDStream(zstd) }
        if closeWhenDone { close(fd) }
    }

    private func fillRaw() throws {
        if rawStart == rawEnd { rawStart = 0; rawEnd = 0 }
        while !rawEOF && rawEnd < raw.count {
            let n = raw.withUnsafeMutableBytes { read(fd, $0.baseAddress! + rawEnd, $0.count - rawEnd) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ScanError.unreadable(name, String(cString: strerror(errno)))
            }
            if n == 0 { rawEOF = true } else { rawEnd += n }
            if rawEnd > 0 { break }
        }
    }

    /// Calls `body` with the next chunk of (decompressed) bytes; false at the end.
    public func next(_ body: (UnsafeBufferPointer<UInt8>) throws -> Void) throws -> Bool {
        while true {
            if rawStart == rawEnd { try fillRaw() }
            guard zstd != nil else {
                guard rawStart < rawEnd else { return false }
                try raw.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[rawStart..<rawEnd])) }
                rawStart = rawEnd
                return true
            }
            if rawStart == rawEnd && rawEOF {
                // All input given: flush what the decoder still holds; then the last frame
                // must have ended exactly (hint 0), else the file was cut.
                guard zstdHint != 0 else { return false }
                let produced = try decompress()
                if produced > 0 {
                    try decoded.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[0..<produced])) }
                    return true
                }
                throw ScanError.malformed(what: "\(name) (zstd)", reason: "the data ends inside a frame (a cut file?)")
            }
            let produced = try decompress()
            if produced > 0 {
                try decoded.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[0..<produced])) }
                return true
            }
        }
    }

    private func decompress() throws -> Int {
        let (rc, consumed, produced) = raw.withUnsafeBytes { r in
            decoded.withUnsafeMutableBytes { d in
                var input = ZSTD_inBuffer(src: r.baseAddress! + rawStart, size: rawEnd - rawStart, pos: 0)
                var output = ZSTD_outBuffer(dst: d.baseAddress, size: d.count, pos: 0)
                let rc = ZSTD_decompressStream(zstd, &output, &input)
                return (rc, input.pos, output.pos)
            }
        }
        guard ZSTD_isError(rc) == 0 else { throw ScanError.malformed(what: "\(name) (zstd)", reason: "not valid zstd data") }
        rawStart += consumed
        zstdHint = rc
        return produced
    }
}

extension ByteStream {
    /// The first byte of a file (decompressed), nil when it is empty: tells JSON Lines ("{")
    /// from a binary stream before a scan starts.
    public static func firstByte(of path: String) throws -> UInt8? {
        let stream = try ByteStream(path: path)
        var first: UInt8?
        while first == nil,
            try stream.next({ chunk in first = chunk.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) })
        {}
        return first
    }
}

/// Lines of a `ByteStream`, each handed out as bytes without its "\n" (or "\r\n").
public final class LineStream {
    let stream: ByteStream
    private var pending = [UInt8]()
    private var lines = [[UInt8]]()
    private var cursor = 0
    private(set) var lineNumber = 0
    private var ended = false
    static let maxLine = 1 << 26

    public init(path: String) throws { stream = try ByteStream(path: path) }

    public var name: String { stream.name }

    /// The next non-empty line and its number, or nil at the end.
    public func next() throws -> (number: Int, bytes: [UInt8])? {
        while true {
            if cursor < lines.count {
                let line = lines[cursor]
                cursor += 1
                lineNumber += 1
                if line.isEmpty { continue }
                return (lineNumber, line)
            }
            lines.removeAll(keepingCapacity: true)
            cursor = 0
            if ended { return nil }
            let more = try stream.next { chunk in
                var start = 0
                let base = chunk.baseAddress!
                while start < chunk.count {
                    guard let hit = memchr(base + start, 0x0A, chunk.count - start) else {
                        pending.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[start...]))
                        break
                    }
                    let end = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                    var line = pending
                    pending = []
                    line.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[start..<end]))
                    if line.last == 0x0D { line.removeLast() }
                    lines.append(line)
                    start = end + 1
                }
                guard pending.count <= Self.maxLine else {
                    throw ScanError.malformed(
                        what: "\(name) line \(lineNumber + lines.count + 1)", reason: "longer than \(Self.maxLine) bytes")
                }
            }
            if !more {
                ended = true
                if !pending.isEmpty {
                    if pending.last == 0x0D { pending.removeLast() }
                    lines.append(pending)
                    pending = []
                }
            }
        }
    }
}
