import CCurveBatch
import CSodium
import WalletCore
import WalletCrypto

/// Many Pallas points decoded, and times one scalar, batched: CCurveBatch's GLV
/// ladder and square roots over 8 points per ladder on AVX-512 IFMA and AVX2, one field
/// inversion for all encodings. Orchard's trial decryption: KA^Orchard of one ivk with a run
/// of epks.
///
/// The portable path runs the Swift code, which is faster there than CCurveBatch's portable
/// radix-2^52 kernel: that kernel is the bit-exact reference the tests hold the vector ones to.
public enum PallasBatch {
    /// Whether `path` runs CCurveBatch's kernel here (else the Swift code).
    public static func hasOwnKernel(_ path: CurveBatchPath) -> Bool { CurveBatchCall.hasKernel(path) }

    /// F_p with b = 5, in CCurveBatch's radix-2^52 Montgomery form; made once.
    private static let field: satchel_mod52 = {
        var m = satchel_mod52()
        let p = PallasBaseModulus.modulus
        var words = [p.l0, p.l1, p.l2, p.l3]
        satchel_mod52_init(&m, &words)
        satchel_mod52_set_b(&m, 5)
        satchel_mod52_set_sqrt(&m, 5)  // 5 is the least non-square mod p
        return m
    }()

    private static let zeta: [UInt64] = {
        let z = PallasGLV.zeta.canonical; return [z.l0, z.l1, z.l2, z.l3]
    }()

    /// repr_P([k]P) for every point: the bytes of `PallasPoint.encodeAll(points.map { $0.times(k) })`.
    public static func encodedMultiples(_ points: [PallasPoint], by k: PallasGLVScalar, path: CurveBatchPath = .inUse) -> [[UInt8]] {
        hasOwnKernel(path) ? kernelMultiples(points, by: k, path: path) : PallasPoint.encodeAll(points.map { $0.times(k) })
    }

    /// `PallasPoint(bytes:)` of every encoding: nil for a non-canonical x or one with no point
    /// (or not 32 bytes), the identity for 32 zero bytes.
    public static func decodeAll(_ encodings: [[UInt8]], path: CurveBatchPath = .inUse) -> [PallasPoint?] {
        hasOwnKernel(path) ? kernelDecode(encodings, path: path) : encodings.map(PallasPoint.init(bytes:))
    }

    /// `encodedMultiples` by CCurveBatch's kernel on `path`, whichever it is (tests, oracles).
    public static func kernelMultiples(_ points: [PallasPoint], by k: PallasGLVScalar, path: CurveBatchPath) -> [[UInt8]] {
        // The identity has no affine form to give the ladder; its multiple is the identity.
        let affine = points.map { $0.z == .one ? (x: $0.x, y: $0.y) : $0.affine }
        var flat = [UInt64]()
        flat.reserveCapacity(8 * points.count)
        for case let (x, y)? in affine {
            let cx = x.canonical, cy = y.canonical
            flat += [cx.l0, cx.l1, cx.l2, cx.l3, cy.l0, cy.l1, cy.l2, cy.l3]
        }
        var m = field
        var encoded = CurveBatchCall.encodings(of: flat) { p, count, o in
            satchel_glv_batch(path.c, &m, zeta, k.signed1, k.signed2, PallasGLVScalar.windows, p, count, o)
        }[...]
        return affine.map { a in
            guard a != nil else { return [UInt8](repeating: 0, count: 32) }
            return encoded.popFirst()!
        }
    }

    /// `decodeAll` by CCurveBatch's kernel on `path`, whichever it is (tests, oracles).
    public static func kernelDecode(_ encodings: [[UInt8]], path: CurveBatchPath) -> [PallasPoint?] {
        // The identity's 32 zero bytes are not the kernel's to decode.
        let tried = encodings.indices.filter { encodings[$0].count == 32 && encodings[$0].contains { $0 != 0 } }
        var out = encodings.map { $0.count == 32 ? PallasPoint?.some(.identity) : nil }
        var m = field
        let words = CurveBatchCall.words(encodings, tried) { satchel_weierstrass_decode_batch(path.c, &m, $0, $1, $2, $3) }
        for (i, w) in zip(tried, words) {
            out[i] = w.map {
                PallasPoint(
                    affineX: PallasBase(canonical: Limbs($0[0], $0[1], $0[2], $0[3])),
                    affineY: PallasBase(canonical: Limbs($0[4], $0[5], $0[6], $0[7])))
            }
        }
        return out
    }
}

/// The Swift side of CCurveBatch's point calls, for `PallasBatch` and `JubjubBatch`.
enum CurveBatchCall {
    /// Whether `path` has CCurveBatch's vector kernels for these curves and this CPU runs them
    /// (the portable path runs the Swift code).
    static func hasKernel(_ path: CurveBatchPath) -> Bool { (path == .ifma || path == .avx2) && path.isSupported }

    /// A multiplication call over points given as 8 canonical words each (two coordinates):
    /// each result's 32-byte encoding. The call's buffer is wiped (the results are shared secrets).
    static func encodings(
        of points: [UInt64],
        _ call: (UnsafePointer<UInt64>, Int, UnsafeMutablePointer<UInt8>) -> Int32
    ) -> [[UInt8]] {
        let count = points.count / 8
        guard count > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: 32 * count)
        defer { out.withUnsafeMutableBytes { sodium_memzero($0.baseAddress, $0.count) } }
        let status = out.withUnsafeMutableBufferPointer { o in
            points.withUnsafeBufferPointer { call($0.baseAddress!, count, o.baseAddress!) }
        }
        // −2: malloc failed for a few kilobytes; nothing sensible is left to do.
        precondition(status == 0, "out of memory in the curve batch")
        return (0..<count).map { Array(out[32 * $0..<32 * $0 + 32]) }
    }

    /// A decoding call over the encodings at `tried`: each one's 8 canonical words (two
    /// coordinates), or nil where it decodes to no point.
    static func words(
        _ encodings: [[UInt8]], _ tried: [Int],
        _ call: (UnsafePointer<UInt8>, Int, UnsafeMutablePointer<UInt64>, UnsafeMutablePointer<UInt8>) -> Void
    ) -> [[UInt64]?] {
        guard !tried.isEmpty else { return [] }
        let flat = tried.flatMap { encodings[$0] }
        var words = [UInt64](repeating: 0, count: 8 * tried.count)
        var ok = [UInt8](repeating: 0, count: tried.count)
        words.withUnsafeMutableBufferPointer { w in
            ok.withUnsafeMutableBufferPointer { o in
                flat.withUnsafeBufferPointer { e in call(e.baseAddress!, tried.count, w.baseAddress!, o.baseAddress!) }
            }
        }
        return tried.indices.map { k in ok[k] == 1 ? Array(words[8 * k..<8 * k + 8]) : nil }
    }
}
