import CSodium
import WalletCore

/// Ed25519 points and scalars as Monero uses them (libsodium's "noclamp" functions: Monero's
/// private keys are plain scalars mod ℓ, never clamped like Ed25519 signing keys).
public enum Ed25519 {
    public enum PointError: WalletError, Equatable {
        case invalidPoint
        case invalidScalar
        public var code: String { self == .invalidPoint ? "curve.invalid_ed25519_point" : "curve.invalid_ed25519_scalar" }
        public var message: String {
            self == .invalidPoint ? "not a valid Ed25519 public key" : "not a valid Ed25519 scalar (zero, or a result of small order)"
        }
    }

    /// s·G for a scalar s < ℓ. Constant-time in s.
    public static func basePointMultiple(_ scalar: SecureBytes) throws(PointError) -> [UInt8] {
        Sodium.ensureInitialized()
        var out = [UInt8](repeating: 0, count: 32)
        let ok = scalar.withUnsafeBytes { crypto_scalarmult_ed25519_base_noclamp(&out, $0.uint8Pointer) }
        guard ok == 0 else { throw .invalidScalar }
        return out
    }

    /// s·P.
    public static func multiply(_ scalar: SecureBytes, _ point: [UInt8]) throws(PointError) -> [UInt8] {
        guard isValidPoint(point) else { throw .invalidPoint }
        var out = [UInt8](repeating: 0, count: 32)
        let ok = scalar.withUnsafeBytes { crypto_scalarmult_ed25519_noclamp(&out, $0.uint8Pointer, point) }
        guard ok == 0 else { throw .invalidScalar }
        return out
    }

    /// P + Q.
    public static func add(_ p: [UInt8], _ q: [UInt8]) throws(PointError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        guard crypto_core_ed25519_add(&out, p, q) == 0 else { throw .invalidPoint }
        return out
    }

    public static func isValidPoint(_ p: [UInt8]) -> Bool {
        Sodium.ensureInitialized()
        return p.count == 32 && crypto_core_ed25519_is_valid_point(p) == 1
    }

    /// Monero's hash-to-scalar Hs: sc_reduce32(Keccak-256(data)).
    public static func hashToScalar(_ data: [UInt8]) -> SecureBytes {
        var digest = Keccak256.hash(data)
        defer { SecureBytes.wipe(&digest) }
        return Ed25519Scalar.reduce32(SecureBytes(digest))
    }
}

extension Ed25519 {
    /// P − Q, or nil when either is not a point on the curve.
    public static func subtract(_ p: [UInt8], _ q: [UInt8]) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: 32)
        return crypto_core_ed25519_sub(&out, p, q) == 0 ? out : nil
    }

    /// s·G for a public scalar given as bytes (amounts, masks); nil for zero.
    public static func basePointMultiple(bytes s: [UInt8]) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: 32)
        return crypto_scalarmult_ed25519_base_noclamp(&out, s) == 0 ? out : nil
    }

    /// s·P for public values; nil when the result is the identity or P is not in the subgroup.
    public static func multiply(bytes s: [UInt8], _ point: [UInt8]) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: 32)
        return crypto_scalarmult_ed25519_noclamp(&out, s, point) == 0 ? out : nil
    }

    /// a − b mod ℓ.
    public static func scalarSubtract(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        crypto_core_ed25519_scalar_sub(&out, a, b)
        return out
    }
}
