/// Errors from decoding text encodings of bytes.
public enum EncodingError: WalletError, Equatable {
    case invalidHexCharacter(offset: Int)
    case oddHexLength(Int)
    case wrongLength(field: String, expected: [Int], got: Int)
    case invalidBase58Character(offset: Int)
    case badChecksum
    case invalidLength
    case invalidBech32(reason: String)
    case tooLong(limit: Int)

    public var code: String {
        switch self {
        case .invalidHexCharacter: "encoding.invalid_hex"
        case .oddHexLength: "encoding.odd_hex_length"
        case .wrongLength: "encoding.wrong_length"
        case .invalidBase58Character: "encoding.invalid_base58"
        case .badChecksum: "encoding.bad_checksum"
        case .invalidLength: "encoding.invalid_length"
        case .invalidBech32: "encoding.invalid_bech32"
        case .tooLong: "encoding.too_long"
        }
    }

    public var message: String {
        switch self {
        case .invalidHexCharacter(let offset): "not hexadecimal: bad character at offset \(offset)"
        case .oddHexLength(let n): "hex string has an odd number of digits (\(n))"
        case .wrongLength(let field, let expected, let got):
            "\(field) must be \(expected.map(String.init).joined(separator: " or ")) bytes long, got \(got)"
        case .invalidBase58Character(let offset): "not Base58: bad character at offset \(offset)"
        case .badChecksum: "the checksum does not match (a character is wrong)"
        case .invalidLength: "the encoded data has an impossible length"
        case .invalidBech32(let reason): "not a valid bech32 string: \(reason)"
        case .tooLong(let limit): "the encoded text is longer than \(limit) characters"
        }
    }
}

public enum Hex {
    /// Lowercase hex, as every Satchel record writes bytes.
    public static func encode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        if let fast = bytes.withContiguousStorageIfAvailable({ encode(buffer: $0) }) { return fast }
        return Array(bytes).withUnsafeBufferPointer { encode(buffer: $0) }
    }

    /// Writes straight into the string's storage: hex of keys and signatures is on every
    /// record's path, so it should cost no iterator or intermediate array.
    private static func encode(buffer: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: buffer.count * 2) { out in
            for i in 0..<buffer.count {
                let hi = buffer[i] >> 4, lo = buffer[i] & 0x0f
                out[2 * i] = hi < 10 ? 0x30 + hi : 0x57 + hi
                out[2 * i + 1] = lo < 10 ? 0x30 + lo : 0x57 + lo
            }
            return buffer.count * 2
        }
    }

    /// Decodes upper- or lowercase hex. The error names the offset, never the text itself,
    /// because the text may be a secret.
    public static func decode(_ text: String) throws(EncodingError) -> [UInt8] {
        var text = text
        return try text.withUTF8 { utf8 -> Result<[UInt8], EncodingError> in
            guard utf8.count % 2 == 0 else { return .failure(.oddHexLength(utf8.count)) }
            var bad: Int?
            // Chain data is megabytes of hex: a table lookup per digit, written in place.
            let table = nibbles
            let out = [UInt8](unsafeUninitializedCapacity: utf8.count / 2) { buffer, count in
                var i = 0
                while i < utf8.count {
                    let hi = table[Int(utf8[i])], lo = table[Int(utf8[i + 1])]
                    guard hi | lo < 0x10 else {
                        bad = hi >= 0x10 ? i : i + 1
                        break
                    }
                    buffer[i / 2] = hi << 4 | lo
                    i += 2
                }
                count = i / 2
            }
            if let bad { return .failure(.invalidHexCharacter(offset: bad)) }
            return .success(out)
        }.get()
    }

    /// Each byte's value as a hex digit, 0xFF when it is none.
    private static let nibbles: [UInt8] = (0..<256).map { nibble(UInt8($0)) ?? 0xFF }

    /// Decodes into wiped-on-release storage, for secret values.
    public static func decodeSecret(_ text: String) throws(EncodingError) -> SecureBytes {
        var plain = try decode(text)
        defer { SecureBytes.wipe(&plain) }
        return SecureBytes(plain)
    }

    /// The value of one hex digit (either case).
    public static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
