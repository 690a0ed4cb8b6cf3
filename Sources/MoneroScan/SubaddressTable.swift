import WalletCore

/// A wallet's subaddress spend keys, for the detector's one question: whose is this spend
/// key? Each entry is 16 bytes — the key's first 8 bytes and (major, minor) — sorted by the
/// former; the full key is not kept. A Dictionary of full keys cost about 80 bytes an entry,
/// 0.8 MB for Monero's default 10,000 subaddresses, which a run of thousands of view-only
/// wallets multiplied. A prefix that matches is confirmed by deriving that subaddress's key
/// again: only the wallet's own outputs get that far (a stranger's key matches some entry's
/// 8 bytes with probability about 10,000 / 2^64).
struct SubaddressTable: Sendable {
    private var prefixes: [UInt64] = []
    /// major << 32 | minor, in the order of `prefixes`.
    private var indexes: [UInt64] = []

    var count: Int { prefixes.count }

    static func prefix(_ key: [UInt8]) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(key[$1]) << (8 * UInt64($1)) }
    }

    static func pack(_ major: UInt32, _ minor: UInt32) -> UInt64 { UInt64(major) << 32 | UInt64(minor) }

    /// Every (major, minor) held, for growing the table by what it lacks.
    var allIndexes: Set<UInt64> { Set(indexes) }

    /// Adds entries (32-byte keys); an index already held is not added twice.
    mutating func insert(_ entries: [(key: [UInt8], major: UInt32, minor: UInt32)]) {
        guard !entries.isEmpty else { return }
        let known = allIndexes
        var pairs = Array(zip(prefixes, indexes))
        pairs.reserveCapacity(pairs.count + entries.count)
        for entry in entries where entry.key.count == 32 && !known.contains(Self.pack(entry.major, entry.minor)) {
            pairs.append((Self.prefix(entry.key), Self.pack(entry.major, entry.minor)))
        }
        pairs.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        prefixes = pairs.map(\.0)
        indexes = pairs.map(\.1)
    }

    /// The subaddress whose spend key is `key`, confirmed by `derive` (the full key of an
    /// index); nil when none is.
    func owner(of key: [UInt8], derive: (UInt32, UInt32) -> [UInt8]?) -> (major: UInt32, minor: UInt32)? {
        guard key.count == 32 else { return nil }
        let p = Self.prefix(key)
        var low = 0, high = prefixes.count
        while low < high {
            let mid = (low + high) / 2
            if prefixes[mid] < p { low = mid + 1 } else { high = mid }
        }
        var i = low
        while i < prefixes.count, prefixes[i] == p {
            let major = UInt32(indexes[i] >> 32), minor = UInt32(truncatingIfNeeded: indexes[i])
            if derive(major, minor) == key { return (major, minor) }
            i += 1
        }
        return nil
    }
}
