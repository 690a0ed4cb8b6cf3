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
            guard shift < 64, !(shift == 63 && b > 1) else {
                throw .malformed(what: what, reason: "varint over 64 bits at byte \(offset - 1)")
            }
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
