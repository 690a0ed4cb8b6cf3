import WalletCore

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
