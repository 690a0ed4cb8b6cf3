import WalletCore

/// Base58Check: Base58 with a SHA-256d checksum, here beside the hash.
extension Base58 {
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
