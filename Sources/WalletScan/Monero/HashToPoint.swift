import BigInt
import Foundation
import WalletCore

/// Monero's hash_to_ec (crypto.cpp): Hp(P) = 8 · ge_fromfe_frombytes_vartime(Keccak-256(P)),
/// the Elligator-like map of crypto-ops.c, here over arbitrary-precision integers mod
/// p = 2^255 − 19. It runs on public data (output keys) and only for the wallet's own outputs,
/// so neither speed nor constant time matters; exactness does (tested against Monero's vectors).
public enum MoneroHashToPoint {
    static let p = (BigUInt(1) << 255) - 19
    static let a = BigUInt(486662)
    /// √−1 = 2^((p−1)/4).
    static let sqrtM1 = BigUInt(2).power((p - 1) / 4, modulus: p)

    static func mod(_ x: BigUInt) -> BigUInt { x % p }
    static func neg(_ x: BigUInt) -> BigUInt { mod(p - mod(x)) }
    static func sub(_ x: BigUInt, _ y: BigUInt) -> BigUInt { mod(mod(x) + p - mod(y)) }
    static func mul(_ x: BigUInt, _ y: BigUInt) -> BigUInt { mod(x * y) }

    /// A square root mod p (p ≡ 5 mod 8); which of the two does not matter here, because the
    /// map fixes the sign of x itself.
    static func sqrt(_ x: BigUInt) -> BigUInt {
        let r = x.power((p + 3) / 8, modulus: p)
        return mul(r, r) == mod(x) ? r : mul(r, sqrtM1)
    }

    static let aTimesAPlus2 = mul(a, a + 2)
    static let fffb1 = sqrt(neg(mul(2, aTimesAPlus2)))      // √(−2A(A+2))
    static let fffb2 = sqrt(mul(2, aTimesAPlus2))           // √(2A(A+2))
    static let fffb3 = sqrt(neg(mul(sqrtM1, aTimesAPlus2))) // √(−√−1·A(A+2))
    static let fffb4 = sqrt(mul(sqrtM1, aTimesAPlus2))      // √(√−1·A(A+2))

    /// ge_fromfe_frombytes_vartime: the encoded point for 32 bytes read as a 256-bit
    /// little-endian integer (the top bit included, as Monero's loader does) mod p.
    static func fromFieldBytes(_ s: [UInt8]) -> [UInt8] {
        let u = mod(BigUInt(Data(s.reversed())))
        let v = mul(2, mul(u, u))                       // 2u²
        let w = mod(v + 1)                              // 2u² + 1
        let x = sub(mul(w, w), mul(mul(a, a), v))       // w² − 2A²u²
        // (w/x)^((p+3)/8) as ref10's fe_divpowm1: w·x³·(w·x⁷)^((p−5)/8)
        let x3 = mul(mul(x, x), x)
        var rx = mul(mul(w, x3), mul(w, mul(x3, mul(x3, x))).power((p - 5) / 8, modulus: p))
        let y = mul(mul(rx, rx), x)
        var z: BigUInt
        let sign: Int
        if sub(w, y) == 0 || mod(w + y) == 0 {
            rx = mul(rx, sub(w, y) == 0 ? fffb2 : fffb1)
            rx = mul(rx, u)
            z = mul(neg(a), v)                          // −2Au²
            sign = 0
        } else {
            let ym = mul(y, sqrtM1)
            rx = mul(rx, sub(w, ym) == 0 ? fffb4 : fffb3)
            z = neg(a)
            sign = 1
        }
        if Int(rx & 1) != sign { rx = neg(rx) }
        let bigZ = mod(z + w)
        let bigY = sub(z, w)
        let bigX = mul(rx, bigZ)
        // Affine and encoded: y, with the sign (parity) of x in the top bit.
        let inverse = bigZ.power(p - 2, modulus: p)
        let affineX = mul(bigX, inverse), affineY = mul(bigY, inverse)
        var out = [UInt8](repeating: 0, count: 32)
        let yBytes = Array(affineY.serialize().reversed())
        for (i, b) in yBytes.enumerated() where i < 32 { out[i] = b }
        if affineX & 1 == 1 { out[31] |= 0x80 }
        return out
    }

    /// Hp(P) = 8 · map(Keccak-256(P)).
    public static func hashToPoint(_ key: [UInt8]) -> [UInt8]? {
        Ed25519.timesEight(fromFieldBytes(Keccak256.hash(key)))
    }

    /// The key image x·Hp(P) of an output key P whose private key is x.
    public static func keyImage(outputKey: [UInt8], secret: SecureBytes) -> [UInt8]? {
        guard let hp = hashToPoint(outputKey) else { return nil }
        return secret.withUnsafeBytes { Ed25519.multiply(bytes: Array($0), hp) }
    }
}
