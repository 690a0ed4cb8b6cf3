import WalletCore

/// Wallet Import Format: prefix ‖ key ‖ [0x01 if compressed], Base58Check.
public enum WIF {
    public static func decode(_ text: String) throws(DerivationError) -> SecureBytes {
        var raw: [UInt8]
        do { raw = try Base58.decodeCheck(text) } catch { throw .invalidWIF(error.message) }
        defer { SecureBytes.wipe(&raw) }
        guard raw.count == 33 || (raw.count == 34 && raw[33] == 1) else { throw .invalidWIF("wrong length") }
        let key = SecureBytes(raw[1..<33])
        guard Secp256k1.isValidPrivateKey(key) else { throw .invalidWIF("key not in 1..n-1") }
        return key
    }
}
