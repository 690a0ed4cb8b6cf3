/// Arithmetic mod p = 2^255 − 19 in five 51-bit limbs, for Monero's hash_to_ec map and the key
/// derivation a·R (`EdwardsPoint.times`), whose result is a shared secret: the arithmetic, the
/// canonical form and the encoding have no branch on a value (make ctime-swift). Decoding
/// (`init(bytes:)`, square roots) is for public points only.
struct FieldElement: Equatable {
    var l0, l1, l2, l3, l4: UInt64
    static let mask: UInt64 = (1 << 51) - 1

    static let zero = FieldElement(l0: 0, l1: 0, l2: 0, l3: 0, l4: 0)
    static let one = FieldElement(l0: 1, l1: 0, l2: 0, l3: 0, l4: 0)

    init(l0: UInt64, l1: UInt64, l2: UInt64, l3: UInt64, l4: UInt64) {
        (self.l0, self.l1, self.l2, self.l3, self.l4) = (l0, l1, l2, l3, l4)
    }

    init(_ small: UInt64) { self.init(l0: small & Self.mask, l1: small >> 51, l2: 0, l3: 0, l4: 0) }

    /// 32 bytes little-endian, all 256 bits (bit 255 counts as 2^255 ≡ 19), reduced mod p.
    init(bytes s: [UInt8]) {
        precondition(s.count == 32)
        let (w0, w1, w2, w3) = s.withUnsafeBytes { b in
            (
                UInt64(littleEndian: b.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                UInt64(littleEndian: b.loadUnaligned(fromByteOffset: 8, as: UInt64.self)),
                UInt64(littleEndian: b.loadUnaligned(fromByteOffset: 16, as: UInt64.self)),
                UInt64(littleEndian: b.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
            )
        }
        self.init(
            l0: w0 & Self.mask,
            l1: (w0 >> 51 | w1 << 13) & Self.mask,
            l2: (w1 >> 38 | w2 << 26) & Self.mask,
            l3: (w2 >> 25 | w3 << 39) & Self.mask,
            l4: (w3 >> 12) & Self.mask)
        if w3 >> 63 == 1 { self = self + FieldElement(19) }
        self = carried()
    }

    /// The canonical value's four 64-bit words, little-endian.
    private var canonicalWords: (UInt64, UInt64, UInt64, UInt64) {
        let t = carried().carried()
        // Now every limb < 2^51 and the value < 2p. It is ≥ p exactly when value + 19 reaches
        // 2^255: q is that carry (ref10's fe_tobytes), and adding 19·q then dropping 2^255
        // subtracts p — by arithmetic, not by a comparison.
        let m = Self.mask
        var q = (t.l0 &+ 19) >> 51
        q = (t.l1 &+ q) >> 51; q = (t.l2 &+ q) >> 51; q = (t.l3 &+ q) >> 51; q = (t.l4 &+ q) >> 51
        var a = t.l0 &+ 19 &* q, b = t.l1, c = t.l2, d = t.l3, e = t.l4
        b &+= a >> 51; a &= m
        c &+= b >> 51; b &= m
        d &+= c >> 51; c &= m
        e &+= d >> 51; d &= m
        e &= m
        return (a | b << 51, b >> 13 | c << 38, c >> 26 | d << 25, d >> 39 | e << 12)
    }

    /// Canonical 32 bytes little-endian.
    var bytes: [UInt8] {
        let (w0, w1, w2, w3) = canonicalWords
        return [UInt8](unsafeUninitializedCapacity: 32) { buffer, count in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            raw.storeBytes(of: w0.littleEndian, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: w1.littleEndian, toByteOffset: 8, as: UInt64.self)
            raw.storeBytes(of: w2.littleEndian, toByteOffset: 16, as: UInt64.self)
            raw.storeBytes(of: w3.littleEndian, toByteOffset: 24, as: UInt64.self)
            count = 32
        }
    }

    var isZero: Bool {
        let (w0, w1, w2, w3) = canonicalWords
        return w0 | w1 | w2 | w3 == 0
    }

    /// Equal as numbers mod p (limbs may differ: they are not kept canonical).
    static func == (x: FieldElement, y: FieldElement) -> Bool { x.canonicalWords == y.canonicalWords }
    /// The low bit of the canonical value ("negative" in ref10's terms).
    var isOdd: Bool { lowBit == 1 }
    /// That bit as 0 or 1, by arithmetic.
    var lowBit: UInt64 { canonicalWords.0 & 1 }

    /// Limbs brought below 2^51 (the value may still be ≥ p).
    @inline(__always)
    func carried() -> FieldElement {
        var (a, b, c, d, e) = (l0, l1, l2, l3, l4)
        b &+= a >> 51; a &= Self.mask
        c &+= b >> 51; b &= Self.mask
        d &+= c >> 51; c &= Self.mask
        e &+= d >> 51; d &= Self.mask
        a &+= 19 &* (e >> 51); e &= Self.mask
        b &+= a >> 51; a &= Self.mask
        return FieldElement(l0: a, l1: b, l2: c, l3: d, l4: e)
    }

    @inline(__always)
    static func + (x: FieldElement, y: FieldElement) -> FieldElement {
        FieldElement(l0: x.l0 &+ y.l0, l1: x.l1 &+ y.l1, l2: x.l2 &+ y.l2, l3: x.l3 &+ y.l3, l4: x.l4 &+ y.l4).carried()
    }

    /// x − y as x + 4p − y, so limbs never go below zero: y's limbs must be below 4·(2^51 − 1),
    /// which every carried value and every product is.
    @inline(__always)
    static func - (x: FieldElement, y: FieldElement) -> FieldElement {
        FieldElement(
            l0: x.l0 &+ 4 &* (mask - 18) &- y.l0, l1: x.l1 &+ 4 &* mask &- y.l1, l2: x.l2 &+ 4 &* mask &- y.l2,
            l3: x.l3 &+ 4 &* mask &- y.l3, l4: x.l4 &+ 4 &* mask &- y.l4
        ).carried()
    }

    static prefix func - (x: FieldElement) -> FieldElement { zero - x }

    /// x·y. Every value made here has limbs below 2^52 (the results of +, −, · and the
    /// decoders are carried), which keeps the 128-bit sums below 2^115 without carrying the
    /// inputs first.
    @inline(__always)
    static func * (a: FieldElement, b: FieldElement) -> FieldElement {
        func m(_ u: UInt64, _ v: UInt64) -> UInt128 { UInt128(u) &* UInt128(v) }
        let (b1, b2, b3, b4) = (19 &* b.l1, 19 &* b.l2, 19 &* b.l3, 19 &* b.l4)
        let r0 = m(a.l0, b.l0) &+ m(a.l1, b4) &+ m(a.l2, b3) &+ m(a.l3, b2) &+ m(a.l4, b1)
        let r1 = m(a.l0, b.l1) &+ m(a.l1, b.l0) &+ m(a.l2, b4) &+ m(a.l3, b3) &+ m(a.l4, b2)
        let r2 = m(a.l0, b.l2) &+ m(a.l1, b.l1) &+ m(a.l2, b.l0) &+ m(a.l3, b4) &+ m(a.l4, b3)
        let r3 = m(a.l0, b.l3) &+ m(a.l1, b.l2) &+ m(a.l2, b.l1) &+ m(a.l3, b.l0) &+ m(a.l4, b4)
        let r4 = m(a.l0, b.l4) &+ m(a.l1, b.l3) &+ m(a.l2, b.l2) &+ m(a.l3, b.l1) &+ m(a.l4, b.l0)
        return reduce(r0, r1, r2, r3, r4)
    }

    /// The five 128-bit column sums of a product brought back to limbs below 2^52.
    @inline(__always)
    private static func reduce(_ r0: UInt128, _ r1: UInt128, _ r2: UInt128, _ r3: UInt128, _ r4: UInt128) -> FieldElement {
        let maskW = UInt128(mask)
        var r1 = r1, r2 = r2, r3 = r3, r4 = r4
        r1 &+= r0 &>> 51
        r2 &+= r1 &>> 51
        r3 &+= r2 &>> 51
        r4 &+= r3 &>> 51
        let c0 = (r0 & maskW) &+ 19 &* (r4 &>> 51)
        return FieldElement(
            l0: UInt64(truncatingIfNeeded: c0 & maskW), l1: UInt64(truncatingIfNeeded: r1 & maskW) &+ UInt64(truncatingIfNeeded: c0 &>> 51),
            l2: UInt64(truncatingIfNeeded: r2 & maskW), l3: UInt64(truncatingIfNeeded: r3 & maskW),
            l4: UInt64(truncatingIfNeeded: r4 & maskW))
    }

    /// self², with the 15 distinct products of a square instead of 25.
    @inline(__always)
    func squared() -> FieldElement {
        func m(_ u: UInt64, _ v: UInt64) -> UInt128 { UInt128(u) &* UInt128(v) }
        let (a0, a1, a2, a3, a4) = (l0, l1, l2, l3, l4)
        let (d0, d1, d2) = (2 &* a0, 2 &* a1, 2 &* a2)
        let (t3, t4) = (19 &* a3, 19 &* a4)
        let r0 = m(a0, a0) &+ m(d1, t4) &+ m(d2, t3)
        let r1 = m(d0, a1) &+ m(d2, t4) &+ m(a3, t3)
        let r2 = m(d0, a2) &+ m(a1, a1) &+ m(2 &* a3, t4)
        let r3 = m(d0, a3) &+ m(d1, a2) &+ m(a4, t4)
        let r4 = m(d0, a4) &+ m(d1, a3) &+ m(a2, a2)
        return Self.reduce(r0, r1, r2, r3, r4)
    }

    /// self^(2^k): k squarings.
    func squared(times k: Int) -> FieldElement {
        var r = self
        for _ in 0..<k { r = r.squared() }
        return r
    }

    /// self^(2^250 − 1) and self^11, the shared start of ref10's inversion and square-root
    /// addition chains (254 squarings and 11 multiplications instead of ~500 operations).
    private func chain250() -> (t250: FieldElement, t11: FieldElement) {
        let z2 = squared()
        let z9 = z2.squared(times: 2) * self
        let z11 = z9 * z2
        let z2_5_0 = z11.squared() * z9
        let z2_10_0 = z2_5_0.squared(times: 5) * z2_5_0
        let z2_20_0 = z2_10_0.squared(times: 10) * z2_10_0
        let z2_40_0 = z2_20_0.squared(times: 20) * z2_20_0
        let z2_50_0 = z2_40_0.squared(times: 10) * z2_10_0
        let z2_100_0 = z2_50_0.squared(times: 50) * z2_50_0
        let z2_200_0 = z2_100_0.squared(times: 100) * z2_100_0
        let z2_250_0 = z2_200_0.squared(times: 50) * z2_50_0
        return (z2_250_0, z11)
    }

    /// self^(p − 2) = 1/self (0 for 0).
    func inverse() -> FieldElement {
        let (t250, t11) = chain250()
        return t250.squared(times: 5) * t11
    }

    /// self^((p − 5)/8) = self^(2^252 − 3), for square roots.
    func powPMinus5Over8() -> FieldElement {
        let (t250, _) = chain250()
        return t250.squared(times: 2) * self
    }

    /// self^e for an exponent given as 32 bytes little-endian.
    func power(_ exponent: [UInt8]) -> FieldElement {
        var result = FieldElement.one
        for byte in exponent.reversed() {
            for bit in (0..<8).reversed() {
                result = result * result
                if (byte >> UInt8(bit)) & 1 == 1 { result = result * self }
            }
        }
        return result
    }

    /// 2^k − c as 32 bytes little-endian (for the exponents (p−5)/8, p−2, (p+3)/8, (p−1)/4).
    static func powerOfTwoMinus(_ k: Int, _ c: UInt64) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        for i in 0..<k { out[i / 8] |= 1 << UInt8(i % 8) }  // 2^k − 1
        var borrow = c - 1
        var i = 0
        while borrow > 0 && i < 32 {
            let v = UInt64(out[i])
            let take = borrow & 0xFF
            if v >= take { out[i] = UInt8(v - take); borrow >>= 8 } else { out[i] = UInt8(v + 256 - take); borrow = (borrow >> 8) + 1 }
            i += 1
        }
        return out
    }
}
