/// Bech32 (BIP173) and Bech32m (BIP350), and segwit addresses on top of them.
public enum Bech32 {
    public enum Variant: Sendable, Equatable {
        case bech32, bech32m
        var constant: UInt32 { self == .bech32 ? 1 : 0x2BC8_30A3 }
    }

    public static let charset = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l".utf8)

    private static func polymod(_ values: [UInt8]) -> UInt32 {
        let gen: [UInt32] = [0x3B6A_57B2, 0x2650_8E6D, 0x1EA1_19FA, 0x3D42_33DD, 0x2A14_62B3]
        var chk: UInt32 = 1
        for v in values {
            let top = chk >> 25
            chk = (chk & 0x1FF_FFFF) << 5 ^ UInt32(v)
            for i in 0..<5 where (top >> UInt32(i)) & 1 == 1 { chk ^= gen[i] }
        }
        return chk
    }

    private static func expand(_ hrp: [UInt8]) -> [UInt8] {
        hrp.map { $0 >> 5 } + [0] + hrp.map { $0 & 31 }
    }

    public static func encode(hrp: String, data: [UInt8], variant: Variant) -> String {
        let h = Array(hrp.utf8)
        let mod = polymod(expand(h) + data + [0, 0, 0, 0, 0, 0]) ^ variant.constant
        let checksum = (0..<6).map { UInt8((mod >> (5 * (5 - UInt32($0)))) & 31) }
        return hrp + "1" + String(decoding: (data + checksum).map { charset[Int($0)] }, as: UTF8.self)
    }

    /// Decodes and tells which variant's checksum matched. Mixed case, characters outside
    /// 33–126, a missing separator and strings over 90 characters are refused (BIP173).
    public static func decode(_ text: String, maxLength: Int = 90) throws(EncodingError) -> (hrp: String, data: [UInt8], variant: Variant) {
        let bytes = Array(text.utf8)
        guard bytes.count <= maxLength else { throw .invalidBech32(reason: "longer than \(maxLength) characters") }
        guard bytes.allSatisfy({ $0 >= 33 && $0 <= 126 }) else { throw .invalidBech32(reason: "character out of range") }
        let hasLower = bytes.contains { $0 >= 97 && $0 <= 122 }, hasUpper = bytes.contains { $0 >= 65 && $0 <= 90 }
        guard !(hasLower && hasUpper) else { throw .invalidBech32(reason: "mixed case") }
        let lower = bytes.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
        guard let sep = lower.lastIndex(of: UInt8(ascii: "1")), sep >= 1, lower.count - sep - 1 >= 6 else {
            throw .invalidBech32(reason: "no separator, empty prefix or too short a checksum")
        }
        var data = [UInt8]()
        for c in lower[(sep + 1)...] {
            guard let v = charset.firstIndex(of: c) else { throw .invalidBech32(reason: "character not in the bech32 alphabet") }
            data.append(UInt8(v))
        }
        let hrp = Array(lower[..<sep])
        let check = polymod(expand(hrp) + data)
        let variant: Variant
        switch check {
        case Variant.bech32.constant: variant = .bech32
        case Variant.bech32m.constant: variant = .bech32m
        default: throw .badChecksum
        }
        return (String(decoding: hrp, as: UTF8.self), Array(data.dropLast(6)), variant)
    }

    /// Regroups bits (8 → 5 to encode, 5 → 8 to decode).
    public static func convertBits(_ data: [UInt8], from: Int, to: Int, pad: Bool) throws(EncodingError) -> [UInt8] {
        var acc = 0, bits = 0
        var out = [UInt8]()
        let maxv = (1 << to) - 1
        for v in data {
            guard Int(v) >> from == 0 else { throw .invalidBech32(reason: "value out of range") }
            acc = (acc << from) | Int(v)
            bits += from
            while bits >= to { bits -= to; out.append(UInt8((acc >> bits) & maxv)) }
        }
        if pad {
            if bits > 0 { out.append(UInt8((acc << (to - bits)) & maxv)) }
        } else if bits >= from || (acc << (to - bits)) & maxv != 0 {
            throw .invalidBech32(reason: "non-zero or excess padding")
        }
        return out
    }
}

/// Segwit addresses (BIP173/BIP350): version 0 uses bech32, versions 1–16 bech32m.
public enum SegwitAddress {
    public static func encode(hrp: String, version: Int, program: [UInt8]) -> String {
        // An 8-bit → 5-bit regrouping with padding cannot fail.
        let five = (try? Bech32.convertBits(program, from: 8, to: 5, pad: true)) ?? []
        return Bech32.encode(hrp: hrp, data: [UInt8(version)] + five, variant: version == 0 ? .bech32 : .bech32m)
    }

    public static func decode(_ address: String, hrp expected: String) throws(EncodingError) -> (version: Int, program: [UInt8]) {
        let (hrp, data, variant) = try Bech32.decode(address)
        guard hrp == expected else { throw .invalidBech32(reason: "prefix is \(hrp), expected \(expected)") }
        guard let version = data.first, version <= 16 else { throw .invalidBech32(reason: "no or invalid witness version") }
        guard variant == (version == 0 ? .bech32 : .bech32m) else {
            throw .invalidBech32(reason: "witness version \(version) needs \(version == 0 ? "bech32" : "bech32m")")
        }
        let program = try Bech32.convertBits(Array(data.dropFirst()), from: 5, to: 8, pad: false)
        guard (2...40).contains(program.count) else { throw .invalidBech32(reason: "witness program length \(program.count)") }
        guard version != 0 || program.count == 20 || program.count == 32 else {
            throw .invalidBech32(reason: "version 0 program must be 20 or 32 bytes")
        }
        return (Int(version), program)
    }
}
