import WalletCore
import WalletCrypto

/// Pallas, Orchard's curve: y² = x³ + 5 over F_p, of prime order q (no cofactor). Both fields
/// are `PrimeField`s, the Montgomery code Jubjub's fields use; only the moduli differ.

/// F_p, Pallas's base field: p = 0x40000000…224698fc094cf91b992d30ed00000001.
public enum PallasBaseModulus: TwoAdicModulus {
    public static let modulus = Limbs(0x992D_30ED_0000_0001, 0x2246_98FC_094C_F91B, 0, 0x4000_0000_0000_0000)
    public static let inv: UInt64 = 0x992D_30EC_FFFF_FFFF
    public static let r2 = Limbs(0x8C78_ECB3_0000_000F, 0xD7D3_0DBD_8B0D_E0E7, 0x7797_A99B_C3C9_5D18, 0x096D_41AF_7B9C_B714)
    public static let twoAdicity = 32
    public static let oddPart = Limbs(0x094C_F91B_992D_30ED, 0x0000_0000_2246_98FC, 0, 0x0000_0000_4000_0000)
    /// 5^oddPart (5 is the least non-residue).
    public static let rootOfUnity = Limbs(0xBDAD_6FAB_D87E_A32F, 0xEA32_2BF2_B7BB_7584, 0x3621_2083_0561_F81A, 0x2BCE_74DE_AC30_EBDA)
}

/// F_q, Pallas's scalar field: q = 0x40000000…224698fc0994a8dd8c46eb2100000001.
public enum PallasScalarModulus: FieldModulus {
    public static let modulus = Limbs(0x8C46_EB21_0000_0001, 0x2246_98FC_0994_A8DD, 0, 0x4000_0000_0000_0000)
    public static let inv: UInt64 = 0x8C46_EB20_FFFF_FFFF
    public static let r2 = Limbs(0xFC96_78FF_0000_000F, 0x67BB_433D_891A_16E3, 0x7FAE_2310_04CC_F590, 0x096D_41AF_7CCF_DAA9)
}

public typealias PallasBase = PrimeField<PallasBaseModulus>
public typealias PallasScalar = PrimeField<PallasScalarModulus>

extension PrimeField {
    /// A constant written as big-endian hex, as the specification prints it.
    init(hex: String) {
        let bytes = try! Hex.decode(String(repeating: "0", count: 64 - hex.count) + hex)
        self.init(bytes: Array(bytes.reversed()))!
    }

    /// The parity of the canonical value (sgn0 of hash-to-curve, the sign bit of repr_P).
    var sign: Bool { isOdd }
}

/// A point of Pallas in projective coordinates (X : Y : Z), x = X/Z, y = Y/Z; the identity is
/// (0 : 1 : 0). Addition and doubling are the complete formulas of Renes, Costello and Batina
/// (2016, algorithms 7 and 9 for a = 0): no case depends on the inputs.
public struct PallasPoint: Sendable, Equatable {
    public var x: PallasBase
    public var y: PallasBase
    public var z: PallasBase

    static let b3 = PallasBase(15)  // 3·b

    public static let identity = PallasPoint(x: .zero, y: .one, z: .zero)

    init(x: PallasBase, y: PallasBase, z: PallasBase) {
        self.x = x; self.y = y; self.z = z
    }

    /// An affine point; the caller knows it is on the curve.
    init(affineX: PallasBase, affineY: PallasBase) { self.init(x: affineX, y: affineY, z: .one) }

    public var isIdentity: Bool { z.isZero }

    /// (x, y), nil for the identity.
    public var affine: (x: PallasBase, y: PallasBase)? {
        guard !z.isZero else { return nil }
        let inverse = z.inverse
        return (x * inverse, y * inverse)
    }

    /// repr_P: x little-endian with y's parity in bit 255; 32 zero bytes for the identity.
    /// Without a branch on the point (a transmission key, a commitment).
    public var bytes: [UInt8] { Self.encodeAll([self])[0] }

    /// x little-endian with y's parity in bit 255: Pallas's and iso-Pallas's affine encoding.
    static func encode(_ p: (x: PallasBase, y: PallasBase)) -> [UInt8] {
        var out = p.x.bytes
        out[31] |= UInt8(truncatingIfNeeded: p.y.lowBit) << 7  // by arithmetic: y may be a shared secret's
        return out
    }

    /// repr_P of each point, with one field inversion for all (Montgomery's trick); by masks,
    /// not branches, since the points are often shared secrets (ivk·epk).
    public static func encodeAll(_ points: [PallasPoint]) -> [[UInt8]] {
        // The identity's z = 0 would zero every product: it takes 1 and is written as zeros.
        let identity = points.map(\.z.zeroMask)
        let inverses = PallasBase.invertedAll(zip(points, identity).map { PallasBase.select(mask: $1, .one, $0.z) })
        return points.indices.map { i in
            let keep = UInt8(truncatingIfNeeded: ~identity[i])
            return encode((points[i].x * inverses[i], points[i].y * inverses[i])).map { $0 & keep }
        }
    }

    /// Extract_P: x, and 0 for the identity (whose X is 0, so Z := 1 gives it: no branch on
    /// the point, which is an ivk or a note commitment).
    public var extracted: PallasBase { x * PallasBase.select(mask: z.zeroMask, .one, z).inverse }

    /// abst_P: nil for a non-canonical x or an x with no point.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        if bytes.allSatisfy({ $0 == 0 }) { self = .identity; return }
        let sign = bytes[31] >> 7 == 1
        var xBytes = bytes
        xBytes[31] &= 0x7F
        guard let x = PallasBase(bytes: xBytes), var y = (x.squared() * x + PallasBase(5)).squareRoot else { return nil }
        if y.sign != sign { y = y.negated }
        // x = 0 has no point (5 is no square mod p), so a nonzero encoding never lands on the identity's.
        self.init(affineX: x, affineY: y)
    }

    public static func + (a: PallasPoint, b: PallasPoint) -> PallasPoint {
        let (x1, y1, z1, x2, y2, z2) = (a.x, a.y, a.z, b.x, b.y, b.z)
        var t0 = x1 * x2, t1 = y1 * y2, t2 = z1 * z2
        var t3 = (x1 + y1) * (x2 + y2)
        var t4 = t0 + t1
        t3 = t3 - t4
        t4 = (y1 + z1) * (y2 + z2)
        var x3 = t1 + t2
        t4 = t4 - x3
        x3 = (x1 + z1) * (x2 + z2)
        var y3 = t0 + t2
        y3 = x3 - y3
        x3 = t0 + t0
        t0 = x3 + t0
        t2 = b3 * t2
        var z3 = t1 + t2
        t1 = t1 - t2
        y3 = b3 * y3
        x3 = t4 * y3
        t2 = t3 * t1
        x3 = t2 - x3
        y3 = y3 * t0
        t1 = t1 * z3
        y3 = t1 + y3
        t0 = t0 * t3
        z3 = z3 * t4
        z3 = z3 + t0
        return PallasPoint(x: x3, y: y3, z: z3)
    }

    public func doubled() -> PallasPoint {
        var t0 = y.squared()
        var z3 = t0 + t0
        z3 = z3 + z3
        z3 = z3 + z3
        var t1 = y * z
        var t2 = z.squared()
        t2 = Self.b3 * t2
        var x3 = t2 * z3
        var y3 = t0 + t2
        z3 = t1 * z3
        t1 = t2 + t2
        t2 = t1 + t2
        t0 = t0 - t2
        y3 = t0 * y3
        y3 = x3 + y3
        t1 = x * y
        x3 = t0 * t1
        x3 = x3 + x3
        return PallasPoint(x: x3, y: y3, z: z3)
    }

    public var negated: PallasPoint { PallasPoint(x: x, y: y.negated, z: z) }

    public static func - (a: PallasPoint, b: PallasPoint) -> PallasPoint { a + b.negated }

    /// Whether both are the same point (cross-multiplied: no inversion).
    public static func == (a: PallasPoint, b: PallasPoint) -> Bool {
        (a.x * b.z == b.x * a.z) && (a.y * b.z == b.y * a.z)
    }

    /// [k]self for a scalar given as 32 little-endian bytes (any 256-bit value), by 4-bit
    /// windows from the top with every table entry read, so that the time and memory
    /// accesses do not depend on k.
    public func times(_ k: [UInt8]) -> PallasPoint {
        precondition(k.count == 32)
        let table = multiples()
        var acc = PallasPoint.identity
        for byte in k.reversed() {
            acc = acc.doubled().doubled().doubled().doubled() + Self.pick(table, byte >> 4)
            acc = acc.doubled().doubled().doubled().doubled() + Self.pick(table, byte & 0x0F)
        }
        return acc
    }

    /// [k]self by the GLV endomorphism: two 128-bit halves share one chain of doublings.
    public func times(_ k: PallasScalar) -> PallasPoint { times(PallasGLVScalar(k)) }

    /// [k]self for a scalar split once (an incoming viewing key tried on many ephemeral keys):
    /// [k1]P + [k2]φ(P) by 4-bit windows over both at once, every table entry read, so that
    /// the time and memory accesses depend on neither half nor its sign.
    public func times(_ k: PallasGLVScalar) -> PallasPoint {
        var table1 = multiples()
        var table2 = table1.map { PallasPoint(x: $0.x * PallasGLV.zeta, y: $0.y, z: $0.z) }
        for i in 1..<16 {
            table1[i].y = PallasBase.select(mask: k.negativeMask1, table1[i].y.negated, table1[i].y)
            table2[i].y = PallasBase.select(mask: k.negativeMask2, table2[i].y.negated, table2[i].y)
        }
        var acc = PallasPoint.identity
        for w in stride(from: PallasGLVScalar.windows - 1, through: 0, by: -1) {
            acc = acc.doubled().doubled().doubled().doubled()
            acc = acc + Self.pick(table1, k.digits1[w]) + Self.pick(table2, k.digits2[w])
        }
        return acc
    }

    /// [0]self … [15]self.
    private func multiples() -> [PallasPoint] {
        var table = [PallasPoint](repeating: .identity, count: 16)
        table[1] = self
        for i in 2..<16 { table[i] = i % 2 == 0 ? table[i / 2].doubled() : table[i - 1] + self }
        return table
    }

    /// table[digit], reading every entry.
    @inline(__always) private static func pick(_ table: [PallasPoint], _ digit: UInt8) -> PallasPoint {
        var x = Limbs.zero, y = PallasBase.one.mont, z = Limbs.zero
        for i in 0..<16 {
            let mask = ConstantTime.equalMask(UInt64(i), UInt64(digit))
            x = Limbs.select(mask, table[i].x.mont, x)
            y = Limbs.select(mask, table[i].y.mont, y)
            z = Limbs.select(mask, table[i].z.mont, z)
        }
        return PallasPoint(x: PallasBase(mont: x), y: PallasBase(mont: y), z: PallasBase(mont: z))
    }
}

/// Pallas's GLV endomorphism φ(x, y) = (ζx, y) = [λ](x, y), and the short basis of the
/// lattice {(a, b) : a + bλ ≡ 0 mod q} that splits a scalar. Every number here is made from p
/// and q alone by scripts/pallas-glv.py, and PallasTests checks each against its definition.
enum PallasGLV {
    /// ζ, a cube root of unity in F_p.
    static let zeta = PallasBase(
        canonical: Limbs(0x7B7F_D22F_0201_B547, 0x0527_0D29_D19F_C7D2, 0xD355_2A23_A855_4E50, 0x2D33_357C_B532_458E))
    /// λ, the cube root of unity in F_q with [λ]P = φ(P).
    static let lambda = PallasScalar(
        canonical: Limbs(0x619D_1840_AF55_F1B1, 0x1259_527E_C1D4_752E, 0xAEE2_4B27_E308_F0A6, 0x397E_65A7_D7C1_AD71))
    /// The basis v1 = (a1, −b1abs), v2 = (a2, b2); a1 = b2.
    static let a1 = PallasScalar(canonical: Limbs(0x8CB1_2793_0000_0000, 0x49E6_9D16_40A8_9953, 0, 0))
    static let b1abs = PallasScalar(canonical: Limbs(0x7FCA_E1C7_0000_0001, 0x49E6_9D16_40F0_4915, 0, 0))
    static let a2 = PallasScalar(canonical: Limbs(0x0C7C_095A_0000_0001, 0x93CD_3A2C_8198_E269, 0, 0))
    static let b2 = a1
    /// ⌊b2·2^256 / q⌋ and ⌊|b1|·2^256 / q⌋ (129 bits): β = ⌊k·g / 2^256⌋ rounds k's
    /// coordinates in the basis.
    static let g1 = (UInt64(0x32C4_9E4B_FFFF_FFFF), UInt64(0x279A_7459_02A2_654E), UInt64(1))
    static let g2 = (UInt64(0xFF2B_871C_0000_0003), UInt64(0x279A_7459_03C1_2455), UInt64(1))

    /// ⌊k·g / 2^256⌋ for k < 2^256, g < 2^192: under 2^192, as a field element (< q).
    static func mulShift(_ k: Limbs, _ g: (UInt64, UInt64, UInt64)) -> PallasScalar {
        var product = [UInt64](repeating: 0, count: 7)
        for (i, ki) in [k.l0, k.l1, k.l2, k.l3].enumerated() {
            var carry: UInt64 = 0
            for (j, gj) in [g.0, g.1, g.2].enumerated() { product[i + j] = mac(product[i + j], ki, gj, &carry) }
            product[i + 3] = carry
        }
        return PallasScalar(canonical: Limbs(product[4], product[5], product[6], 0))
    }
}

/// A scalar k split as k1 + k2·λ (mod q) with |k1|, |k2| < 2^132, kept as each half's sign
/// and 4-bit digits of its magnitude, least significant first; and each half as signed 4-bit
/// digits in [−8, 8] with its sign folded in (for CCurveBatch's 9-entry tables). Made once
/// per key.
public struct PallasGLVScalar: Sendable {
    static let windows = 33
    let digits1: [UInt8]
    let digits2: [UInt8]
    /// All ones where a half is negative, else 0 (a key's: masks, not Bools to branch on).
    let negativeMask1: UInt64
    let negativeMask2: UInt64
    var negative1: Bool { negativeMask1 != 0 }
    var negative2: Bool { negativeMask2 != 0 }
    let signed1: [Int8]
    let signed2: [Int8]

    public init(_ k: PallasScalar) {
        let value = k.canonical
        let beta1 = PallasGLV.mulShift(value, PallasGLV.g1), beta2 = PallasGLV.mulShift(value, PallasGLV.g2)
        // (k1, k2) = (k, 0) − β1·v1 − β2·v2, with v1 = (a1, −|b1|), v2 = (a2, b2).
        let k1 = k - beta1 * PallasGLV.a1 - beta2 * PallasGLV.a2
        let k2 = beta1 * PallasGLV.b1abs - beta2 * PallasGLV.b2
        (digits1, negativeMask1) = Self.signedDigits(k1)
        (digits2, negativeMask2) = Self.signedDigits(k2)
        signed1 = Self.recoded(digits1, negativeMask: negativeMask1)
        signed2 = Self.recoded(digits2, negativeMask: negativeMask2)
    }

    /// Digits in [0, 15] as digits in [−7, 8] (a digit over 8 becomes d − 16 and carries 1),
    /// negated for a negative half; by arithmetic, not by branch: the digits are a key's.
    static func recoded(_ digits: [UInt8], negativeMask: UInt64) -> [Int8] {
        // Wrapping operations only: Swift's checked ones branch on their overflow flag.
        let flip = Int(truncatingIfNeeded: negativeMask)  // −1 negates: (d ^ −1) − (−1) = −d
        var carry = 0
        let out = digits.map { digit -> Int8 in
            let v = Int(digit) &+ carry
            carry = ((8 &- v) >> 63) & 1  // 1 when v > 8
            return Int8(truncatingIfNeeded: ((v &- 16 &* carry) ^ flip) &- flip)
        }
        // Public by design: no carry leaves the top for any key (a GLV half's bound, which
        // PallasTests checks; a Jubjub scalar's 252 bits), so the outcome tells nothing.
        precondition(ConstantTime.declassified(carry == 0), "a GLV half is out of its bound")
        return out
    }

    /// A small signed value's sign and magnitude digits: a value mod q with its top word set
    /// is a negative one (q − m for m < 2^132), chosen by mask, not by branch.
    private static func signedDigits(_ x: PallasScalar) -> ([UInt8], negativeMask: UInt64) {
        let c = x.canonical, minus = x.negated.canonical
        let mask = 0 &- ((c.l3 | (0 &- c.l3)) >> 63)
        let m = Limbs.select(mask, minus, c)
        // Public by design, as in recoded: every key's halves are within the bound.
        precondition(ConstantTime.declassified(m.l3 | (m.l2 >> 4) == 0), "a GLV half is out of its bound")
        var digits = [UInt8](repeating: 0, count: windows)
        for i in 0..<windows { digits[i] = UInt8(truncatingIfNeeded: m.word(i / 16) >> UInt64(4 * (i % 16))) & 0x0F }
        return (digits, mask)
    }
}

/// GroupHash^P (hash_to_curve, §5.4.9.8 of the protocol): BLAKE2b-512 expand_message_xmd,
/// simplified SWU on iso-Pallas, its 3-isogeny to Pallas, the two points added.
public enum PallasGroupHash {
    /// iso-Pallas: y² = x³ + A′x + B′.
    static let isoA = PallasBase(hex: "18354a2eb0ea8c9c49be2d7258370742b74134581a27a59f92bb4b0b657a014b")
    static let isoB = PallasBase(1265)
    static let z = PallasBase(13).negated
    static let c1 = isoB.negated * isoA.inverse
    static let c2 = PallasBase.one.negated * z.inverse

    /// The 3-isogeny's 13 coefficients (iso_map of the hash-to-curve draft, Pallas's constants).
    static let iso: [PallasBase] = [
        "0e38e38e38e38e38e38e38e38e38e38e4081775473d8375b775f6034aaaaaaab",
        "3509afd51872d88e267c7ffa51cf412a0f93b82ee4b994958cf863b02814fb76",
        "17329b9ec525375398c7d7ac3d98fd13380af066cfeb6d690eb64faef37ea4f7",
        "1c71c71c71c71c71c71c71c71c71c71c8102eea8e7b06eb6eebec06955555580",
        "1d572e7ddc099cff5a607fcce0494a799c434ac1c96b6980c47f2ab668bcd71f",
        "325669becaecd5d11d13bf2a7f22b105b4abf9fb9a1fc81c2aa3af1eae5b6604",
        "1a12f684bda12f684bda12f684bda12f7642b01ad461bad25ad985b5e38e38e4",
        "1a84d7ea8c396c47133e3ffd28e7a09507c9dc17725cca4ac67c31d8140a7dbb",
        "3fb98ff0d2ddcadd303216cce1db9ff11765e924f745937802e2be87d225b234",
        "025ed097b425ed097b425ed097b425ed0ac03e8e134eb3e493e53ab371c71c4f",
        "0c02c5bcca0e6b7f0790bfb3506defb65941a3a4a97aa1b35a28279b1d1b42ae",
        "17033d3c60c68173573b3d7f7d681310d976bbfabbc5661d4d90ab820b12320a",
        "40000000000000000000000000000000224698fc094cf91b992d30ecfffffde5",
    ].map(PallasBase.init(hex:))

    /// GroupHash^P(D, M).
    public static func hash(domain: [UInt8], message: [UInt8]) -> PallasPoint {
        let dst = domain + Array("-pallas_XMD:BLAKE2b_SSWU_RO_".utf8)
        let uniform = expandMessageXMD(message, dst: dst, length: 128)
        // Each element: 64 bytes read big-endian, reduced mod p.
        let u0 = PallasBase(wide: Array(uniform[0..<64].reversed())), u1 = PallasBase(wide: Array(uniform[64..<128].reversed()))
        return isoMap(mapToIsoCurve(u0)) + isoMap(mapToIsoCurve(u1))
    }

    public static func hash(domain: String, message: [UInt8]) -> PallasPoint { hash(domain: Array(domain.utf8), message: message) }

    /// expand_message_xmd with BLAKE2b-512 (b = 64, r = 128 bytes).
    static func expandMessageXMD(_ message: [UInt8], dst: [UInt8], length: Int) -> [UInt8] {
        precondition(dst.count <= 255 && length <= 255 * 64)
        let ell = (length + 63) / 64
        let dstPrime = dst + [UInt8(dst.count)]
        let none = [UInt8](repeating: 0, count: 16)
        let b0 = Blake2.b(
            64, personal: none, [UInt8](repeating: 0, count: 128), message,
            [UInt8(length >> 8), UInt8(length & 0xFF), 0], dstPrime)
        var blocks = [Blake2.b(64, personal: none, b0, [1], dstPrime)]
        for i in 2...max(ell, 2) where i <= ell {
            blocks.append(Blake2.b(64, personal: none, zip(b0, blocks[i - 2]).map { $0 ^ $1 }, [UInt8(i)], dstPrime))
        }
        return Array(blocks.joined().prefix(length))
    }

    /// Simplified SWU onto iso-Pallas (the draft's straight-line form; u is public).
    static func mapToIsoCurve(_ u: PallasBase) -> (x: PallasBase, y: PallasBase) {
        let tv1 = z * u.squared()
        var tv2 = tv1.squared()
        var x1 = (tv1 + tv2).inverse  // 0 for 0
        let exceptional = x1.isZero
        x1 = x1 + .one
        if exceptional { x1 = c2 }
        x1 = x1 * c1
        let gx1 = (x1.squared() + isoA) * x1 + isoB
        let x2 = tv1 * x1
        tv2 = tv1 * tv2
        let gx2 = gx1 * tv2
        let (x, y2) = gx1.squareRoot != nil ? (x1, gx1) : (x2, gx2)
        var y = y2.squareRoot!
        if u.sign != y.sign { y = y.negated }
        return (x, y)
    }

    /// The 3-isogeny from iso-Pallas to Pallas.
    static func isoMap(_ p: (x: PallasBase, y: PallasBase)) -> PallasPoint {
        let c = iso, x = p.x, x2 = x.squared(), x3 = x2 * x
        let numA = c[0] * x3 + c[1] * x2 + c[2] * x + c[3]
        let denA = x2 + c[4] * x + c[5]
        let numB = (c[6] * x3 + c[7] * x2 + c[8] * x + c[9]) * p.y
        let denB = x3 + c[10] * x2 + c[11] * x + c[12]
        // (numA/denA, numB/denB) = (numA·denB : numB·denA : denA·denB), one inversion saved.
        return PallasPoint(x: numA * denB, y: numB * denA, z: denA * denB)
    }
}

/// Sinsemilla (§5.4.1.9): a hash to a Pallas point over 10-bit chunks.
public enum Sinsemilla {
    static let k = 10

    /// S_i = GroupHash^P("z.cash:SinsemillaS", I2LEOSP32(i)), for the 1,024 chunk values.
    static let s: [PallasPoint] = (0..<1024).map { i in
        PallasGroupHash.hash(domain: "z.cash:SinsemillaS", message: [UInt8(i & 0xFF), UInt8(i >> 8), 0, 0])
    }

    /// The S_i in affine form, x then y in Montgomery words, one after another: the table a
    /// chunk's point is read from by a scan of every entry. (No S_i is the identity.)
    static let affineS: [UInt64] = {
        let inverses = PallasBase.invertedAll(s.map(\.z))
        return zip(s, inverses).flatMap { p, zi -> [UInt64] in
            let x = (p.x * zi).mont, y = (p.y * zi).mont
            return [x.l0, x.l1, x.l2, x.l3, y.l0, y.l1, y.l2, y.l3]
        }
    }()

    /// SinsemillaHashToPoint(D, M) for M as bits (each 0 or 1), padded with zeros to whole chunks.
    /// The message is often secret (ak ‖ nk in CommitIvk, a note in NoteCommit): each chunk's
    /// S is read by a masked scan of all 1,024, and its bits are gathered by arithmetic.
    public static func hashToPoint(domain: [UInt8], bits: [UInt8]) -> PallasPoint {
        var acc = PallasGroupHash.hash(domain: Array("z.cash:SinsemillaQ".utf8), message: domain)
        var i = 0
        while i < bits.count {
            var chunk: UInt64 = 0
            for j in 0..<k where i + j < bits.count { chunk |= UInt64(bits[i + j] & 1) << UInt64(j) }
            acc = (acc + lookup(chunk)) + acc
            i += k
        }
        return acc
    }

    /// S_chunk, every entry of the table read.
    private static func lookup(_ chunk: UInt64) -> PallasPoint {
        var x = Limbs.zero, y = Limbs.zero
        affineS.withUnsafeBufferPointer { t in
            for i in 0..<1024 {
                let mask = ConstantTime.equalMask(UInt64(i), chunk), e = 8 * i
                x = Limbs.select(mask, Limbs(t[e], t[e + 1], t[e + 2], t[e + 3]), x)
                y = Limbs.select(mask, Limbs(t[e + 4], t[e + 5], t[e + 6], t[e + 7]), y)
            }
        }
        return PallasPoint(affineX: PallasBase(mont: x), affineY: PallasBase(mont: y))
    }

    /// SinsemillaHash: Extract_P of the point.
    public static func hash(domain: [UInt8], bits: [UInt8]) -> PallasBase { hashToPoint(domain: domain, bits: bits).extracted }

    /// SinsemillaCommit_r(D, M) = HashToPoint(D‖"-M", M) + [r]·GroupHash^P(D‖"-r", "").
    public static func commit(domain: String, bits: [UInt8], r: PallasScalar) -> PallasPoint {
        hashToPoint(domain: Array((domain + "-M").utf8), bits: bits)
            + PallasGroupHash.hash(domain: domain + "-r", message: []).times(r)
    }

    /// SinsemillaShortCommit: Extract_P of the commitment.
    public static func shortCommit(domain: String, bits: [UInt8], r: PallasScalar) -> PallasBase {
        commit(domain: domain, bits: bits, r: r).extracted
    }
}
