import CSodium
import WalletCore

/// A fast first look at a transaction key: the two encodings the key derivation D = 8·a·R
/// can have, from an X25519 ladder on R's Montgomery u-coordinate: all keys of a call at once
/// through `X25519Batch` (8 per vector ladder, one inversion), or libsodium's one at a time
/// on the portable path; either is constant time, and faster than an Edwards multiplication.
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

    /// For each key: (y of D with x even, with x odd) encoded, or nil (the exact path decides).
    public func candidates(_ keys: [[UInt8]]) -> [(even: [UInt8], odd: [UInt8])?] {
        guard let scalar, !keys.isEmpty else { return [(even: [UInt8], odd: [UInt8])?](repeating: nil, count: keys.count) }
        typealias F = FieldElement
        // u = (1 + y)/(1 − y), the denominators inverted together (Montgomery's trick).
        var numerators = [F](), denominators = [F](), usable = [Bool]()
        for key in keys {
            var yBytes = key
            var ok = key.count == 32
            if ok {
                yBytes[31] &= 0x7F
                let y = F(bytes: yBytes)
                ok = y.bytes == yBytes  // Monero refuses a non-canonical y
                numerators.append(.one + y)
                denominators.append(.one - y)
            } else {
                numerators.append(.zero)
                denominators.append(.one)
            }
            usable.append(ok)
        }
        let us = zip(numerators, F.invertAll(denominators)).map { $0 * $1 }
        // −1 (nil) where the result is 0: R was of small order; the exact path decides.
        var resultsU = [F?](repeating: nil, count: keys.count)
        let usableIndexes = usable.indices.filter { usable[$0] }
        let products = scalar.withUnsafeBytes { k in X25519Batch.multiply(scalar: k, points: usableIndexes.map { us[$0].bytes }, path: path) }
        for (i, u) in zip(usableIndexes, products) { resultsU[i] = u.map { F(bytes: $0) } }
        // y = (u − 1)/(u + 1), again inverted together.
        let inverses = F.invertAll(resultsU.map { ($0 ?? .zero) + .one })
        return zip(resultsU, inverses).map { u, inverse in
            guard let u else { return nil }
            let y = (u - .one) * inverse
            let even = y.bytes
            guard !(u + .one).isZero else { return nil }
            var odd = even
            odd[31] |= 0x80
            return (even, odd)
        }
    }
}

extension FieldElement {
    /// 1/x for every x (0 for 0) with one inversion: prefix products, then back.
    static func invertAll(_ xs: [FieldElement]) -> [FieldElement] {
        guard !xs.isEmpty else { return [] }
        var prefix = [FieldElement]()
        prefix.reserveCapacity(xs.count)
        var running = FieldElement.one
        for x in xs {
            prefix.append(running)
            // A zero would zero the product for everyone: count it as 1 and answer 0 for it.
            running = running * (x.isZero ? .one : x)
        }
        var inverse = running.inverse()
        var out = [FieldElement](repeating: .zero, count: xs.count)
        for i in stride(from: xs.count - 1, through: 0, by: -1) {
            if xs[i].isZero { continue }
            out[i] = inverse * prefix[i]
            inverse = inverse * xs[i]
        }
        return out
    }
}
