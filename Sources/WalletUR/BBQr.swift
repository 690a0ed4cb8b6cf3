import CZlib
import WalletCore

/// Coinkite's BBQr ("Better Bitcoin QR", BBQr.md): `B$`, an encoding, a file type, the part
/// count and the part's index in two base-36 digits each, then the data — equal parts but the
/// last, upper-case, all in QR's alphanumeric set.
public enum BBQr {
    public enum Encoding: Character, Sendable {
        case hex = "H"
        case base32 = "2"
        /// Raw DEFLATE with a 1 KiB window (zlib, wbits -10, no header), then Base32: what
        /// Coinkite's own code writes and a Coldcard can inflate in its memory.
        case zlib = "Z"
    }

    public enum FileType: Character, Sendable {
        case psbt = "P", transaction = "T", json = "J", cbor = "C", unicode = "U", binary = "B", executable = "X"
    }

    /// Two base-36 digits: at most 1,295 parts.
    public static let maxParts = 1295
    static let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")

    static func base36(_ n: Int) -> String { String([digits[n / 36], digits[n % 36]]) }

    static func base36(_ s: Substring) -> Int? {
        var n = 0
        for c in s.uppercased() {
            guard let d = digits.firstIndex(of: c) else { return nil }
            n = n * 36 + d
        }
        return n
    }

    /// The parts of `data`, each at most `maxCharacters` long (header included). `.zlib` falls
    /// back to `.base32` when compression does not make the data smaller, as BBQr.md asks.
    public static func split(
        _ data: [UInt8], type: FileType, encoding requested: Encoding = .zlib, maxCharacters: Int = 1000
    ) throws(URError)
        -> [String]
    {
        var encoding = requested
        var payload = data
        if requested == .zlib {
            let packed = try deflateRaw(data)
            if packed.count < data.count { payload = packed } else { encoding = .base32 }
        }
        let text = encoding == .hex ? Hex.encode(payload).uppercased() : Base32.encode(payload)
        // Whole bytes in every part: hex by 2 characters, Base32 by 8.
        let unit = encoding == .hex ? 2 : 8
        let room = (maxCharacters - 8) / unit * unit
        guard room >= unit else { throw .tooLarge("a BBQr part needs more than \(maxCharacters) characters") }
        let count = max(1, (text.count + room - 1) / room)
        guard count <= maxParts else {
            throw .tooLarge("\(data.count) bytes need more than \(maxParts) BBQr parts of \(maxCharacters) characters")
        }
        // Parts of about equal size rather than full ones and a runt (BBQr.md's advice).
        let per = ((text.count + count - 1) / count + unit - 1) / unit * unit
        let chars = Array(text)
        let header = "B$" + String(encoding.rawValue) + String(type.rawValue) + base36(count)
        return (0..<count).map { i in
            header + base36(i) + String(chars[min(i * per, chars.count)..<min((i + 1) * per, chars.count)])
        }
    }

    /// Raw DEFLATE, 1 KiB window, level 9.
    static func deflateRaw(_ data: [UInt8]) throws(URError) -> [UInt8] {
        var stream = z_stream()
        guard deflateInit2_(&stream, 9, Z_DEFLATED, -10, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else {
            throw .unsupported("zlib refused to start compressing")
        }
        defer { deflateEnd(&stream) }
        var input = data
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(data.count))) + 16)
        let status = input.withUnsafeMutableBufferPointer { inp in
            output.withUnsafeMutableBufferPointer { out in
                stream.next_in = inp.baseAddress
                stream.avail_in = uInt(inp.count)
                stream.next_out = out.baseAddress
                stream.avail_out = uInt(out.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { throw .unsupported("zlib could not compress the data") }
        return Array(output.prefix(Int(stream.total_out)))
    }

    /// Inflates raw DEFLATE written with at most a 1 KiB window; more than `limit` bytes out
    /// is refused (a small stream can inflate to gigabytes). One output byte per call: zlib
    /// checks a match's distance against its window only, never against bytes still in the
    /// caller's buffer, so this is what refuses a stream a Coldcard (1 KiB of window) cannot
    /// read — and so holds our own writer to BBQr's window in every round trip.
    static func inflateRaw(_ data: [UInt8], limit: Int) throws(URError) -> [UInt8] {
        var stream = z_stream()
        guard inflateInit2_(&stream, -10, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw .unsupported("zlib refused to start inflating")
        }
        defer { inflateEnd(&stream) }
        var input = data
        var result: [UInt8] = []
        var byte: UInt8 = 0
        var status: Int32 = Z_OK
        input.withUnsafeMutableBufferPointer { inp in
            stream.next_in = inp.baseAddress
            stream.avail_in = uInt(inp.count)
            while status == Z_OK && result.count <= limit {
                withUnsafeMutablePointer(to: &byte) { out in
                    stream.next_out = out
                    stream.avail_out = 1
                    status = inflate(&stream, Z_NO_FLUSH)
                    if stream.avail_out == 0 { result.append(out.pointee) }
                }
            }
        }
        guard result.count <= limit else { throw .tooLarge("a BBQr Z stream inflates to more than \(limit) bytes") }
        guard status == Z_STREAM_END else { throw .part("its Z data is not raw DEFLATE with a 1 KiB window (zlib status \(status))") }
        guard stream.avail_in == 0 else { throw .part("bytes after the end of its Z data") }
        return result
    }
}

/// Joins BBQr parts in any order. Parts must agree on encoding, type and count; a part of
/// another set is an error that keeps the set in progress.
public struct BBQrJoiner: Sendable {
    public private(set) var encoding: BBQr.Encoding?
    public private(set) var type: BBQr.FileType?
    public private(set) var count = 0
    /// Each part's data, decoded (Base32 or hex) as it arrives.
    private var parts: [Int: [UInt8]] = [:]
    public private(set) var result: [UInt8]?

    public init() {}

    public static func isBBQr(_ line: some StringProtocol) -> Bool { line.hasPrefix("B$") }

    public var received: Int { parts.count }
    /// 0-based indexes not yet seen.
    public var missing: [Int] { (0..<count).filter { parts[$0] == nil } }

    public mutating func receive(_ text: String) throws(URError) {
        guard result == nil else { return }
        let chars = Array(text)
        guard chars.count >= 8, text.hasPrefix("B$") else { throw .syntax("not a BBQr part (no B$ header)") }
        guard let enc = BBQr.Encoding(rawValue: chars[2]) else { throw .unsupported("BBQr encoding \(chars[2]) (H, 2 and Z are read)") }
        guard let ft = BBQr.FileType(rawValue: chars[3]) else { throw .unsupported("BBQr file type \(chars[3])") }
        guard let total = BBQr.base36(text.dropFirst(4).prefix(2)), let index = BBQr.base36(text.dropFirst(6).prefix(2)), total >= 1,
            index < total
        else { throw .syntax("a BBQr header whose part number is not below its part count") }
        if let encoding, let type {
            guard encoding == enc, type == ft, count == total else {
                throw .otherMessage(
                    "BBQr part \(index + 1) of \(total) (\(ft.rawValue), \(enc.rawValue)) belongs to another set than the one in progress "
                        + "(\(count) parts, \(type.rawValue), \(encoding.rawValue))")
            }
        }
        // Each part must decode on its own (whole bytes), caught here rather than at the end.
        let data = try Self.decode(String(chars[8...]), enc)
        if let seen = parts[index] {
            guard seen == data else { throw .otherMessage("BBQr part \(index + 1) of \(total) arrived twice with different data") }
            return
        }
        (encoding, type, count) = (enc, ft, total)
        parts[index] = data
        if parts.count == total { try assemble() }
    }

    static func decode(_ body: String, _ encoding: BBQr.Encoding) throws(URError) -> [UInt8] {
        switch encoding {
        case .hex:
            guard body.count % 2 == 0, let bytes = try? Hex.decode(body.lowercased()) else {
                throw .part("its hex data is not whole bytes")
            }
            return bytes
        case .base32, .zlib: return try Base32.decode(body)
        }
    }

    /// The set's file, once every part is in. A set that does not make one (Z data that fails
    /// to inflate, or too large) is dropped whole, as a UR message that fails its checksum is:
    /// no later part mends it, and the next set starts afresh.
    private mutating func assemble() throws(URError) {
        guard let encoding else { return }
        var bytes: [UInt8] = []
        for i in 0..<count { bytes += parts[i]! }
        do throws(URError) {
            if encoding == .zlib { bytes = try BBQr.inflateRaw(bytes, limit: FountainDecoder.maxMessageLength) }
            guard bytes.count <= FountainDecoder.maxMessageLength else {
                throw .tooLarge("a BBQr set of \(bytes.count) bytes (at most \(FountainDecoder.maxMessageLength) are read)")
            }
        } catch {
            let total = count
            self = BBQrJoiner()
            switch error {
            case .tooLarge(let why): throw .tooLarge(why + "; the set was dropped")
            default: throw .part("the BBQr set of \(total) parts was dropped: " + error.message)
            }
        }
        result = bytes
        parts = [:]
    }
}

/// RFC 4648 Base32, upper case, no padding (BBQr's "2" and "Z").
enum Base32 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    static func encode(_ data: [UInt8]) -> String {
        var out: [UInt8] = []
        var buffer = 0, bits = 0
        for b in data {
            buffer = buffer << 8 | Int(b)
            bits += 8
            while bits >= 5 {
                out.append(alphabet[(buffer >> (bits - 5)) & 31])
                bits -= 5
            }
            buffer &= (1 << bits) - 1
        }
        if bits > 0 { out.append(alphabet[(buffer << (5 - bits)) & 31]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Strict: the alphabet only (any case), a length that is whole bytes, unused bits zero.
    static func decode(_ text: String) throws(URError) -> [UInt8] {
        guard [0, 2, 4, 5, 7].contains(text.utf8.count % 8) else { throw .part("its Base32 data is not whole bytes") }
        var out: [UInt8] = []
        var buffer = 0, bits = 0
        for c in text.uppercased().utf8 {
            guard let v = alphabet.firstIndex(of: c) else { throw .part("a character outside Base32's alphabet") }
            buffer = buffer << 5 | v
            bits += 5
            if bits >= 8 {
                out.append(UInt8((buffer >> (bits - 8)) & 0xFF))
                bits -= 8
            }
            buffer &= (1 << bits) - 1
        }
        guard buffer == 0 else { throw .part("Base32 data whose last bits are not zero") }
        return out
    }
}
