import WalletCore
import WalletCrypto

/// 256-bit prime-field arithmetic in Montgomery form (R = 2^256), for Jubjub's base field Fq
/// (BLS12-381's scalar field) and its subgroup's scalar field Fr.
///
/// No branch or memory access depends on a value: secret scalars (ask, nsk, ivk, esk) pass
/// through these functions. Inputs are always reduced (< modulus), which the arithmetic keeps.

/// Four little-endian 64-bit words.
public struct Limbs: Equatable, Sendable {
    public var l0, l1, l2, l3: UInt64

    @inline(__always) public init(_ l0: UInt64, _ l1: UInt64, _ l2: UInt64, _ l3: UInt64) {
        self.l0 = l0; self.l1 = l1; self.l2 = l2; self.l3 = l3
    }

    static let zero = Limbs(0, 0, 0, 0)

    /// 32 bytes, little-endian.
    init(littleEndian b: some Collection<UInt8>) {
        precondition(b.count == 32)
        var w = [UInt64](repeating: 0, count: 4)
        for (i, byte) in b.enumerated() { w[i / 8] |= UInt64(byte) << (8 * UInt64(i % 8)) }
        self.init(w[0], w[1], w[2], w[3])
    }

    var littleEndianBytes: [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        for (i, w) in [l0, l1, l2, l3].enumerated() {
            for j in 0..<8 { out[8 * i + j] = UInt8(truncatingIfNeeded: w >> (8 * UInt64(j))) }
        }
        return out
    }

    @inline(__always) func word(_ i: Int) -> UInt64 {
        switch i {
        case 0: l0
        case 1: l1
        case 2: l2
        default: l3
        }
    }

    @inline(__always) func bit(_ i: Int) -> Bool { (word(i / 64) >> UInt64(i % 64)) & 1 == 1 }

    /// self − other and whether it borrowed.
    @inline(__always) func subtracting(_ o: Limbs) -> (Limbs, borrow: UInt64) {
        var b: UInt64 = 0
        let r0 = sbb(l0, o.l0, &b), r1 = sbb(l1, o.l1, &b), r2 = sbb(l2, o.l2, &b), r3 = sbb(l3, o.l3, &b)
        return (Limbs(r0, r1, r2, r3), b)
    }

    @inline(__always) func adding(_ o: Limbs) -> (Limbs, carry: UInt64) {
        var c: UInt64 = 0
        let r0 = adc(l0, o.l0, &c), r1 = adc(l1, o.l1, &c), r2 = adc(l2, o.l2, &c), r3 = adc(l3, o.l3, &c)
        return (Limbs(r0, r1, r2, r3), c)
    }

    /// `a` where mask is all ones, `b` where it is zero.
    @inline(__always) static func select(_ mask: UInt64, _ a: Limbs, _ b: Limbs) -> Limbs {
        Limbs(
            b.l0 ^ (mask & (a.l0 ^ b.l0)), b.l1 ^ (mask & (a.l1 ^ b.l1)),
            b.l2 ^ (mask & (a.l2 ^ b.l2)), b.l3 ^ (mask & (a.l3 ^ b.l3)))
    }

    func shiftedRight(_ n: Int) -> Limbs {
        var w = [l0, l1, l2, l3]
        for _ in 0..<n {
            for i in 0..<4 { w[i] = w[i] >> 1 | (i < 3 ? w[i + 1] << 63 : 0) }
        }
        return Limbs(w[0], w[1], w[2], w[3])
    }
}

/// a − b − borrow, the borrow out (0 or 1) into borrow.
// In 128 bits, not by subtractingReportingOverflow: LLVM turns its Bool overflow flags into
// branches (a jump on the carry flag), and the operands are often a key's (make ctime-swift).
@inline(__always) func sbb(_ a: UInt64, _ b: UInt64, _ borrow: inout UInt64) -> UInt64 {
    let t = UInt128(a) &- UInt128(b) &- UInt128(borrow)
    borrow = UInt64(truncatingIfNeeded: t >> 127)
    return UInt64(truncatingIfNeeded: t)
}

/// a + b·c + carry, the high word into carry (never overflows: (2^64−1)^2 + 2(2^64−1) < 2^128).
// UInt128 lets the compiler use mul/adc directly: twice as fast as multipliedFullWidth and
// addingReportingOverflow.
@inline(__always) func mac(_ a: UInt64, _ b: UInt64, _ c: UInt64, _ carry: inout UInt64) -> UInt64 {
    let t = UInt128(b) &* UInt128(c) &+ UInt128(a) &+ UInt128(carry)
    carry = UInt64(truncatingIfNeeded: t >> 64)
    return UInt64(truncatingIfNeeded: t)
}

@inline(__always) func adc(_ a: UInt64, _ b: UInt64, _ carry: inout UInt64) -> UInt64 {
    let t = UInt128(a) &+ UInt128(b) &+ UInt128(carry)
    carry = UInt64(truncatingIfNeeded: t >> 64)
    return UInt64(truncatingIfNeeded: t)
}

/// The constants of one prime field below 2^255.
public protocol FieldModulus: Sendable {
    static var modulus: Limbs { get }
    /// −modulus⁻¹ mod 2^64.
    static var inv: UInt64 { get }
    /// R² mod modulus.
    static var r2: Limbs { get }
}

/// An element of the field of `M`, kept in Montgomery form.
public struct PrimeField<M: FieldModulus>: Equatable, Sendable {
    /// x·R mod modulus.
    @usableFromInline var mont: Limbs

    @inline(__always) init(mont: Limbs) { self.mont = mont }

    public static var zero: Self { Self(mont: .zero) }
    public static var one: Self { Self(canonical: Limbs(1, 0, 0, 0)) }

    /// From a value below the modulus.
    init(canonical x: Limbs) { mont = Self.mul(x, M.r2) }

    public init(_ small: UInt64) { self.init(canonical: Limbs(small, 0, 0, 0)) }

    /// From 32 little-endian bytes; nil when the value is not below the modulus (not canonical).
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 32 else { return nil }
        let x = Limbs(littleEndian: bytes)
        guard x.subtracting(M.modulus).borrow == 1 else { return nil }
        self.init(canonical: x)
    }

    /// `init?(bytes:)` for a secret value (a PCZT's alpha): whether it is canonical is public by
    /// design (a value that is not is refused, whatever it is); the value stays secret.
    public init?(secretBytes bytes: some Collection<UInt8>) {
        guard bytes.count == 32 else { return nil }
        let x = Limbs(littleEndian: bytes)
        guard ConstantTime.declassified(x.subtracting(M.modulus).borrow == 1) else { return nil }
        self.init(canonical: x)
    }

    /// A 64-byte little-endian integer reduced mod the modulus (ToScalar, §4.2.2 of the protocol).
    public init(wide bytes: [UInt8]) {
        precondition(bytes.count == 64)
        let lo = Limbs(littleEndian: bytes[0..<32]), hi = Limbs(littleEndian: bytes[32..<64])
        // Montgomery form of lo + hi·2^256: mul(lo, R²) + mul(hi, R³).
        let r3 = Self.mul(M.r2, M.r2)
        mont = Self(mont: Self.mul(lo, M.r2)).adding(Self(mont: Self.mul(hi, r3))).mont
    }

    /// The canonical value.
    var canonical: Limbs { Self.mul(mont, Limbs(1, 0, 0, 0)) }

    /// 32 bytes, little-endian, canonical.
    public var bytes: [UInt8] { canonical.littleEndianBytes }

    public var isZero: Bool { (mont.l0 | mont.l1 | mont.l2 | mont.l3) == 0 }

    /// All ones when the value is 0, else 0 (for a secret value: no Bool to branch on).
    @inline(__always) var zeroMask: UInt64 { ConstantTime.zeroMask(mont.l0 | mont.l1 | mont.l2 | mont.l3) }

    /// The low bit of the canonical value as 0 or 1, by arithmetic.
    var lowBit: UInt64 { canonical.l0 & 1 }

    /// The low bit of the canonical value (the "sign" of Jubjub's point encoding).
    var isOdd: Bool { lowBit == 1 }

    /// CIOS Montgomery multiplication: a·b·R⁻¹ mod m for a < 2^256, b < m (the result < m).
    @inline(__always) static func mul(_ a: Limbs, _ b: Limbs) -> Limbs {
        let m = M.modulus, inv = M.inv
        var t0: UInt64 = 0, t1: UInt64 = 0, t2: UInt64 = 0, t3: UInt64 = 0, t4: UInt64 = 0
        @inline(__always) func step(_ bi: UInt64) {
            var c: UInt64 = 0
            t0 = mac(t0, a.l0, bi, &c); t1 = mac(t1, a.l1, bi, &c); t2 = mac(t2, a.l2, bi, &c); t3 = mac(t3, a.l3, bi, &c)
            // The top words in 128 bits (see sbb: no Bool carries, which become branches).
            let top = UInt128(t4) &+ UInt128(c)
            let k = t0 &* inv
            c = 0
            _ = mac(t0, k, m.l0, &c)
            t0 = mac(t1, k, m.l1, &c); t1 = mac(t2, k, m.l2, &c); t2 = mac(t3, k, m.l3, &c)
            let sum = top &+ UInt128(c)
            t3 = UInt64(truncatingIfNeeded: sum)
            t4 = UInt64(truncatingIfNeeded: sum >> 64)
        }
        step(b.l0); step(b.l1); step(b.l2); step(b.l3)
        let t = Limbs(t0, t1, t2, t3)
        let (d, borrow) = t.subtracting(m)
        let keepDifference = 0 &- ((t4 | (borrow ^ 1)) & 1)
        return Limbs.select(keepDifference, d, t)
    }

    @inline(__always) public func adding(_ o: Self) -> Self {
        let (s, _) = mont.adding(o.mont)  // both < m < 2^255: no carry out
        let (d, borrow) = s.subtracting(M.modulus)
        return Self(mont: Limbs.select(0 &- (borrow ^ 1), d, s))
    }

    @inline(__always) public func subtracting(_ o: Self) -> Self {
        let (d, borrow) = mont.subtracting(o.mont)
        let (s, _) = d.adding(Limbs.select(0 &- borrow, M.modulus, .zero))
        return Self(mont: s)
    }

    @inline(__always) public func multiplied(by o: Self) -> Self { Self(mont: Self.mul(mont, o.mont)) }

    @inline(__always) public func squared() -> Self { Self(mont: Self.square(mont)) }

    /// a²·R⁻¹ mod m for a < m: the 512-bit square with its cross products computed once and
    /// doubled (10 word products instead of 16), then a Montgomery reduction.
    @inline(__always) static func square(_ a: Limbs) -> Limbs {
        let m = M.modulus, inv = M.inv
        var c: UInt64 = 0
        var r1 = mac(0, a.l0, a.l1, &c)
        var r2 = mac(0, a.l0, a.l2, &c)
        var r3 = mac(0, a.l0, a.l3, &c)
        var r4 = c
        c = 0
        r3 = mac(r3, a.l1, a.l2, &c)
        r4 = mac(r4, a.l1, a.l3, &c)
        var r5 = c
        c = 0
        r5 = mac(r5, a.l2, a.l3, &c)
        var r6 = c
        var r7 = r6 >> 63
        r6 = r6 << 1 | r5 >> 63
        r5 = r5 << 1 | r4 >> 63
        r4 = r4 << 1 | r3 >> 63
        r3 = r3 << 1 | r2 >> 63
        r2 = r2 << 1 | r1 >> 63
        r1 = r1 << 1
        c = 0
        let r0 = mac(0, a.l0, a.l0, &c)
        r1 = adc(r1, 0, &c)
        r2 = mac(r2, a.l1, a.l1, &c)
        r3 = adc(r3, 0, &c)
        r4 = mac(r4, a.l2, a.l2, &c)
        r5 = adc(r5, 0, &c)
        r6 = mac(r6, a.l3, a.l3, &c)
        r7 = adc(r7, 0, &c)
        // Montgomery reduction of r0…r7, one word at a time.
        var c2: UInt64 = 0
        var k = r0 &* inv
        c = 0
        _ = mac(r0, k, m.l0, &c)
        r1 = mac(r1, k, m.l1, &c); r2 = mac(r2, k, m.l2, &c); r3 = mac(r3, k, m.l3, &c)
        r4 = adc(r4, 0, &c); c2 = c
        k = r1 &* inv
        c = 0
        _ = mac(r1, k, m.l0, &c)
        r2 = mac(r2, k, m.l1, &c); r3 = mac(r3, k, m.l2, &c); r4 = mac(r4, k, m.l3, &c)
        var t = c2
        r5 = adc(r5, c, &t); c2 = t
        k = r2 &* inv
        c = 0
        _ = mac(r2, k, m.l0, &c)
        r3 = mac(r3, k, m.l1, &c); r4 = mac(r4, k, m.l2, &c); r5 = mac(r5, k, m.l3, &c)
        t = c2
        r6 = adc(r6, c, &t); c2 = t
        k = r3 &* inv
        c = 0
        _ = mac(r3, k, m.l0, &c)
        r4 = mac(r4, k, m.l1, &c); r5 = mac(r5, k, m.l2, &c); r6 = mac(r6, k, m.l3, &c)
        t = c2
        r7 = adc(r7, c, &t)
        // Below 2m (m < 2^255): one conditional subtraction.
        let r = Limbs(r4, r5, r6, r7)
        let (d, borrow) = r.subtracting(m)
        return Limbs.select(0 &- (borrow ^ 1), d, r)
    }

    @inline(__always) public var negated: Self { Self.zero.subtracting(self) }

    @inline(__always) public static func + (a: Self, b: Self) -> Self { a.adding(b) }
    @inline(__always) public static func - (a: Self, b: Self) -> Self { a.subtracting(b) }
    @inline(__always) public static func * (a: Self, b: Self) -> Self { a.multiplied(by: b) }

    /// self^e for a public exponent (the sequence of operations depends only on e).
    func power(_ e: Limbs) -> Self {
        var top = 255
        while top > 0 && !e.bit(top) { top -= 1 }  // the exponent is public: skip its leading zeros
        var r = self
        if !e.bit(top) { return .one }
        for i in stride(from: top - 1, through: 0, by: -1) {
            r = r.squared()
            if e.bit(i) { r = r * self }
        }
        return r
    }

    /// The inverse (Fermat), 0 for 0.
    public var inverse: Self { power(M.modulus.subtracting(Limbs(2, 0, 0, 0)).0) }

    /// The inverse of every value with one inversion for all (Montgomery's trick: the running
    /// products, one inversion, then back down). The values must not be 0: one 0 zeroes them all.
    public static func invertedAll(_ values: [Self]) -> [Self] {
        var prefix = [Self](repeating: .one, count: values.count), running = Self.one
        for (i, value) in values.enumerated() {
            prefix[i] = running
            running = running * value
        }
        var inverse = running.inverse
        for i in values.indices.reversed() {
            prefix[i] = prefix[i] * inverse  // value i's inverse
            inverse = inverse * values[i]
        }
        return prefix
    }

    /// `a` where mask is all ones, `b` where it is 0.
    @inline(__always) static func select(mask: UInt64, _ a: Self, _ b: Self) -> Self {
        Self(mont: Limbs.select(mask, a.mont, b.mont))
    }

    /// Equality without an early exit.
    public static func == (a: Self, b: Self) -> Bool {
        ((a.mont.l0 ^ b.mont.l0) | (a.mont.l1 ^ b.mont.l1) | (a.mont.l2 ^ b.mont.l2) | (a.mont.l3 ^ b.mont.l3)) == 0
    }
}

/// Jubjub's base field: q = BLS12-381's r = 0x73eda753…00000001.
public enum FqModulus: TwoAdicModulus {
    public static let modulus = Limbs(0xFFFF_FFFF_0000_0001, 0x53BD_A402_FFFE_5BFE, 0x3339_D808_09A1_D805, 0x73ED_A753_299D_7D48)
    public static let inv: UInt64 = 0xFFFF_FFFE_FFFF_FFFF
    public static let r2 = Limbs(0xC999_E990_F3F2_9C6D, 0x2B6C_EDCB_8792_5C23, 0x05D3_1496_7254_398F, 0x0748_D9D9_9F59_FF11)
    public static let twoAdicity = 32
    public static let oddPart = Limbs(0xFFFE_5BFE_FFFF_FFFF, 0x09A1_D805_53BD_A402, 0x299D_7D48_3339_D808, 0x0000_0000_73ED_A753)
    /// 5^oddPart (5 is the least non-residue).
    public static let rootOfUnity = Limbs(0x1B78_8F50_0B91_2F1F, 0xC402_4FF2_70B3_E094, 0x0FD5_6DC8_D168_D6C0, 0x0212_D79E_5B41_6B6F)
}

/// The order of Jubjub's prime subgroup: r_J = 0x0e7db4ea…d6f72cb7 (252 bits).
public enum FrModulus: FieldModulus {
    public static let modulus = Limbs(0xD097_0E5E_D6F7_2CB7, 0xA668_2093_CCC8_1082, 0x0667_3B01_0134_3B00, 0x0E7D_B4EA_6533_AFA9)
    public static let inv: UInt64 = 0x1BA3_A358_EF78_8EF9
    public static let r2 = Limbs(0x6771_9AA4_95E5_7731, 0x51B0_CEF0_9CE3_FC26, 0x69DA_B7FA_C026_E9A5, 0x04F6_547B_8D12_7688)
}

public typealias Fq = PrimeField<FqModulus>
public typealias Fr = PrimeField<FrModulus>

/// A modulus m with m − 1 = 2^s·t, t odd: square roots by Tonelli–Shanks.
public protocol TwoAdicModulus: FieldModulus {
    /// s.
    static var twoAdicity: Int { get }
    /// t.
    static var oddPart: Limbs { get }
    /// z^t for a quadratic non-residue z: a primitive 2^s-th root of unity (canonical).
    static var rootOfUnity: Limbs { get }
}

extension PrimeField where M: TwoAdicModulus {
    /// A square root (Tonelli–Shanks), or nil when there is none. Its running time depends on
    /// the value, so only public values (point decompression, hash-to-curve) come here.
    public var squareRoot: Self? {
        if isZero { return .zero }
        // One exponentiation: w = a^((t−1)/2), then x = a·w = a^((t+1)/2) and b = x·w = a^t.
        let w = power(M.oddPart.shiftedRight(1))
        var x = self * w
        var b = x * w
        var c = Self(canonical: M.rootOfUnity)
        var m = M.twoAdicity
        while b != .one {
            var i = 0
            var b2 = b
            while b2 != .one {
                b2 = b2.squared()
                i += 1
                if i == m { return nil }
            }
            var e = c
            for _ in 0..<(m - i - 1) { e = e.squared() }
            x = x * e
            c = e.squared()
            b = b * c
            m = i
        }
        return x
    }
}
