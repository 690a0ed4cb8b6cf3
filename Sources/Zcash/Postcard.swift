import WalletCore

/// A PCZT that cannot be read, and where: the field path ("orchard.actions[1].spend.rk") and
/// the byte offset in the PCZT.
public enum PCZTError: WalletError, Equatable {
    case malformed(field: String, offset: Int, reason: String)
    case unsupported(String)
    /// What the signer checked and found wrong: it signs nothing of such a PCZT.
    case refused(String)

    public var code: String {
        switch self {
        case .malformed: "pczt.malformed"
        case .unsupported: "pczt.unsupported"
        case .refused: "pczt.refused"
        }
    }

    public var message: String {
        switch self {
        case .malformed(let field, let offset, let reason):
            "the PCZT is malformed at \(field.isEmpty ? "its start" : field) (byte \(offset)): \(reason)"
        case .unsupported(let what): "this PCZT is not supported: \(what)"
        case .refused(let why): "this PCZT is refused, nothing of it signed: \(why)"
        }
    }
}

/// One description of a type's postcard fields, run both ways: `PostcardReader` fills a value
/// from bytes, `PostcardWriter` writes it. A type lists its fields once (`PostcardCodable`), so
/// what is read is what is written. Postcard (serde's compact format, 1.x): unsigned integers
/// wider than a byte as LEB128 varints, i128 zigzag then varint, u8 and bool as a byte, fixed
/// arrays raw, Option as a 0/1 byte, sequences, maps and strings count-prefixed, enum
/// variants as a varint index.
///
/// Stricter than the crate's reader, so that every PCZT read is written back byte for byte:
/// a varint must be minimal, map keys strictly increasing (as a BTreeMap writes them), and no
/// byte may follow the body. The crate writes nothing else.
protocol PostcardCoder {
    mutating func u8(_ value: inout UInt8, _ name: String) throws(PCZTError)
    mutating func bool(_ value: inout Bool, _ name: String) throws(PCZTError)
    mutating func u32(_ value: inout UInt32, _ name: String) throws(PCZTError)
    mutating func u64(_ value: inout UInt64, _ name: String) throws(PCZTError)
    mutating func i128(_ value: inout Int128, _ name: String) throws(PCZTError)
    /// A fixed-size byte array (`[u8; count]`).
    mutating func fixed(_ value: inout [UInt8], count: Int, _ name: String) throws(PCZTError)
    /// A `Vec<u8>`.
    mutating func bytes(_ value: inout [UInt8], _ name: String) throws(PCZTError)
    mutating func string(_ value: inout String, _ name: String) throws(PCZTError)
    mutating func option<T>(
        _ value: inout T?, _ name: String, empty: () -> T, _ body: (inout Self, inout T) throws(PCZTError) -> Void
    ) throws(PCZTError)
    mutating func sequence<T>(
        _ value: inout [T], _ name: String, empty: () -> T, _ body: (inout Self, inout T) throws(PCZTError) -> Void
    ) throws(PCZTError)
    /// A map's entries in key order; `key` gives the bytes keys are ordered by.
    mutating func map<K, V>(
        _ value: inout PCZTMap<K, V>, _ name: String, empty: () -> PCZTMap<K, V>.Entry, key: (K) -> [UInt8],
        _ body: (inout Self, inout K, inout V) throws(PCZTError) -> Void
    ) throws(PCZTError)
    /// Runs `body` with `name` added to the field path of any error.
    mutating func scoped(_ name: String, _ body: (inout Self) throws(PCZTError) -> Void) throws(PCZTError)
}

protocol PostcardCodable {
    init()
    mutating func code<C: PostcardCoder>(_ coder: inout C) throws(PCZTError)
}

extension PostcardCoder {
    mutating func value<T: PostcardCodable>(_ value: inout T, _ name: String) throws(PCZTError) {
        try scoped(name) { (coder: inout Self) throws(PCZTError) in try value.code(&coder) }
    }

    mutating func optional<T: PostcardCodable>(_ value: inout T?, _ name: String) throws(PCZTError) {
        try option(&value, name, empty: T.init) { (coder: inout Self, item: inout T) throws(PCZTError) in try item.code(&coder) }
    }

    mutating func optionalFixed(_ value: inout [UInt8]?, count: Int, _ name: String) throws(PCZTError) {
        try option(&value, name, empty: { [] }) { (coder: inout Self, item: inout [UInt8]) throws(PCZTError) in
            try coder.fixed(&item, count: count, "")
        }
    }

    mutating func optionalBytes(_ value: inout [UInt8]?, _ name: String) throws(PCZTError) {
        try option(&value, name, empty: { [] }) { (coder: inout Self, item: inout [UInt8]) throws(PCZTError) in
            try coder.bytes(&item, "")
        }
    }

    mutating func optionalU32(_ value: inout UInt32?, _ name: String) throws(PCZTError) {
        try option(&value, name, empty: { 0 }) { (coder: inout Self, item: inout UInt32) throws(PCZTError) in try coder.u32(&item, "") }
    }

    mutating func optionalU64(_ value: inout UInt64?, _ name: String) throws(PCZTError) {
        try option(&value, name, empty: { 0 }) { (coder: inout Self, item: inout UInt64) throws(PCZTError) in try coder.u64(&item, "") }
    }

    mutating func optionalString(_ value: inout String?, _ name: String) throws(PCZTError) {
        try option(&value, name, empty: { "" }) { (coder: inout Self, item: inout String) throws(PCZTError) in
            try coder.string(&item, "")
        }
    }

    mutating func elements<T: PostcardCodable>(_ value: inout [T], _ name: String) throws(PCZTError) {
        try sequence(&value, name, empty: T.init) { (coder: inout Self, item: inout T) throws(PCZTError) in try item.code(&coder) }
    }

    /// A `BTreeMap<String, Vec<u8>>` (proprietary fields).
    mutating func proprietary(_ value: inout PCZTMap<String, [UInt8]>, _ name: String = "proprietary") throws(PCZTError) {
        try map(&value, name, empty: { .init(key: "", value: []) }, key: { Array($0.utf8) }) {
            (coder: inout Self, key: inout String, item: inout [UInt8]) throws(PCZTError) in
            try coder.string(&key, "key")
            try coder.bytes(&item, "value")
        }
    }

    /// A `BTreeMap<[u8; keySize], Vec<u8>>`.
    mutating func byteMap(_ value: inout PCZTMap<[UInt8], [UInt8]>, keySize: Int, _ name: String) throws(PCZTError) {
        try map(&value, name, empty: { .init(key: [], value: []) }, key: { $0 }) {
            (coder: inout Self, key: inout [UInt8], item: inout [UInt8]) throws(PCZTError) in
            try coder.fixed(&key, count: keySize, "key")
            try coder.bytes(&item, "value")
        }
    }

}

/// Reads postcard bytes into values, each length and count checked against what is left
/// before anything is allocated.
struct PostcardReader: PostcardCoder {
    let bytes: [UInt8]
    private(set) var offset: Int
    private var path: [String] = []

    init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    var remaining: Int { bytes.count - offset }

    func fail(_ reason: String, _ name: String = "", at start: Int? = nil) -> PCZTError {
        let field = (path + (name.isEmpty ? [] : [name])).reduce("") { path, part in
            if path.isEmpty { return part }
            return part.hasPrefix("[") ? path + part : path + "." + part
        }
        return .malformed(field: field, offset: start ?? offset, reason: reason)
    }

    private mutating func take(_ count: Int, _ name: String) throws(PCZTError) -> ArraySlice<UInt8> {
        guard count <= remaining else { throw fail("\(count) bytes needed, \(remaining) left", name) }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    /// A minimal LEB128 varint of at most `bits` bits.
    private mutating func varint(bits: Int, _ name: String) throws(PCZTError) -> UInt128 {
        let start = offset
        var value: UInt128 = 0
        var shift = 0
        while true {
            guard offset < bytes.count else { throw fail("the data ends inside a number", name) }
            let byte = bytes[offset]
            offset += 1
            guard shift < bits, bits - shift >= 7 || UInt32(byte & 0x7F) >> (bits - shift) == 0 else {
                offset = start
                throw fail("a number wider than \(bits) bits", name)
            }
            value |= UInt128(byte & 0x7F) << shift
            if byte & 0x80 == 0 {
                if byte == 0 && offset - start > 1 {
                    offset = start
                    throw fail("a number not in its shortest form", name)
                }
                return value
            }
            shift += 7
        }
    }

    mutating func u8(_ value: inout UInt8, _ name: String) throws(PCZTError) { value = try take(1, name).first! }

    mutating func bool(_ value: inout Bool, _ name: String) throws(PCZTError) {
        let byte = try take(1, name).first!
        guard byte <= 1 else {
            offset -= 1
            throw fail("a boolean byte other than 0 or 1", name)
        }
        value = byte == 1
    }

    mutating func u32(_ value: inout UInt32, _ name: String) throws(PCZTError) { value = UInt32(try varint(bits: 32, name)) }
    mutating func u64(_ value: inout UInt64, _ name: String) throws(PCZTError) { value = UInt64(try varint(bits: 64, name)) }

    mutating func i128(_ value: inout Int128, _ name: String) throws(PCZTError) {
        let zigzag = try varint(bits: 128, name)
        value = Int128(bitPattern: zigzag >> 1) ^ -Int128(bitPattern: zigzag & 1)
    }

    mutating func fixed(_ value: inout [UInt8], count: Int, _ name: String) throws(PCZTError) { value = Array(try take(count, name)) }

    mutating func length(_ name: String) throws(PCZTError) -> Int {
        let count = try varint(bits: 64, name)
        // Every element takes a byte at least: a count beyond what is left is a lie, refused
        // before anything is allocated for it.
        guard count <= UInt128(remaining) else { throw fail("a count of \(count) with \(remaining) bytes left", name) }
        return Int(count)
    }

    mutating func bytes(_ value: inout [UInt8], _ name: String) throws(PCZTError) {
        let count = try length(name)
        value = Array(try take(count, name))
    }

    mutating func string(_ value: inout String, _ name: String) throws(PCZTError) {
        var raw = [UInt8]()
        let start = offset
        try bytes(&raw, name)
        guard let text = String(validating: raw, as: UTF8.self) else { throw fail("text that is not UTF-8", name, at: start) }
        value = text
    }

    mutating func option<T>(
        _ value: inout T?, _ name: String, empty: () -> T, _ body: (inout Self, inout T) throws(PCZTError) -> Void
    ) throws(PCZTError) {
        var present = false
        try bool(&present, name)
        guard present else {
            value = nil
            return
        }
        var item = empty()
        try scoped(name) { (coder: inout Self) throws(PCZTError) in try body(&coder, &item) }
        value = item
    }

    mutating func sequence<T>(
        _ value: inout [T], _ name: String, empty: () -> T, _ body: (inout Self, inout T) throws(PCZTError) -> Void
    ) throws(PCZTError) {
        let count = try length(name)
        var items = [T]()
        items.reserveCapacity(count)
        for index in 0..<count {
            var item = empty()
            try scoped("\(name)[\(index)]") { (coder: inout Self) throws(PCZTError) in try body(&coder, &item) }
            items.append(item)
        }
        value = items
    }

    mutating func map<K, V>(
        _ value: inout PCZTMap<K, V>, _ name: String, empty: () -> PCZTMap<K, V>.Entry, key: (K) -> [UInt8],
        _ body: (inout Self, inout K, inout V) throws(PCZTError) -> Void
    ) throws(PCZTError) {
        let count = try length(name)
        var entries = [PCZTMap<K, V>.Entry]()
        entries.reserveCapacity(count)
        for index in 0..<count {
            var entry = empty()
            let start = offset
            try scoped("\(name)[\(index)]") { (coder: inout Self) throws(PCZTError) in try body(&coder, &entry.key, &entry.value) }
            if let last = entries.last, !key(last.key).lexicographicallyPrecedes(key(entry.key)) {
                throw fail("keys out of order or repeated", "\(name)[\(index)]", at: start)
            }
            entries.append(entry)
        }
        value.entries = entries
    }

    mutating func scoped(_ name: String, _ body: (inout Self) throws(PCZTError) -> Void) throws(PCZTError) {
        if !name.isEmpty { path.append(name) }
        try body(&self)
        if !name.isEmpty { path.removeLast() }
    }
}

/// Writes values as postcard bytes.
struct PostcardWriter: PostcardCoder {
    private(set) var bytes: [UInt8] = []

    mutating func scoped(_ name: String, _ body: (inout Self) throws(PCZTError) -> Void) throws(PCZTError) { try body(&self) }

    private mutating func varint(_ value: UInt128) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    mutating func u8(_ value: inout UInt8, _ name: String) { bytes.append(value) }
    mutating func bool(_ value: inout Bool, _ name: String) { bytes.append(value ? 1 : 0) }
    mutating func u32(_ value: inout UInt32, _ name: String) { varint(UInt128(value)) }
    mutating func u64(_ value: inout UInt64, _ name: String) { varint(UInt128(value)) }
    mutating func i128(_ value: inout Int128, _ name: String) { varint(UInt128(bitPattern: (value << 1) ^ (value >> 127))) }

    mutating func fixed(_ value: inout [UInt8], count: Int, _ name: String) throws(PCZTError) {
        guard value.count == count else { throw .malformed(field: name, offset: bytes.count, reason: "\(value.count) bytes, not \(count)") }
        bytes += value
    }

    mutating func bytes(_ value: inout [UInt8], _ name: String) {
        varint(UInt128(value.count))
        bytes += value
    }

    mutating func string(_ value: inout String, _ name: String) {
        var raw = Array(value.utf8)
        bytes(&raw, name)
    }

    mutating func option<T>(
        _ value: inout T?, _ name: String, empty: () -> T, _ body: (inout Self, inout T) throws(PCZTError) -> Void
    ) throws(PCZTError) {
        guard var item = value else { return bytes.append(0) }
        bytes.append(1)
        try body(&self, &item)
    }

    mutating func sequence<T>(
        _ value: inout [T], _ name: String, empty: () -> T, _ body: (inout Self, inout T) throws(PCZTError) -> Void
    ) throws(PCZTError) {
        varint(UInt128(value.count))
        for index in value.indices { try body(&self, &value[index]) }
    }

    mutating func map<K, V>(
        _ value: inout PCZTMap<K, V>, _ name: String, empty: () -> PCZTMap<K, V>.Entry, key: (K) -> [UInt8],
        _ body: (inout Self, inout K, inout V) throws(PCZTError) -> Void
    ) throws(PCZTError) {
        varint(UInt128(value.entries.count))
        for var entry in value.entries { try body(&self, &entry.key, &entry.value) }
    }
}
