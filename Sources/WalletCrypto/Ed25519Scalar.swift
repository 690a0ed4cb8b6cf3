import CSodium
import WalletCore

/// Scalars modulo ℓ, the order of the Ed25519 base point (Monero's private keys).
public enum Ed25519Scalar {
    /// Monero's `sc_reduce32`: a 32-byte little-endian number reduced mod ℓ.
    public static func reduce32(_ input: SecureBytes) -> SecureBytes {
        precondition(input.count == 32)
        Sodium.ensureInitialized()
        var wide = [UInt8](repeating: 0, count: 64)
        defer { SecureBytes.wipe(&wide) }
        input.withUnsafeBytes { for i in 0..<32 { wide[i] = $0[i] } }
        let out = SecureBytes(count: 32)
        out.withUnsafeMutableBytes { crypto_core_ed25519_scalar_reduce($0.uint8Pointer, wide) }
        return out
    }

    /// Whether a 32-byte little-endian number is already below ℓ (Monero's `sc_check`).
    public static func isCanonical(_ input: SecureBytes) -> Bool {
        reduce32(input) == input
    }
}
