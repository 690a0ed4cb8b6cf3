import WalletCore
import WalletCrypto

/// Jubjub: the twisted Edwards curve −u² + v² = 1 + d·u²·v² over Fq (Zcash protocol §5.4.9.3),
/// in extended coordinates (X:Y:Z:T), u = X/Z, v = Y/Z, T = XY/Z.
///
/// The addition law (add-2008-hwcd-3 with a = −1) is complete here because −1 is a square and
/// d is not, so no input needs a special case and a scalar multiplication has one shape.
public struct JubjubPoint: Sendable {
    var x, y, z, t: Fq

    /// d = −10240/10241.
    static let d = Fq(
        bytes: Limbs(0x0106_5FD6_D634_3EB1, 0x292D_7F6D_3757_9D26, 0xF5FD_9207_E6BD_7FD4, 0x2A93_18E7_4BFA_2B48).littleEndianBytes)!
    static let d2 = d + d

    public static let identity = JubjubPoint(x: .zero, y: .one, z: .one, t: .zero)

    init(x: Fq, y: Fq, z: Fq, t: Fq) { self.x = x; self.y = y; self.z = z; self.t = t }

    init(u: Fq, v: Fq) { self.init(x: u, y: v, z: .one, t: u * v) }

    public static func + (p: JubjubPoint, q: JubjubPoint) -> JubjubPoint {
        let a = (p.y - p.x) * (q.y - q.x)
        let b = (p.y + p.x) * (q.y + q.x)
        let c = p.t * d2 * q.t
        let dd = p.z * q.z
        let d = dd + dd
        let e = b - a, f = d - c, g = d + c, h = b + a
        return JubjubPoint(x: e * f, y: g * h, z: f * g, t: e * h)
    }

    public func doubled() -> JubjubPoint { doubled(withT: true) }

    /// Doubling reads X, Y, Z only; T (one multiplication) is needed only before an addition.
    @inline(__always) func doubled(withT: Bool) -> JubjubPoint {
        let a = x.squared(), b = y.squared()
        let zz = z.squared()
        let c = zz + zz
        let dA = a.negated
        let e = (x + y).squared() - a - b
        let g = dA + b, f = g - c, h = dA - b
        return JubjubPoint(x: e * f, y: g * h, z: f * g, t: withT ? e * h : .zero)
    }

    public var negated: JubjubPoint { JubjubPoint(x: x.negated, y: y, z: z, t: t.negated) }

    /// Whether this is the identity (0, 1): u = 0 and v = 1 (X = 0, Y = Z).
    public var isIdentity: Bool { x.zeroMask & (y - z).zeroMask != 0 }  // masks: no short-circuit branch

    /// [8]P: clears the cofactor.
    public func timesCofactor() -> JubjubPoint { doubled(withT: false).doubled(withT: false).doubled(withT: true) }

    /// repr_J: v in 32 little-endian bytes with u's low bit in bit 255.
    public var bytes: [UInt8] {
        let zi = z.inverse
        return Self.encoding(u: x * zi, v: y * zi)
    }

    /// repr_J of every point, their Z inverted together (Montgomery's trick): one field
    /// inversion for all instead of one each (Z is never 0 on this complete curve).
    public static func encodeAll(_ points: [JubjubPoint]) -> [[UInt8]] {
        zip(points, Fq.invertedAll(points.map(\.z))).map { p, zi in encoding(u: p.x * zi, v: p.y * zi) }
    }

    private static func encoding(u: Fq, v: Fq) -> [UInt8] {
        var out = v.bytes
        out[31] |= UInt8(truncatingIfNeeded: u.lowBit) << 7  // by arithmetic: u may be a shared secret's
        return out
    }

    /// abst_J: nil when v is not canonical, when no u fits, or for the non-canonical u = 0 with
    /// its sign bit set (ZIP-216).
    public init?(bytes: [UInt8]) {
        guard let (v, sign) = Self.coordinate(bytes) else { return nil }
        let vv = v.squared()
        // d·v² + 1 ≠ 0 since d is not a square.
        guard let point = Self.finish(v: v, vv: vv, inverseDenominator: (JubjubPoint.d * vv + .one).inverse, sign: sign) else { return nil }
        self = point
    }

    /// `JubjubPoint(bytes:)` of every encoding, the denominators d·v² + 1 inverted together
    /// (Montgomery's trick): one field inversion for all instead of one each.
    public static func decodeAll(_ encodings: [[UInt8]]) -> [JubjubPoint?] {
        let given = encodings.map(coordinate)
        let squares = given.map { $0.map { $0.0.squared() } }
        // An encoding that gives no v takes 1, which it does not read.
        let inverses = Fq.invertedAll(squares.map { $0.map { d * $0 + .one } ?? .one })
        return encodings.indices.map { i in
            guard let (v, sign) = given[i], let vv = squares[i] else { return nil }
            return finish(v: v, vv: vv, inverseDenominator: inverses[i], sign: sign)
        }
    }

    /// v and the sign bit of an encoding; nil for a wrong length or a non-canonical v.
    private static func coordinate(_ bytes: [UInt8]) -> (Fq, Bool)? {
        guard bytes.count == 32 else { return nil }
        var vBytes = bytes
        let sign = vBytes[31] >> 7 == 1
        vBytes[31] &= 0x7F
        guard let v = Fq(bytes: vBytes) else { return nil }
        return (v, sign)
    }

    /// The point with v, u from u² = (v² − 1)/(d·v² + 1) and the sign (ZIP 216: u = 0 only
    /// without it); nil where u² has no root.
    private static func finish(v: Fq, vv: Fq, inverseDenominator: Fq, sign: Bool) -> JubjubPoint? {
        guard var u = ((vv - .one) * inverseDenominator).squareRoot else { return nil }
        if u.isZero && sign { return nil }
        if u.isOdd != sign { u = u.negated }
        return JubjubPoint(u: u, v: v)
    }

    /// `a` where mask is all ones, `b` where it is 0.
    @inline(__always) static func select(mask: UInt64, _ a: JubjubPoint, _ b: JubjubPoint) -> JubjubPoint {
        JubjubPoint(
            x: .select(mask: mask, a.x, b.x), y: .select(mask: mask, a.y, b.y),
            z: .select(mask: mask, a.z, b.z), t: .select(mask: mask, a.t, b.t))
    }

    /// [k]P for a secret scalar: 4-bit fixed windows over all 256 bits, each table entry read
    /// by a masked scan of the whole table, so time and memory accesses do not depend on k.
    public func times(_ k: Fr) -> JubjubPoint {
        times(littleEndian: k.bytes)
    }

    /// [k]P for a 256-bit little-endian integer k (not reduced), constant time in k.
    public func times(littleEndian k: [UInt8]) -> JubjubPoint {
        precondition(k.count == 32)
        var table = [JubjubPoint](repeating: .identity, count: 16)
        for i in 1..<16 { table[i] = table[i - 1] + self }
        return table.withUnsafeBufferPointer { table in
            var acc = JubjubPoint.identity
            for nibbleIndex in stride(from: 63, through: 0, by: -1) {
                let nibble = UInt64(k[nibbleIndex / 2] >> (nibbleIndex % 2 == 1 ? 4 : 0) & 0xF)
                acc = acc.doubled(withT: false).doubled(withT: false).doubled(withT: false).doubled(withT: true)
                var entry = JubjubPoint.identity
                for i in 0..<16 { entry = .select(mask: ConstantTime.equalMask(nibble, UInt64(i)), table[i], entry) }
                acc = acc + entry
            }
            return acc
        }
    }

    /// Equality of the points (cross-multiplied, so any Z).
    public static func == (p: JubjubPoint, q: JubjubPoint) -> Bool {
        p.x * q.z == q.x * p.z && p.y * q.z == q.y * p.z
    }
}

/// Group hashes into Jubjub's prime-order subgroup (Zcash protocol §5.4.9.5).
public enum GroupHash {
    /// The uniform random string of the protocol: the hex digits of a Bitcoin block hash, as ASCII.
    static let urs = Array("096b36a5804bfacef1691e173c366a47ff5ba84a44f26ddd7e8d9f79d5b42df0".utf8)

    /// GroupHash^J(D, M): nil when the hash is no point or its [8]-multiple is the identity.
    public static func jubjub(personal: String, _ message: [UInt8]) -> JubjubPoint? {
        let h = Blake2.s256(personal: Array(personal.utf8), urs, message)
        guard let p = JubjubPoint(bytes: h) else { return nil }
        let q = p.timesCofactor()
        return q.isIdentity ? nil : q
    }

    /// FindGroupHash^J(D, M): the first success with a counter byte 0, 1, … appended.
    public static func find(personal: String, _ message: [UInt8]) -> JubjubPoint {
        for i in 0...255 {
            if let p = jubjub(personal: personal, message + [UInt8(i)]) { return p }
        }
        preconditionFailure("FindGroupHash found no point in 256 tries")  // probability 2^-256
    }
}

/// Sapling's fixed generators (§5.4.8.3), derived from their personalizations at first use.
public enum SaplingGenerators {
    /// G, the spend-authorizing key base: ak = [ask]G.
    public static let spendAuth = GroupHash.find(personal: "Zcash_G_", [])
    /// H, the proof-generation key base: nk = [nsk]H.
    public static let proofGeneration = GroupHash.find(personal: "Zcash_H_", [])
    /// J, the nullifier position base.
    public static let nullifierPosition = GroupHash.find(personal: "Zcash_J_", [])
    /// The NoteCommit randomness base.
    public static let noteCommitRandomness = GroupHash.find(personal: "Zcash_PH", Array("r".utf8))
    /// The value-commitment bases.
    public static let valueCommitValue = GroupHash.find(personal: "Zcash_cv", Array("v".utf8))
    public static let valueCommitRandomness = GroupHash.find(personal: "Zcash_cv", Array("r".utf8))

    /// I_i of the Pedersen hash with personalization "Zcash_PH", i from 1.
    public static func pedersen(_ i: Int) -> JubjubPoint {
        let n = UInt32(i - 1)
        return GroupHash.find(personal: "Zcash_PH", [UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 24)])
    }
}
