import CCurveBatch
import WalletCore
import WalletCrypto

/// Many Jubjub points decoded, and times one scalar, batched: CCurveBatch's Edwards
/// ladder and square roots over 8 points per ladder on AVX-512 IFMA and AVX2, one field
/// inversion for all encodings and one for all decodings' denominators. Sapling's trial
/// decryption: KA^Sapling of one ivk with many epks. The portable path runs the Swift code (as
/// `PallasBatch`), with the same shared inversions (`JubjubPoint.decodeAll`, `encodeAll`).
public enum JubjubBatch {
    /// Whether `path` runs CCurveBatch's kernel here (else the Swift code).
    public static func hasOwnKernel(_ path: CurveBatchPath) -> Bool { CurveBatchCall.hasKernel(path) }

    /// F_q with Jubjub's d, in CCurveBatch's radix-2^52 Montgomery form; made once.
    private static let field: satchel_mod52 = {
        var m = satchel_mod52()
        let q = FqModulus.modulus, d = JubjubPoint.d.canonical
        var words = [q.l0, q.l1, q.l2, q.l3], dWords = [d.l0, d.l1, d.l2, d.l3]
        satchel_mod52_init(&m, &words)
        satchel_mod52_set_sqrt(&m, 5)  // 5 is the least non-square mod q
        satchel_mod52_set_edwards(&m, &dWords)
        return m
    }()

    /// A scalar as the kernel reads it: 64 signed 4-bit digits in [−8, 8]. Made once per key.
    public struct Scalar: Sendable {
        let value: Fr
        let digits: [Int8]

        public init(_ k: Fr) {
            value = k
            let c = k.canonical
            let nibbles = (0..<64).map { i in UInt8(truncatingIfNeeded: c.word(i / 16) >> UInt64(4 * (i % 16))) & 0x0F }
            digits = PallasGLVScalar.recoded(nibbles, negativeMask: 0)  // k < r < 2^252: no carry out
        }
    }

    /// repr_J([k]P), or repr_J([k]([8]P)) with `cofactor` (KA^Sapling.Agree with k = ivk), for
    /// every point.
    public static func encodedMultiples(_ points: [JubjubPoint], by k: Scalar, cofactor: Bool, path: CurveBatchPath = .inUse) -> [[UInt8]] {
        hasOwnKernel(path)
            ? kernelMultiples(points, by: k, cofactor: cofactor, path: path)
            : JubjubPoint.encodeAll(points.map { (cofactor ? $0.timesCofactor() : $0).times(k.value) })
    }

    /// `JubjubPoint(bytes:)` of every encoding.
    public static func decodeAll(_ encodings: [[UInt8]], path: CurveBatchPath = .inUse) -> [JubjubPoint?] {
        hasOwnKernel(path) ? kernelDecode(encodings, path: path) : JubjubPoint.decodeAll(encodings)
    }

    /// `encodedMultiples` by CCurveBatch's kernel on `path`, whichever it is (tests, oracles).
    public static func kernelMultiples(_ points: [JubjubPoint], by k: Scalar, cofactor: Bool, path: CurveBatchPath) -> [[UInt8]] {
        var flat = [UInt64]()
        flat.reserveCapacity(8 * points.count)
        for p in points {
            let zi = p.z == .one ? Fq.one : p.z.inverse
            let u = (p.x * zi).canonical, v = (p.y * zi).canonical
            flat.append(contentsOf: [u.l0, u.l1, u.l2, u.l3, v.l0, v.l1, v.l2, v.l3])
        }
        var m = field
        return CurveBatchCall.encodings(of: flat) { p, count, o in
            satchel_edwards_mul_batch(path.c, &m, k.digits, k.digits.count, cofactor ? 1 : 0, p, count, o)
        }
    }

    /// `decodeAll` by CCurveBatch's kernel on `path`, whichever it is (tests, oracles).
    public static func kernelDecode(_ encodings: [[UInt8]], path: CurveBatchPath) -> [JubjubPoint?] {
        let tried = encodings.indices.filter { encodings[$0].count == 32 }
        var out = [JubjubPoint?](repeating: nil, count: encodings.count)
        var m = field
        let words = CurveBatchCall.words(encodings, tried) { satchel_edwards_decode_batch(path.c, &m, $0, $1, $2, $3) }
        for (i, w) in zip(tried, words) {
            out[i] = w.map {
                JubjubPoint(u: Fq(canonical: Limbs($0[0], $0[1], $0[2], $0[3])), v: Fq(canonical: Limbs($0[4], $0[5], $0[6], $0[7])))
            }
        }
        return out
    }
}
