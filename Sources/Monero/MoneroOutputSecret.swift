import CSodium
import WalletCore
import WalletKeys

/// The private key of an owned output: Hs(D ‖ i) + b, plus the subaddress secret
/// m = Hs("SubAddr\0" ‖ a ‖ major ‖ minor) for any subaddress but (0, 0). Needs the spend key.
public enum MoneroOutputSecret {
    public static func secret(sharedScalar: [UInt8], keys: MoneroKeys, major: UInt32, minor: UInt32) -> SecureBytes? {
        guard let spendSecret = keys.spendSecret else { return nil }
        var x = [UInt8](repeating: 0, count: 32)
        defer { SecureBytes.wipe(&x) }
        spendSecret.withUnsafeBytes { b in crypto_core_ed25519_scalar_add(&x, sharedScalar, b.uint8Pointer) }
        if major != 0 || minor != 0 {
            let m = keys.subaddressScalar(major: major, minor: minor)
            let partial = x
            m.withUnsafeBytes { crypto_core_ed25519_scalar_add(&x, partial, $0.uint8Pointer) }
        }
        return SecureBytes(x)
    }
}
