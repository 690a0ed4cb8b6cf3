import CSodium
import WalletCore
import WalletCrypto

extension Ed25519 {
    /// Monero's key derivation 8·(a·R) (generate_key_derivation), or nil when R is not a
    /// point. As Monero does it: a·R for any R (no subgroup check), then three doublings,
    /// which clear a small-order part. libsodium's crypto_scalarmult_ed25519_noclamp first
    /// checks that R is in the prime-order subgroup, which costs about as much as the
    /// multiplication itself; a scan does one of these per transaction key, so this one is
    /// ours (`EdwardsPoint.times`), checked against libsodium and Monero's vectors in tests.
    public static func moneroDerivation(secret a: SecureBytes, publicKey r: [UInt8]) -> [UInt8]? {
        guard let point = EdwardsPoint(bytes: r) else { return nil }
        return a.withUnsafeBytes { point.times(scalar: $0.uint8Pointer) }.doubled().doubled().doubled().bytes
    }
}

extension EdwardsPoint {
    /// (Y+X, Y−X, 2Z, 2d·T): a point ready to be added (add-2008-hwcd-3).
    struct Cached {
        var yPlusX, yMinusX, z2, t2d: FieldElement
        static let identity = Cached(yPlusX: .one, yMinusX: .one, z2: FieldElement(2), t2d: .zero)

        /// Takes `other` where `flag` is all ones, keeps self where it is zero.
        mutating func select(_ other: Cached, flag: UInt64) {
            func pick(_ a: inout FieldElement, _ b: FieldElement) {
                a.l0 ^= (a.l0 ^ b.l0) & flag; a.l1 ^= (a.l1 ^ b.l1) & flag; a.l2 ^= (a.l2 ^ b.l2) & flag
                a.l3 ^= (a.l3 ^ b.l3) & flag; a.l4 ^= (a.l4 ^ b.l4) & flag
            }
            pick(&yPlusX, other.yPlusX); pick(&yMinusX, other.yMinusX); pick(&z2, other.z2); pick(&t2d, other.t2d)
        }
    }

    var cached: Cached { Cached(yPlusX: y + x, yMinusX: y - x, z2: z + z, t2d: t * Self.d2) }

    static func + (p: EdwardsPoint, q: Cached) -> EdwardsPoint {
        let a = (p.y - p.x) * q.yMinusX
        let b = (p.y + p.x) * q.yPlusX
        let c = p.t * q.t2d
        let dd = p.z * q.z2
        let e = b - a, f = dd - c, g = dd + c, h = b + a
        return EdwardsPoint(x: e * f, y: g * h, z: f * g, t: e * h)
    }

    /// s·P for a 32-byte little-endian scalar s < 2^255 (a secret: the view key). Signed
    /// radix-16 digits, each table entry read with masks and the sign applied with masks, so
    /// the sequence of operations and memory reads does not depend on s.
    func times(scalar s: UnsafePointer<UInt8>) -> EdwardsPoint {
        var digits = [Int8](repeating: 0, count: 64)
        defer { digits.withUnsafeMutableBytes { sodium_memzero($0.baseAddress, 64) } }
        // Wrapping operations only: Swift's checked ones branch on their overflow flag.
        for i in 0..<32 {
            digits[2 * i] = Int8(truncatingIfNeeded: s[i] & 15)
            digits[2 * i + 1] = Int8(truncatingIfNeeded: s[i] >> 4)
        }
        var carry: Int8 = 0
        for i in 0..<63 {
            digits[i] &+= carry
            carry = (digits[i] &+ 8) >> 4
            digits[i] &-= carry << 4
        }
        digits[63] &+= carry
        // 1P … 8P
        var table = [Cached](repeating: .identity, count: 8)
        var multiple = self
        table[0] = cached
        for k in 1..<8 {
            multiple = multiple + table[0]
            table[k] = multiple.cached
        }
        var q = EdwardsPoint.identity
        for i in stride(from: 63, through: 0, by: -1) {
            if i != 63 { q = q.doubled(withT: false).doubled(withT: false).doubled(withT: false).doubled() }
            let d = Int64(digits[i])
            let negative = UInt64(bitPattern: d >> 63)  // all ones when d < 0
            let magnitude = UInt64(bitPattern: (d ^ Int64(bitPattern: negative)) &- Int64(bitPattern: negative))
            var entry = Cached.identity
            for k in 0..<8 {
                let equal = UInt64(k + 1) ^ magnitude
                let flag = ((equal &- 1) >> 63) &* UInt64.max  // all ones when magnitude == k + 1
                entry.select(table[k], flag: flag)
            }
            var negated = Cached(yPlusX: entry.yMinusX, yMinusX: entry.yPlusX, z2: entry.z2, t2d: -entry.t2d)
            negated.select(entry, flag: ~negative)
            q = q + negated
        }
        return q
    }

    /// 2P; without T when the next step is another doubling (which does not read it).
    func doubled(withT: Bool) -> EdwardsPoint {
        let a = x.squared(), b = y.squared()
        let zz = z.squared()
        let c = zz + zz
        let e = (x + y).squared() - a - b
        let g = b - a
        let f = g - c
        let h = -(a + b)
        return EdwardsPoint(x: e * f, y: g * h, z: f * g, t: withT ? e * h : .zero)
    }
}
