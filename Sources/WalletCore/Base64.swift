/// RFC 4648 base64 with padding, strict: PSBTs travel as base64 text, and a character that is
/// not of the alphabet, a missing pad or stray bits after the last byte are refused rather
/// than skipped (another decoder would read other bytes from the same text).
public enum Base64 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    static let values: [UInt8] = {
        var t = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { t[Int(c)] = UInt8(i) }
        return t
    }()

    public static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        let alphabet = Self.alphabet
        var i = 0
        while i + 3 <= bytes.count {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out.append(alphabet[Int(n >> 18)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(alphabet[Int(n >> 6 & 63)])
            out.append(alphabet[Int(n & 63)])
            i += 3
        }
        if bytes.count - i == 1 {
            let n = UInt32(bytes[i]) << 16
            out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)], 0x3D, 0x3D]
        } else if bytes.count - i == 2 {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
            out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], 0x3D]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// nil unless the text is canonical base64: length a multiple of 4, padding only at the end,
    /// unused bits zero.
    public static func decode(_ text: String) -> [UInt8]? { decode(utf8: Array(text.utf8)) }

    /// The same, of the text's UTF-8 bytes.
    public static func decode(utf8 c: [UInt8]) -> [UInt8]? {
        guard c.count % 4 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(c.count / 4 * 3)
        let values = Self.values
        var i = 0
        while i < c.count {
            let last = i + 4 == c.count
            let pad = last ? (c[i + 3] == 0x3D ? (c[i + 2] == 0x3D ? 2 : 1) : 0) : 0
            var n: UInt32 = 0
            for k in 0..<4 {
                if k >= 4 - pad { n <<= 6; continue }
                let v = values[Int(c[i + k])]
                guard v != 0xFF else { return nil }
                n = n << 6 | UInt32(v)
            }
            out.append(UInt8(n >> 16))
            if pad < 2 { out.append(UInt8(n >> 8 & 0xFF)) } else if n & 0xFFFF != 0 { return nil }
            if pad < 1 { out.append(UInt8(n & 0xFF)) } else if n & 0xFF != 0 { return nil }
            i += 4
        }
        return out
    }
}
