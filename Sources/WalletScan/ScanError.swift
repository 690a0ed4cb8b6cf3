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
        case .badServerData(let server, let problem): "\(server) sent chain data that does not check: \(problem); use another node or server"
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

/// A cursor over consensus-serialized bytes with bounds checks on every read.
package struct ByteReader {
    package let bytes: [UInt8]
    package var offset = 0
    package let what: String

    package init(_ bytes: [UInt8], what: String) {
        self.bytes = bytes
        self.what = what
    }

    package var isAtEnd: Bool { offset == bytes.count }

    package mutating func byte() throws(ScanError) -> UInt8 {
        guard offset < bytes.count else { throw .truncated(what: what, offset: offset) }
        defer { offset += 1 }
        return bytes[offset]
    }

    package mutating func take(_ n: Int) throws(ScanError) -> [UInt8] {
        guard n >= 0, n <= bytes.count - offset else { throw .truncated(what: what, offset: offset) }
        defer { offset += n }
        return Array(bytes[offset..<(offset + n)])
    }

    /// Monero/Bitcoin-style LEB128 varint, at most 64 bits, minimal encoding not enforced.
    package mutating func varint() throws(ScanError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = try byte()
            guard shift < 64, !(shift == 63 && b > 1) else { throw .malformed(what: what, reason: "varint over 64 bits at byte \(offset - 1)") }
            value |= UInt64(b & 0x7F) << shift
            if b & 0x80 == 0 { return value }
            shift += 7
        }
    }

    /// A count that will size a loop or an allocation: bounded by the bytes that remain.
    package mutating func count(minimumItemSize: Int) throws(ScanError) -> Int {
        let n = try varint()
        guard n <= UInt64(bytes.count - offset) / UInt64(max(minimumItemSize, 1)) else {
            throw .malformed(what: what, reason: "a count of \(n) at byte \(offset) exceeds the data")
        }
        return Int(n)
    }
}

package func varintBytes(_ value: UInt64) -> [UInt8] {
    var v = value
    var out = [UInt8]()
    while v >= 0x80 { out.append(UInt8(v & 0x7F) | 0x80); v >>= 7 }
    out.append(UInt8(v))
    return out
}
