import CSodium
import WalletCore
import WalletCrypto

/// A fast first look at a transaction key: the two encodings the key derivation D = 8·a·R
/// can have, from an X25519 ladder on R's Montgomery u-coordinate: all keys of a call at once
/// through `X25519Batch.edwardsY` (8 per vector ladder, one inversion each way), or
/// libsodium's ladder one at a time on the portable path; either is constant time, and
/// faster than an Edwards multiplication.
///
/// The ladder gives u(k·R) only, so D's y is known and the sign of its x is not: both
/// encodings are returned, and an output whose view tag matches either is checked again with
/// the exact derivation (`Ed25519.moneroDerivation`). X25519 clamps its scalar (a multiple of
/// 8 in [2^254, 2^255)); k = 8·a′ with a′ = a or ℓ − a (u does not see the sign) is such a
/// scalar for every view key but about 2^−127 of them, and k ≡ 0 mod 8 clears R's small-order
/// part exactly as Monero's ×8 does. A key the filter cannot take is left to the exact path.
public struct ViewTagFilter: Sendable {
    /// 8·a′, clamped already; nil when the view key has no such form (then every key goes
    /// the exact way).
    private let scalar: SecureBytes?
    private let path: CurveBatchPath

    /// `path`: the batched ladder's kernels (tests force each in turn).
    public init(viewSecret: SecureBytes, path: CurveBatchPath = .inUse) {
        self.path = path
        scalar = viewSecret.withUnsafeBytes { a -> SecureBytes? in
            var candidates = [[UInt8]](repeating: [UInt8](repeating: 0, count: 32), count: 2)
            defer { for i in candidates.indices { sodium_memzero(&candidates[i], 32) } }
            candidates[0] = Array(a)
            crypto_core_ed25519_scalar_negate(&candidates[1], a.uint8Pointer)
            for var c in candidates {
                defer { sodium_memzero(&c, 32) }
                // a′ in [2^251, 2^252): byte 31 is 0x08…0x0F.
                guard c[31] >= 0x08 && c[31] < 0x10 else { continue }
                var k = [UInt8](repeating: 0, count: 32)
                var carry: UInt8 = 0
                for i in 0..<32 {
                    k[i] = c[i] << 3 | carry
                    carry = c[i] >> 5
                }
                defer { sodium_memzero(&k, 32) }
                return SecureBytes(k)
            }
            return nil
        }
    }

    /// For each key: (y of D with x even, with x odd) encoded, or nil (the exact path decides:
    /// a key that is not 32 bytes or not a canonical y, or whose D the ladder cannot give).
    public func candidates(_ keys: [[UInt8]]) -> [(even: [UInt8], odd: [UInt8])?] {
        guard let scalar, !keys.isEmpty else { return [(even: [UInt8], odd: [UInt8])?](repeating: nil, count: keys.count) }
        let usable = keys.indices.filter { keys[$0].count == 32 }
        let ys = scalar.withUnsafeBytes { k in X25519Batch.edwardsY(scalar: k, points: usable.map { keys[$0] }, path: path) }
        var out = [(even: [UInt8], odd: [UInt8])?](repeating: nil, count: keys.count)
        for (i, y) in zip(usable, ys) {
            guard let even = y else { continue }
            var odd = even
            odd[31] |= 0x80
            out[i] = (even, odd)
        }
        return out
    }
}
