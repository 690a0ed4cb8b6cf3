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

/// Bitcoin Cash CashAddr (prefix:payload, BCH-code checksum of 40 bits).
public enum CashAddr {
    fileprivate static func polymod(_ values: [UInt8]) -> UInt64 {
        let gen: [UInt64] = [0x98_F2BC_8E61, 0x79_B76D_99E2, 0xF3_3E5F_B3C4, 0xAE_2EAB_E2A8, 0x1E_4F43_E470]
        var c: UInt64 = 1
        for d in values {
            let c0 = c >> 35
            c = ((c & 0x07_FFFF_FFFF) << 5) ^ UInt64(d)
            for i in 0..<5 where (c0 >> UInt64(i)) & 1 == 1 { c ^= gen[i] }
        }
        return c ^ 1
    }

    /// `type` 0 = P2PKH, 1 = P2SH; the size bits follow the hash length.
    public static func encode(prefix: String, type: UInt8, hash: [UInt8]) -> String {
        let sizeBits: UInt8 = switch hash.count {
        case 20: 0
        case 24: 1
        case 28: 2
        case 32: 3
        case 40: 4
        case 48: 5
        case 56: 6
        default: 7
        }
        let version = type << 3 | sizeBits
        let payload = (try? Bech32.convertBits([version] + hash, from: 8, to: 5, pad: true)) ?? []
        let prefixData = prefix.utf8.map { $0 & 31 } + [0]
        let mod = polymod(prefixData + payload + [0, 0, 0, 0, 0, 0, 0, 0])
        let checksum = (0..<8).map { UInt8((mod >> (5 * (7 - UInt64($0)))) & 31) }
        return prefix + ":" + String(decoding: (payload + checksum).map { Bech32.charset[Int($0)] }, as: UTF8.self)
    }
}

extension CashAddr {
    /// `prefix:payload` or the payload alone (then `defaultPrefix`), all lower or all upper
    /// case: the type (0 P2PKH, 1 P2SH) and the hash, after the 40-bit checksum is checked.
    public static func decode(_ text: String, defaultPrefix: String) throws(EncodingError) -> (prefix: String, type: UInt8, hash: [UInt8]) {
        guard text == text.lowercased() || text == text.uppercased() else { throw .invalidBech32(reason: "mixed case") }
        let lower = text.lowercased()
        let parts = lower.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, let body = parts.last, !body.isEmpty else { throw .invalidBech32(reason: "not prefix:payload") }
        let prefix = parts.count == 2 ? String(parts[0]) : defaultPrefix
        guard !prefix.isEmpty, body.utf8.count > 8, body.utf8.count <= 120 else { throw .invalidBech32(reason: "length") }
        var values = [UInt8]()
        for c in body.utf8 {
            guard let v = Bech32.charset.firstIndex(of: c) else { throw .invalidBech32(reason: "a character outside the alphabet") }
            values.append(UInt8(v))
        }
        guard polymod(prefix.utf8.map { $0 & 31 } + [0] + values) == 0 else { throw .badChecksum }
        let bytes = try Bech32.convertBits(Array(values.dropLast(8)), from: 5, to: 8, pad: false)
        guard let version = bytes.first, version & 0x80 == 0 else { throw .invalidBech32(reason: "reserved version bit") }
        let sizes = [20, 24, 28, 32, 40, 48, 56, 64]
        let hash = Array(bytes.dropFirst())
        guard hash.count == sizes[Int(version & 7)] else { throw .invalidBech32(reason: "hash length does not match its version") }
        return (prefix, (version >> 3) & 0x0F, hash)
    }
}

/// EIP-55 mixed-case checksummed Ethereum addresses.
public enum EIP55 {
    /// "0x" + the 20 bytes in hex, a letter uppercase where the Keccak-256 of the lowercase
    /// hex has a nibble ≥ 8 at that position.
    public static func encode(_ address: [UInt8]) -> String {
        let lower = Array(Hex.encode(address).utf8)
        let hash = Keccak256.hash(lower)
        var out = [UInt8]()
        for (i, c) in lower.enumerated() {
            let nibble = (hash[i / 2] >> (i % 2 == 0 ? 4 : 0)) & 0xF
            out.append(c >= 97 && nibble >= 8 ? c - 32 : c)
        }
        return "0x" + String(decoding: out, as: UTF8.self)
    }

    /// Whether a mixed-case address carries a correct checksum (all-lower and all-upper
    /// addresses carry none and pass).
    public static func isValid(_ text: String) -> Bool {
        guard text.hasPrefix("0x"), text.utf8.count == 42, let bytes = try? Hex.decode(String(text.dropFirst(2))) else { return false }
        let body = text.dropFirst(2)
        if body == body.lowercased() || body == body.uppercased() { return true }
        return encode(bytes) == text
    }
}
