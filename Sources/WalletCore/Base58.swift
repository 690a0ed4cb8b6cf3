/// Base58 (Bitcoin alphabet) and Base58Check, and Monero's block-wise Base58.
public enum Base58 {
    static let alphabet = Array("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz".utf8)
    private static let indexes: [Int8] = {
        var t = [Int8](repeating: -1, count: 128)
        for (i, c) in alphabet.enumerated() { t[Int(c)] = Int8(i) }
        return t
    }()

    public static func encode(_ bytes: [UInt8]) -> String {
        let zeros = bytes.prefix { $0 == 0 }.count
        var digits = [UInt8]()  // base-58 digits, little-endian
        for b in bytes[zeros...] {
            var carry = Int(b)
            for i in 0..<digits.count {
                carry += Int(digits[i]) << 8
                digits[i] = UInt8(carry % 58)
                carry /= 58
            }
            while carry > 0 { digits.append(UInt8(carry % 58)); carry /= 58 }
        }
        return String(decoding: Array(repeating: alphabet[0], count: zeros) + digits.reversed().map { alphabet[Int($0)] }, as: UTF8.self)
    }

    /// The longest text decoded. Decoding is quadratic in the length; every Base58 string
    /// Satchel reads (extended keys 111, WIF 52, addresses 35 characters) is far shorter.
    public static let maxDecodedLength = 256

    public static func decode(_ text: String) throws(EncodingError) -> [UInt8] {
        guard text.utf8.count <= maxDecodedLength else { throw .tooLong(limit: maxDecodedLength) }
        let chars = Array(text.utf8)
        let zeros = chars.prefix { $0 == alphabet[0] }.count
        var bytes = [UInt8]()  // little-endian
        for (offset, c) in chars.enumerated().dropFirst(zeros) {
            guard c < 128, indexes[Int(c)] >= 0 else { throw .invalidBase58Character(offset: offset) }
            var carry = Int(indexes[Int(c)])
            for i in 0..<bytes.count {
                carry += Int(bytes[i]) * 58
                bytes[i] = UInt8(carry & 0xff)
                carry >>= 8
            }
            while carry > 0 { bytes.append(UInt8(carry & 0xff)); carry >>= 8 }
        }
        return Array(repeating: 0, count: zeros) + bytes.reversed()
    }

    /// payload ‖ first four bytes of SHA-256d(payload).
    public static func encodeCheck(_ payload: [UInt8]) -> String {
        encode(payload + Hash.sha256d(payload).prefix(4))
    }

    public static func decodeCheck(_ text: String) throws(EncodingError) -> [UInt8] {
        let raw = try decode(text)
        guard raw.count >= 4 else { throw .badChecksum }
        let payload = Array(raw.dropLast(4))
        guard Array(Hash.sha256d(payload).prefix(4)) == Array(raw.suffix(4)) else { throw .badChecksum }
        return payload
    }
}

/// Monero's Base58: 8-byte blocks become 11 characters (a last, shorter block fewer), so
/// every block has a fixed width; checksums are Keccak-256 (computed by the address code).
public enum MoneroBase58 {
    private static let encodedSizes = [0, 2, 3, 5, 6, 7, 9, 10, 11]

    public static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        for start in stride(from: 0, to: bytes.count, by: 8) {
            let block = bytes[start..<min(start + 8, bytes.count)]
            var n: UInt64 = 0
            for b in block { n = n << 8 | UInt64(b) }
            var chars = [UInt8](repeating: Base58.alphabet[0], count: encodedSizes[block.count])
            var i = chars.count - 1
            while n > 0 { chars[i] = Base58.alphabet[Int(n % 58)]; n /= 58; i -= 1 }
            out += chars
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func decode(_ text: String) throws(EncodingError) -> [UInt8] {
        let chars = Array(text.utf8)
        var out = [UInt8]()
        for start in stride(from: 0, to: chars.count, by: 11) {
            let block = chars[start..<min(start + 11, chars.count)]
            guard let size = encodedSizes.firstIndex(of: block.count) else { throw .invalidLength }
            var n: UInt64 = 0
            for (k, c) in block.enumerated() {
                guard let digit = Base58.alphabet.firstIndex(of: c) else { throw .invalidBase58Character(offset: start + k) }
                let (m, o1) = n.multipliedReportingOverflow(by: 58)
                let (s, o2) = m.addingReportingOverflow(UInt64(digit))
                guard !o1, !o2 else { throw .invalidLength }
                n = s
            }
            if size < 8, n >> (8 * UInt64(size)) != 0 { throw .invalidLength }
            out += (0..<size).reversed().map { UInt8(truncatingIfNeeded: n >> (8 * UInt64($0))) }
        }
        return out
    }
}
