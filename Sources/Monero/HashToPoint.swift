import WalletCore
import WalletCrypto

/// Monero's hash_to_ec (crypto.cpp): Hp(P) = 8 · ge_fromfe_frombytes_vartime(Keccak-256(P)),
/// the Elligator-like map of crypto-ops.c, over FieldElement (mod p = 2^255 − 19). It runs on
/// public data (output keys), for the wallet's own outputs only; tested against Monero's vectors.
public enum MoneroHashToPoint {
    typealias F = FieldElement
    static let a = F(486662)
    // Exponents: (p+3)/8 = 2^252 − 2, (p−1)/4 = 2^253 − 5.
    static let expSqrt = F.powerOfTwoMinus(252, 2)
    /// √−1 = 2^((p−1)/4).
    static let sqrtM1 = F(2).power(F.powerOfTwoMinus(253, 5))

    /// A square root (p ≡ 5 mod 8); which of the two does not matter here, because the map
    /// fixes the sign of x itself.
    static func sqrt(_ x: F) -> F {
        let r = x.power(expSqrt)
        return (r * r - x).isZero ? r : r * sqrtM1
    }

    static let aTimesAPlus2 = a * (a + F(2))
    static let fffb1 = sqrt(-(F(2) * aTimesAPlus2))  // √(−2A(A+2))
    static let fffb2 = sqrt(F(2) * aTimesAPlus2)  // √(2A(A+2))
    static let fffb3 = sqrt(-(sqrtM1 * aTimesAPlus2))  // √(−√−1·A(A+2))
    static let fffb4 = sqrt(sqrtM1 * aTimesAPlus2)  // √(√−1·A(A+2))

    /// ge_fromfe_frombytes_vartime: the encoded point for 32 bytes read as a 256-bit
    /// little-endian integer (the top bit included, as Monero's loader does) mod p.
    static func fromFieldBytes(_ s: [UInt8]) -> [UInt8] { map(s).bytes }

    /// The same map, as a point in extended coordinates.
    static func map(_ s: [UInt8]) -> EdwardsPoint {
        let u = F(bytes: s)
        let v = F(2) * u * u  // 2u²
        let w = v + F.one  // 2u² + 1
        let x = w * w - a * a * v  // w² − 2A²u²
        // (w/x)^((p+3)/8) as ref10's fe_divpowm1: w·x³·(w·x⁷)^((p−5)/8)
        let x3 = x * x * x
        var rx = w * x3 * (w * x3 * x3 * x).powPMinus5Over8()
        let y = rx * rx * x
        let z: F
        let sign: Bool
        if (w - y).isZero || (w + y).isZero {
            rx = rx * ((w - y).isZero ? fffb2 : fffb1) * u
            z = -a * v  // −2Au²
            sign = false
        } else {
            rx = rx * ((w - y * sqrtM1).isZero ? fffb4 : fffb3)
            z = -a
            sign = true
        }
        if rx.isOdd != sign { rx = -rx }
        // Projective (X : Y : Z) = (rx·(z + w) : z − w : z + w); extended (XZ : YZ : Z² : XY).
        let bigZ = z + w, bigY = z - w, bigX = rx * bigZ
        return EdwardsPoint(x: bigX * bigZ, y: bigY * bigZ, z: bigZ * bigZ, t: bigX * bigY)
    }

    /// Hp(P) = 8 · map(Keccak-256(P)), doubled three times before its one encoding.
    public static func hashToPoint(_ key: [UInt8]) -> [UInt8]? {
        map(Keccak256.hash(key)).doubled().doubled().doubled().bytes
    }

    /// The key image x·Hp(P) of an output key P whose private key is x.
    public static func keyImage(outputKey: [UInt8], secret: SecureBytes) -> [UInt8]? {
        guard let hp = hashToPoint(outputKey) else { return nil }
        return secret.withUnsafeBytes { Ed25519.multiply(bytes: Array($0), hp) }
    }
}
