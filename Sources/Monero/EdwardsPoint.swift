/// Points of Ed25519 (−x² + y² = 1 + d·x²·y²) in extended coordinates (X:Y:Z:T, x = X/Z,
/// y = Y/Z, T = XY/Z), for the scan's work on public points: Pedersen's H times an amount, and
/// the ×8 of hash_to_ec. libsodium's point functions take and return encoded bytes, so each
/// one decodes its inputs (a square root) and encodes its result (an inversion); chained
/// operations here pay that once. Variable time: only public data passes through.
struct EdwardsPoint {
    var x, y, z, t: FieldElement

    typealias F = FieldElement
    static let d = -(F(121665) * F(121666).inverse())
    static let d2 = d + d
    static let sqrtM1 = F(2).power(F.powerOfTwoMinus(253, 5))
    static let identity = EdwardsPoint(x: .zero, y: .one, z: .one, t: .zero)

    /// Decodes 32 bytes (y, with the sign of x in the top bit); nil when no point has them.
    init?(bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        var yBytes = bytes
        yBytes[31] &= 0x7F
        let y = F(bytes: yBytes)
        guard y.bytes == yBytes else { return nil }  // non-canonical y
        let yy = y.squared()
        let u = yy - .one, v = Self.d * yy + .one
        // x = √(u/v) = u·v³·(u·v⁷)^((p−5)/8), times √−1 when that squares to −u/v.
        let v3 = v.squared() * v
        var x = u * v3 * (u * v3.squared() * v).powPMinus5Over8()
        let check = v * x.squared()
        if !(check - u).isZero {
            guard (check + u).isZero else { return nil }
            x = x * Self.sqrtM1
        }
        let sign = bytes[31] >> 7 == 1
        if x.isZero && sign { return nil }
        if x.isOdd != sign { x = -x }
        self.init(x: x, y: y, z: .one, t: x * y)
    }

    init(x: FieldElement, y: FieldElement, z: FieldElement, t: FieldElement) {
        (self.x, self.y, self.z, self.t) = (x, y, z, t)
    }

    /// The 32-byte encoding: y, with x's low bit on top.
    var bytes: [UInt8] {
        let inverse = z.inverse()
        var out = (y * inverse).bytes
        out[31] |= UInt8(truncatingIfNeeded: (x * inverse).lowBit) << 7  // by arithmetic: often a shared secret
        return out
    }

    /// P + Q (add-2008-hwcd-3, complete for a = −1).
    static func + (p: EdwardsPoint, q: EdwardsPoint) -> EdwardsPoint {
        let a = (p.y - p.x) * (q.y - q.x)
        let b = (p.y + p.x) * (q.y + q.x)
        let c = p.t * d2 * q.t
        let dd = (p.z + p.z) * q.z
        let e = b - a, f = dd - c, g = dd + c, h = b + a
        return EdwardsPoint(x: e * f, y: g * h, z: f * g, t: e * h)
    }

    /// 2P (dbl-2008-hwcd with a = −1); T of the input is not used.
    func doubled() -> EdwardsPoint {
        let a = x.squared(), b = y.squared()
        let c = z.squared() + z.squared()
        let e = (x + y).squared() - a - b
        let g = b - a  // a·A + B with a = −1
        let f = g - c
        let h = -(a + b)  // a·A − B
        return EdwardsPoint(x: e * f, y: g * h, z: f * g, t: e * h)
    }
}

/// Multiples of Monero's second Pedersen generator H for 64-bit amounts: one table row per
/// amount byte (b·256^j·H), so amount·H is at most seven additions and one encoding.
package enum PedersenH {
    static let encoded: [UInt8] = [
        0x8b, 0x65, 0x59, 0x70, 0x15, 0x37, 0x99, 0xaf, 0x2a, 0xea, 0xdc, 0x9f, 0xf1, 0xad, 0xd0, 0xea,
        0x6c, 0x72, 0x51, 0xd5, 0x41, 0x54, 0xcf, 0xa9, 0x2c, 0x17, 0x3a, 0x0d, 0xd3, 0x9c, 0x1f, 0x94,
    ]

    static let table: [[EdwardsPoint]] = {
        var rows = [[EdwardsPoint]]()
        var base = EdwardsPoint(bytes: encoded)!
        for _ in 0..<8 {
            var row = [EdwardsPoint.identity, base]
            for _ in 2..<256 { row.append(row[row.count - 1] + base) }
            rows.append(row)
            for _ in 0..<8 { base = base.doubled() }
        }
        return rows
    }()

    /// amount·H, encoded.
    package static func times(_ amount: UInt64) -> [UInt8] {
        var sum: EdwardsPoint?
        for j in 0..<8 {
            let byte = Int(truncatingIfNeeded: amount >> (8 * UInt64(j))) & 0xFF
            guard byte != 0 else { continue }
            sum = sum.map { $0 + table[j][byte] } ?? table[j][byte]
        }
        return (sum ?? .identity).bytes
    }
}
