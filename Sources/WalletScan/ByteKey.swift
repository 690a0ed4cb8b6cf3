/// Bytes as a set or dictionary key, hashed in one call: `[UInt8]`'s own `hash(into:)` feeds
/// the hasher a byte at a time, which made matching a block's scripts and outpoints cost as
/// much as parsing it. A slice of a block's bytes is a key without a copy.
public struct ByteKey: Hashable, Sendable {
    public let bytes: ArraySlice<UInt8>

    public init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }
    public init(_ bytes: [UInt8]) { self.bytes = bytes[...] }

    public func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    public static func == (lhs: ByteKey, rhs: ByteKey) -> Bool {
        lhs.bytes.count == rhs.bytes.count && lhs.bytes.withUnsafeBytes { l in rhs.bytes.withUnsafeBytes { r in l.elementsEqual(r) } }
    }
}

/// A 65,536-bit filter of byte strings: most lookups (a block's every script and outpoint
/// against a wallet's few) end at one bit, with no hashing. The bit is chosen by two bytes from
/// the middle of the key, which in a script's hash, a txid or a key image are uniform. Bits are
/// never cleared: a filter may only err towards a lookup.
public struct ByteFilter: Sendable {
    // Inlinable: the scanners test every output and input of a block against it, from their
    // own modules, and a call across modules cost more than the test (perf: 7% of a scan).
    @usableFromInline var bits = [UInt64](repeating: 0, count: 1024)

    public init() {}

    @inlinable @inline(__always)
    static func slot(_ bytes: ArraySlice<UInt8>) -> Int { bytes.withUnsafeBytes { slot($0) } }

    /// Bytes in memory are tested as they lie: a block's scripts need no slice (each of which
    /// would retain the block).
    @inlinable @inline(__always)
    static func slot(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard bytes.count >= 2 else { return bytes.count }
        let mid = bytes.count / 2 - 1
        return (Int(bytes[mid]) << 8 | Int(bytes[mid + 1])) ^ (bytes.count &* 40_503 & 0xFFFF)
    }

    @inlinable @inline(__always)
    public func mayContain(_ bytes: ArraySlice<UInt8>) -> Bool { bytes.withUnsafeBytes { mayContain($0) } }

    /// The slot of `bytes`, for a parser to keep beside where they lie: tested later through
    /// `mayContain(slot:)`, the bytes need not be read again (a block's scripts, read while
    /// the parse has them in cache, not a batch later by the scan).
    @inlinable @inline(__always)
    public static func slot(of bytes: ArraySlice<UInt8>) -> UInt16 { UInt16(truncatingIfNeeded: slot(bytes)) }

    @inlinable @inline(__always)
    public func mayContain(slot s: UInt16) -> Bool {
        bits.withUnsafeBufferPointer { $0[Int(s >> 6)] } & (1 << UInt64(s & 63)) != 0
    }

    @inlinable @inline(__always)
    public func mayContain(_ bytes: UnsafeRawBufferPointer) -> Bool { mayContain(slot: UInt16(truncatingIfNeeded: Self.slot(bytes))) }

    public mutating func insert(_ bytes: ArraySlice<UInt8>) {
        let s = Self.slot(bytes)
        bits[s >> 6] |= 1 << UInt64(s & 63)
    }
}

/// A set of byte strings with a `ByteFilter` in front. Removing leaves the filter's bit set.
public struct FilteredByteSet: Sendable {
    private var members = Set<ByteKey>()
    /// The filter in front, for callers that test bytes where they lie before asking the set.
    public private(set) var filter = ByteFilter()

    public init() {}
    public init<S: Sequence>(_ keys: S) where S.Element == [UInt8] {
        for key in keys { insert(key[...]) }
    }

    public var isEmpty: Bool { members.isEmpty }
    public var count: Int { members.count }

    @inline(__always)
    public func mayContain(_ bytes: ArraySlice<UInt8>) -> Bool { filter.mayContain(bytes) }

    public func contains(_ bytes: ArraySlice<UInt8>) -> Bool { mayContain(bytes) && members.contains(ByteKey(bytes)) }
    public func contains(_ bytes: [UInt8]) -> Bool { contains(bytes[...]) }

    public mutating func insert(_ bytes: ArraySlice<UInt8>) {
        filter.insert(bytes)
        members.insert(ByteKey(bytes))
    }

    public mutating func insert(_ bytes: [UInt8]) { insert(bytes[...]) }

    /// True when it was there.
    @discardableResult
    public mutating func remove(_ bytes: ArraySlice<UInt8>) -> Bool { mayContain(bytes) && members.remove(ByteKey(bytes)) != nil }
    @discardableResult
    public mutating func remove(_ bytes: [UInt8]) -> Bool { remove(bytes[...]) }
}
