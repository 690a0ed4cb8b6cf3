/// Base58 (Bitcoin alphabet) and Base58Check.
public enum Base58 {
    public static let alphabet = Array("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz".utf8)
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
}
