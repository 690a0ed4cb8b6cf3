import WalletCore

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
        let sizeBits: UInt8 =
            switch hash.count {
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
