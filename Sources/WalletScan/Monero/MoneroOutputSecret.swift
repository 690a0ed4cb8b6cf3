import CSodium
import WalletCore

/// The private key of an owned output: Hs(D ‖ i) + b, plus the subaddress secret
/// m = Hs("SubAddr\0" ‖ a ‖ major ‖ minor) for any subaddress but (0, 0). Needs the spend key.
public enum MoneroOutputSecret {
    public static func secret(sharedScalar: [UInt8], spendSecret: SecureBytes, viewSecret: SecureBytes,
                              major: UInt32, minor: UInt32) throws -> SecureBytes {
        var x = [UInt8](repeating: 0, count: 32)
        defer { SecureBytes.wipe(&x) }
        spendSecret.withUnsafeBytes { b in crypto_core_ed25519_scalar_add(&x, sharedScalar, b.uint8Pointer) }
        if major != 0 || minor != 0 {
            var data = Array("SubAddr".utf8) + [0] + viewSecret.bytes
            for v in [major, minor] { data += (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * UInt32($0))) } }
            defer { SecureBytes.wipe(&data) }
            let m = Ed25519.hashToScalar(data)
            let partial = x
            m.withUnsafeBytes { crypto_core_ed25519_scalar_add(&x, partial, $0.uint8Pointer) }
        }
        return SecureBytes(x)
    }
}
