import WalletCore

/// What a derive or sign request starts from, once read from a record.
public enum KeySource: Sendable {
    /// A BIP32 key: the master key of a seed (origin m), or an imported extended key whose
    /// place in the tree is `origin` if the user said so, else unknown (nil).
    case bip32(ExtendedKey, origin: DerivationPath?, fromSeed: Bool)
    case monero(MoneroKeys)
    /// A lone secp256k1 private key (hex or WIF): no tree, no path.
    case single(SecureBytes)
}

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
