import WalletCore
import WalletCrypto

/// Wallet Import Format: prefix ‖ key ‖ [0x01 if compressed], Base58Check.
public enum WIF {
    /// The key, checked to be in 1..n-1.
    public static func decode(_ text: String) throws(DerivationError) -> SecureBytes {
        let (key, _, _) = try parse(text)
        guard Secp256k1.isValidPrivateKey(key) else { throw .invalidWIF("key not in 1..n-1") }
        return key
    }

    /// The key (not checked against the group order), its prefix byte (0x80 mainnet, 0xEF test
    /// networks, others for other coins) and whether it stands for a compressed public key.
    public static func parse(_ text: String) throws(DerivationError) -> (key: SecureBytes, prefix: UInt8, compressed: Bool) {
        var raw: [UInt8]
        do { raw = try Base58.decodeCheck(text) } catch { throw .invalidWIF(error.message) }
        defer { SecureBytes.wipe(&raw) }
        guard raw.count == 33 || (raw.count == 34 && raw[33] == 1) else { throw .invalidWIF("wrong length") }
        return (SecureBytes(raw[1..<33]), raw[0], raw.count == 34)
    }
}
