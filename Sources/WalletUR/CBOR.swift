import WalletCore

/// The CBOR (RFC 8949) that URs carry: unsigned and negative integers, byte and text strings,
/// arrays, maps, tags, booleans and null. Written in deterministic form (shortest heads, map
/// keys in the order given — callers give them sorted, as the registry's integer keys are);
/// read strictly: a non-shortest head, an indefinite length, a float, a reserved value, a
/// duplicate map key or a byte after the item is an error, because two encodings of one message
/// would give two checksums and a lenient reader is how a signer sees one thing and signs another.
public indirect enum CBOR: Equatable, Sendable {
    case unsigned(UInt64)
    /// -1 - n.
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case array([CBOR])
    /// Pairs in encoded order.
    case map([(CBOR, CBOR)])
    case tagged(UInt64, CBOR)
    case bool(Bool)
    case null

    public static func == (a: CBOR, b: CBOR) -> Bool {
        switch (a, b) {
        case (.unsigned(let x), .unsigned(let y)), (.negative(let x), .negative(let y)): x == y
        case (.bytes(let x), .bytes(let y)): x == y
        case (.text(let x), .text(let y)): x == y
        case (.array(let x), .array(let y)): x == y
        case (.map(let x), .map(let y)): x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case (.tagged(let t, let x), .tagged(let u, let y)): t == u && x == y
        case (.bool(let x), .bool(let y)): x == y
        case (.null, .null): true
        default: false
        }
    }

    /// The deterministic encoding.
    public var encoded: [UInt8] {
        var out: [UInt8] = []
        write(into: &out)
        return out
    }

    private static func head(_ major: UInt8, _ value: UInt64, into out: inout [UInt8]) {
        let m = major << 5
        switch value {
        case 0..<24: out.append(m | UInt8(value))
        case 24...0xFF: out += [m | 24, UInt8(value)]
        case 0x100...0xFFFF: out += [m | 25, UInt8(value >> 8), UInt8(value & 0xFF)]
        case 0x1_0000...0xFFFF_FFFF: out.append(m | 26); out += (0..<4).map { UInt8(value >> (24 - 8 * UInt64($0)) & 0xFF) }
        default: out.append(m | 27); out += (0..<8).map { UInt8(value >> (56 - 8 * UInt64($0)) & 0xFF) }
        }
    }

    private func write(into out: inout [UInt8]) {
        switch self {
        case .unsigned(let n): Self.head(0, n, into: &out)
        case .negative(let n): Self.head(1, n, into: &out)
        case .bytes(let b):
            Self.head(2, UInt64(b.count), into: &out)
            out += b
        case .text(let s):
            let utf8 = Array(s.utf8)
            Self.head(3, UInt64(utf8.count), into: &out)
            out += utf8
        case .array(let items):
            Self.head(4, UInt64(items.count), into: &out)
            for item in items { item.write(into: &out) }
        case .map(let pairs):
            Self.head(5, UInt64(pairs.count), into: &out)
            for (k, v) in pairs {
                k.write(into: &out)
                v.write(into: &out)
            }
        case .tagged(let tag, let item):
            Self.head(6, tag, into: &out)
            item.write(into: &out)
        case .bool(let b): out.append(b ? 0xF5 : 0xF4)
        case .null: out.append(0xF6)
        }
    }

    /// Reads exactly one item that fills `bytes`.
    public init(decoding bytes: [UInt8]) throws(URError) {
        var reader = Reader(bytes: bytes)
        self = try reader.item(depth: 0)
        guard reader.at == bytes.count else { throw .cbor("\(bytes.count - reader.at) bytes after the item") }
    }

    /// Nesting deeper than any registry type uses is refused before the stack is.
    static let maxDepth = 32

    private struct Reader {
        let bytes: [UInt8]
        var at = 0

        mutating func byte() throws(URError) -> UInt8 {
            guard at < bytes.count else { throw .cbor("it ends early") }
            defer { at += 1 }
            return bytes[at]
        }

        mutating func take(_ n: UInt64) throws(URError) -> [UInt8] {
            guard n <= UInt64(bytes.count - at) else { throw .cbor("a length of \(n) past the end") }
            defer { at += Int(n) }
            return Array(bytes[at..<at + Int(n)])
        }

        /// The argument of a head, shortest form required.
        mutating func argument(_ info: UInt8) throws(URError) -> UInt64 {
            let width: Int
            switch info {
            case 0..<24: return UInt64(info)
            case 24: width = 1
            case 25: width = 2
            case 26: width = 4
            case 27: width = 8
            case 31: throw .cbor("an indefinite length")
            default: throw .cbor("a reserved head (\(info))")
            }
            let value = try take(UInt64(width)).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let least: UInt64 = width == 1 ? 24 : 1 << (UInt64(width) * 4)
            guard value >= least else { throw .cbor("a number written in more bytes than it needs") }
            return value
        }

        mutating func item(depth: Int) throws(URError) -> CBOR {
            guard depth < CBOR.maxDepth else { throw .cbor("nested more than \(CBOR.maxDepth) deep") }
            let initial = try byte()
            let major = initial >> 5, info = initial & 0x1F
            if major == 7 {
                switch info {
                case 20: return .bool(false)
                case 21: return .bool(true)
                case 22: return .null
                default: throw .cbor("a float or simple value (0x\(Hex.encode([initial])))")
                }
            }
            let n = try argument(info)
            switch major {
            case 0: return .unsigned(n)
            case 1: return .negative(n)
            case 2: return .bytes(try take(n))
            case 3:
                guard let s = String(validating: try take(n), as: UTF8.self) else { throw .cbor("a text string that is not UTF-8") }
                return .text(s)
            case 4:
                // Each item takes at least a byte: a count larger than what is left is refused
                // before anything is allocated.
                guard n <= UInt64(bytes.count - at) else { throw .cbor("an array of \(n) items past the end") }
                var items: [CBOR] = []
                items.reserveCapacity(Int(n))
                for _ in 0..<n { items.append(try item(depth: depth + 1)) }
                return .array(items)
            case 5:
                guard n <= UInt64(bytes.count - at) / 2 else { throw .cbor("a map of \(n) pairs past the end") }
                var pairs: [(CBOR, CBOR)] = []
                // Keys compared by their encoding (one per value, the form being deterministic):
                // a set, since a 4 MiB map compared pair by pair would take hours.
                var seen = Set<[UInt8]>()
                for _ in 0..<n {
                    let start = at
                    let key = try item(depth: depth + 1)
                    guard seen.insert(Array(bytes[start..<at])).inserted else { throw .cbor("a map with a key twice") }
                    pairs.append((key, try item(depth: depth + 1)))
                }
                return .map(pairs)
            default: return .tagged(n, try item(depth: depth + 1))
            }
        }
    }
}

extension CBOR {
    /// The value under an unsigned integer key of a map, if any.
    public subscript(key: UInt64) -> CBOR? {
        guard case .map(let pairs) = self else { return nil }
        return pairs.first { $0.0 == .unsigned(key) }?.1
    }
}
