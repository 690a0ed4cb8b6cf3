import WalletCore

/// F4Jumble (ZIP-316): a 4-round Feistel over BLAKE2b that makes every character of a unified
/// encoding depend on every byte, so a partial match of two strings says nothing.
public enum F4Jumble {
    static let minLength = 48
    static let maxLength = 4_194_368  // (2^16 + 1) · 64

    public static func jumble(_ m: [UInt8]) -> [UInt8] {
        let (lL, lR) = lengths(m.count)
        let a = Array(m[0..<lL]), b = Array(m[lL...])
        let x = xor(b, g(0, a, lR))
        let y = xor(a, h(0, x, lL))
        let d = xor(x, g(1, y, lR))
        let c = xor(y, h(1, d, lL))
        return c + d
    }

    public static func unjumble(_ m: [UInt8]) -> [UInt8] {
        let (lL, lR) = lengths(m.count)
        let c = Array(m[0..<lL]), d = Array(m[lL...])
        let y = xor(c, h(1, d, lL))
        let x = xor(d, g(1, y, lR))
        let a = xor(y, h(0, x, lL))
        let b = xor(x, g(0, a, lR))
        return a + b
    }

    private static func lengths(_ n: Int) -> (Int, Int) {
        let lL = min(64, n / 2)
        return (lL, n - lL)
    }

    private static func h(_ i: UInt8, _ u: [UInt8], _ length: Int) -> [UInt8] {
        Blake2.b(length, personal: Array("UA_F4Jumble_H".utf8) + [i, 0, 0], u)
    }

    private static func g(_ i: UInt8, _ u: [UInt8], _ length: Int) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(length + 64)
        var j = 0  // at most 65,536 blocks (ℓ_R ≤ 2^16 · 64)
        while out.count < length {
            out += Blake2.b(64, personal: Array("UA_F4Jumble_G".utf8) + [i, UInt8(j & 0xFF), UInt8(j >> 8 & 0xFF)], u)
            j += 1
        }
        return Array(out[0..<length])
    }

    private static func xor(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        precondition(a.count == b.count)
        var out = a
        out.withUnsafeMutableBufferPointer { o in b.withUnsafeBufferPointer { b in for i in 0..<o.count { o[i] ^= b[i] } } }
        return out
    }
}

/// ZIP-316 unified addresses and viewing keys: typed items, F4Jumble, Bech32m.
public enum UnifiedEncoding {
    /// Item typecodes of ZIP-316.
    public enum Typecode {
        public static let p2pkh: UInt64 = 0x00
        public static let p2sh: UInt64 = 0x01
        public static let sapling: UInt64 = 0x02
        public static let orchard: UInt64 = 0x03
    }

    /// The three kinds of unified encoding, each with its prefix per network.
    public enum Kind: Sendable {
        case address, fullViewingKey, incomingViewingKey

        public func hrp(_ network: ZcashNetwork) -> String {
            switch (self, network) {
            case (.address, .main): "u"
            case (.address, .test): "utest"
            case (.fullViewingKey, .main): "uview"
            case (.fullViewingKey, .test): "uviewtest"
            case (.incomingViewingKey, .main): "uivk"
            case (.incomingViewingKey, .test): "uivktest"
            }
        }

        var name: String {
            switch self {
            case .address: "unified address"
            case .fullViewingKey: "unified full viewing key"
            case .incomingViewingKey: "unified incoming viewing key"
            }
        }
    }

    /// The unified address with an Orchard receiver (43 raw bytes) alone: Orchard has no
    /// encoding of its own.
    public static func orchardAddress(_ receiver: [UInt8], network: ZcashNetwork) -> String {
        encode([(Typecode.orchard, receiver)], kind: .address, network: network)
    }

    /// Encodes items (in any order; they are written in ascending typecode order).
    public static func encode(_ items: [(typecode: UInt64, value: [UInt8])], kind: Kind, network: ZcashNetwork) -> String {
        let hrp = kind.hrp(network)
        var raw = [UInt8]()
        for item in items.sorted(by: { $0.typecode < $1.typecode }) {
            raw += compactSize(item.typecode) + compactSize(UInt64(item.value.count)) + item.value
        }
        raw += Array(hrp.utf8) + [UInt8](repeating: 0, count: 16 - hrp.utf8.count)
        let five = (try? Bech32.convertBits(F4Jumble.jumble(raw), from: 8, to: 5, pad: true)) ?? []
        return Bech32.encode(hrp: hrp, data: five, variant: .bech32m)
    }

    /// Decodes a unified encoding of `kind` for `network` into its items, in order. Refuses a
    /// wrong prefix or checksum, bad padding, items out of order or repeated, and truncation.
    public static func decode(
        _ text: String, kind: Kind, network: ZcashNetwork
    ) throws(ZcashKeyError) -> [(typecode: UInt64, value: [UInt8])] {
        let hrp = kind.hrp(network)
        guard let (foundHRP, data, variant) = try? Bech32.decode(text, maxLength: 10_000) else {
            throw .invalidEncoding("not a Bech32m string")
        }
        guard foundHRP == hrp else {
            throw .invalidEncoding("prefix \(foundHRP), expected \(hrp) for a \(kind.name) on the \(network.rawValue) network")
        }
        guard variant == .bech32m else { throw .invalidEncoding("a \(kind.name) uses Bech32m") }
        guard let jumbled = try? Bech32.convertBits(data, from: 5, to: 8, pad: false),
            (F4Jumble.minLength...F4Jumble.maxLength).contains(jumbled.count)
        else {
            throw .invalidEncoding("wrong length for a \(kind.name)")
        }
        let raw = F4Jumble.unjumble(jumbled)
        let padding = Array(hrp.utf8) + [UInt8](repeating: 0, count: 16 - hrp.utf8.count)
        guard Array(raw.suffix(16)) == padding else { throw .invalidEncoding("the padding does not match the prefix") }
        var reader = raw[0..<(raw.count - 16)]
        var items = [(typecode: UInt64, value: [UInt8])]()
        while !reader.isEmpty {
            guard let typecode = readCompactSize(&reader), let length = readCompactSize(&reader), length <= UInt64(reader.count) else {
                throw .invalidEncoding("a truncated item")
            }
            if let last = items.last, last.typecode >= typecode { throw .invalidEncoding("items out of order or repeated") }
            items.append((typecode, Array(reader.prefix(Int(length)))))
            reader = reader.dropFirst(Int(length))
        }
        return items
    }

    static func compactSize(_ n: UInt64) -> [UInt8] {
        switch n {
        case ..<0xFD: [UInt8(n)]
        case ...0xFFFF: [0xFD, UInt8(n & 0xFF), UInt8(n >> 8)]
        case ...0xFFFF_FFFF: [0xFE] + (0..<4).map { UInt8(truncatingIfNeeded: n >> (8 * $0)) }
        default: [0xFF] + (0..<8).map { UInt8(truncatingIfNeeded: n >> (8 * $0)) }
        }
    }

    /// A canonical CompactSize (the shortest form), or nil.
    static func readCompactSize(_ r: inout ArraySlice<UInt8>) -> UInt64? {
        guard let first = r.popFirst() else { return nil }
        let width: Int, minimum: UInt64
        switch first {
        case 0xFD: (width, minimum) = (2, 0xFD)
        case 0xFE: (width, minimum) = (4, 0x1_0000)
        case 0xFF: (width, minimum) = (8, 0x1_0000_0000)
        default: return UInt64(first)
        }
        guard r.count >= width else { return nil }
        let value = r.prefix(width).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        r = r.dropFirst(width)
        return value >= minimum ? value : nil
    }
}
