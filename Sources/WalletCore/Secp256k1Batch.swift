import CCurveBatch

/// One secret scalar times many secp256k1 points, batched (issue 46): BIP352's shared secrets
/// b_scan·(input_hash·A) for a block's transactions at once. CCurveBatch's GLV ladder on 8
/// points at a time (AVX2: two vectors of four, secp256k1's own reduction; IFMA: the
/// Montgomery product), one inversion per call. The portable path runs libsecp256k1's ECDH,
/// which is faster there than the kernel's portable code: that code is the bit-exact
/// reference the tests hold the vector paths to, and libsecp256k1 is the oracle of all.
public enum Secp256k1Batch {
    /// Whether `path` runs CCurveBatch's kernel here (else libsecp256k1's ECDH).
    public static func hasOwnKernel(_ path: CurveBatchPath) -> Bool { path != .portable && path.isSupported }

    /// k·P as ser_P (33 bytes) for every point: `Secp256k1.ecdhPoint(privateKey: k, publicKey:
    /// P)` for each, constant-time in k.
    public static func sharedPoints(
        privateKey: SecureBytes, points: [Secp256k1.PublicKey], path: CurveBatchPath = .inUse
    ) throws(CurveError) -> [SecureBytes] {
        if hasOwnKernel(path) { return try kernelSharedPoints(privateKey: privateKey, points: points, path: path) }
        var out = [SecureBytes]()
        out.reserveCapacity(points.count)
        for point in points { out.append(try Secp256k1.ecdhPoint(privateKey: privateKey, publicKey: point)) }
        return out
    }

    /// `sharedPoints` by CCurveBatch's kernel on `path`, whichever it is (tests, oracles, the
    /// benchmark): the portable kernel too.
    public static func kernelSharedPoints(
        privateKey: SecureBytes, points: [Secp256k1.PublicKey], path: CurveBatchPath
    ) throws(CurveError) -> [SecureBytes] {
        guard privateKey.count == 32 else { throw .invalidPrivateKey }
        guard !points.isEmpty else { return [] }
        let words = affineWords(points)
        var out = [UInt8](repeating: 0, count: 33 * points.count)
        defer { SecureBytes.wipe(&out) }
        let status = privateKey.withUnsafeBytes { k in
            words.withUnsafeBufferPointer { w in
                out.withUnsafeMutableBufferPointer { o in
                    satchel_secp256k1_mul_batch(
                        path.c, k.baseAddress!.assumingMemoryBound(to: UInt8.self), w.baseAddress!, points.count, o.baseAddress!)
                }
            }
        }
        // Whether the key is valid (nonzero, below n) is public: every key in use is.
        guard status != -1 else { throw .invalidPrivateKey }
        // −2: malloc failed for a few kilobytes; nothing sensible is left to do.
        precondition(status == 0, "out of memory in the curve batch")
        return (0..<points.count).map { SecureBytes(out[33 * $0..<33 * $0 + 33]) }
    }

    /// Each point's affine x then y as little-endian 64-bit words (the kernel's input), from
    /// its uncompressed encoding (big-endian). Points are public.
    public static func affineWords(_ points: [Secp256k1.PublicKey]) -> [UInt64] {
        var words = [UInt64]()
        words.reserveCapacity(8 * points.count)
        for point in points {
            let u = point.uncompressed
            for coordinate in 0..<2 {
                for word in 0..<4 {
                    let start = 1 + 32 * coordinate + 8 * (3 - word)
                    words.append(u[start..<start + 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
                }
            }
        }
        return words
    }
}
