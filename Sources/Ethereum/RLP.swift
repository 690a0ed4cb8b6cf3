/// Ethereum's Recursive Length Prefix encoding (the Yellow Paper, appendix B): the form of
/// every transaction that is signed and sent.
public enum RLP {
    public indirect enum Item: Equatable, Sendable {
        case bytes([UInt8])
        case list([Item])

        /// An integer: big-endian with no leading zero bytes; zero is the empty string.
        public static func uint(_ value: UInt256) -> Item { .bytes(value.minimalBytes) }
        public static func uint(_ value: UInt64) -> Item { .uint(UInt256(value)) }
    }

    public static func encode(_ item: Item) -> [UInt8] {
        var out = [UInt8]()
        encode(item, into: &out)
        return out
    }

    static func encode(_ item: Item, into out: inout [UInt8]) {
        switch item {
        case .bytes(let b):
            if b.count == 1 && b[0] < 0x80 {
                out.append(b[0])
            } else {
                header(b.count, offset: 0x80, into: &out)
                out += b
            }
        case .list(let items):
            var body = [UInt8]()
            for i in items { encode(i, into: &body) }
            header(body.count, offset: 0xC0, into: &out)
            out += body
        }
    }

    /// A length under 56 in the first byte; a longer one as its big-endian bytes after it.
    static func header(_ length: Int, offset: UInt8, into out: inout [UInt8]) {
        if length < 56 {
            out.append(offset + UInt8(length))
            return
        }
        let bytes = UInt256(UInt64(length)).minimalBytes
        out.append(offset + 55 + UInt8(bytes.count))
        out += bytes
    }

    /// The one item `bytes` encode, in canonical form only: a single byte below 0x80 written
    /// as a string, a length written long when it fits the first byte, a length with leading
    /// zeros or trailing bytes are all refused (each would give a transaction two encodings).
    public static func decode(_ bytes: [UInt8]) throws(EthereumError) -> Item {
        var at = 0
        let item = try decodeItem(bytes, at: &at, end: bytes.count, depth: 0)
        guard at == bytes.count else { throw .invalidRLP("\(bytes.count - at) bytes after the item") }
        return item
    }

    static let maxDepth = 64

    static func decodeItem(_ b: [UInt8], at: inout Int, end: Int, depth: Int) throws(EthereumError) -> Item {
        guard depth < maxDepth else { throw .invalidRLP("lists nested deeper than \(maxDepth)") }
        guard at < end else { throw .invalidRLP("the input ends where an item should start") }
        let first = b[at]
        at += 1
        if first < 0x80 { return .bytes([first]) }
        let isList = first >= 0xC0
        let base: UInt8 = isList ? 0xC0 : 0x80
        var length: Int
        if first - base < 56 {
            length = Int(first - base)
        } else {
            let size = Int(first - base - 55)
            guard size <= 8, end - at >= size else { throw .invalidRLP("a length of \(size) bytes runs past the end") }
            guard b[at] != 0 else { throw .invalidRLP("a length with a leading zero byte") }
            length = 0
            for i in 0..<size {
                guard length >> 55 == 0 else { throw .invalidRLP("a length beyond the input") }
                length = length << 8 | Int(b[at + i])
            }
            at += size
            guard length >= 56 else { throw .invalidRLP("a length under 56 written in the long form") }
        }
        guard length <= end - at else { throw .invalidRLP("an item of \(length) bytes runs past the end") }
        if !isList {
            let body = Array(b[at..<at + length])
            at += length
            if length == 1 && body[0] < 0x80 { throw .invalidRLP("a single byte below 0x80 written as a string") }
            return .bytes(body)
        }
        let stop = at + length
        var items = [Item]()
        while at < stop { items.append(try decodeItem(b, at: &at, end: stop, depth: depth + 1)) }
        return .list(items)
    }
}
