import CCurveBatch
import WalletCore

#if canImport(Glibc)
    import Glibc
#endif

/// One secret scalar times many secp256k1 points, batched: BIP352's shared secrets
/// b_scan·(input_hash·A) for a block's transactions at once. CCurveBatch's GLV ladder on 8
/// points at a time (AVX2: two vectors of four, secp256k1's own reduction; IFMA: the
/// Montgomery product), one inversion per call. The portable path runs libsecp256k1's ECDH,
/// which is faster there than the kernel's portable code: that code is the bit-exact
/// reference the tests hold the vector paths to, and libsecp256k1 is the oracle of all.
public enum Secp256k1Batch {
    /// Whether `path` runs CCurveBatch's kernel here (else libsecp256k1's ECDH): a vector path
    /// this CPU has, whose kernels gave libsecp256k1's answers in this process's check.
    public static func hasOwnKernel(_ path: CurveBatchPath) -> Bool {
        path != .portable && path.isSupported && checkedPaths.contains(path)
    }

    /// The vector paths whose three kernels agreed with libsecp256k1 on a block of public test
    /// values, checked once per process when first asked. The IFMA kernels for secp256k1 have
    /// never run on the project's machines (none has AVX-512 IFMA), and a wrong kernel would
    /// miss payments without a word: a path that fails is left out (libsecp256k1 does its work,
    /// slower), and stderr says so once.
    static let checkedPaths: Set<CurveBatchPath> = {
        var passed = Set<CurveBatchPath>()
        for path in CurveBatchPath.allCases where path != .portable && path.isSupported {
            let agrees = knownAnswersAgree(
                single: { try kernelSharedPoints(privateKey: $0, points: $1, path: path) },
                lanes: { try kernelSharedPoints(privateKeys: $0, points: $1, path: path) },
                generator: { kernelGeneratorSums(scalars: $0, addends: $1, path: path) })
            if agrees {
                passed.insert(path)
            } else {
                let message =
                    "satchel: the secp256k1 kernel on the \(path.rawValue) path gave a wrong answer on this CPU; libsecp256k1 does its work instead (slower). Please report it with this CPU's model.\n"
                _ = message.withCString { write(2, $0, strlen($0)) }
            }
        }
        return passed
    }()

    /// Whether the three kernels give libsecp256k1's answers on 11 public scalars (1, n − 1
    /// and hashes: a full block of 8 and a partial one) and points: k_0·P_i, k_i·P_i, and
    /// k_i·G + P_0 and + P_1.
    static func knownAnswersAgree(
        single: (SecureBytes, [Secp256k1.PublicKey]) throws -> [SecureBytes],
        lanes: ([SecureBytes], [Secp256k1.PublicKey]) throws -> [SecureBytes],
        generator: (SecureBytes, [Secp256k1.PublicKey]) -> [UInt8]?
    ) -> Bool {
        let one = [UInt8](repeating: 0, count: 31) + [1]
        var nMinusOne = Secp256k1.order
        nMinusOne[31] -= 1
        let scalars = [one, nMinusOne] + (0..<9).map { Hash.sha256(Array("satchel secp256k1 check \($0)".utf8)) }
        let keys = scalars.map { SecureBytes($0) }
        guard let points = try? scalars.map({ try Secp256k1.publicKey(of: SecureBytes(Hash.sha256($0))) }),
            let expectedSingle = try? points.map({ try Secp256k1.ecdhPoint(privateKey: keys[2], publicKey: $0) }),
            let expectedLanes = try? zip(keys, points).map({ try Secp256k1.ecdhPoint(privateKey: $0, publicKey: $1) }),
            let multiples = try? keys.map({ try Secp256k1.publicKey(of: $0) })
        else { return false }
        let addends = Array(points.prefix(2))
        let expectedSums = addends.flatMap { q in
            multiples.flatMap { Secp256k1.PublicKey.sum([$0, q])?.compressed ?? [UInt8](repeating: 0, count: 33) }
        }
        guard let gotSingle = try? single(keys[2], points), let gotLanes = try? lanes(keys, points),
            let gotSums = generator(SecureBytes(scalars.flatMap { $0 }), addends)
        else { return false }
        return gotSingle == expectedSingle && gotLanes == expectedLanes && gotSums == expectedSums
    }

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
        return try ladder(points) { w, o in
            privateKey.withUnsafeBytes { k in
                satchel_secp256k1_mul_batch(path.c, k.baseAddress!.assumingMemoryBound(to: UInt8.self), w, points.count, o)
            }
        }
    }

    /// One of CCurveBatch's secp256k1 ladders over `points` (their affine words in, 33 bytes a
    /// point out), its status checked, the shared points apart.
    private static func ladder(
        _ points: [Secp256k1.PublicKey], _ call: (UnsafePointer<UInt64>, UnsafeMutablePointer<UInt8>) -> Int32
    ) throws(CurveError) -> [SecureBytes] {
        let words = affineWords(points)
        var out = [UInt8](repeating: 0, count: 33 * points.count)
        defer { SecureBytes.wipe(&out) }
        let status = words.withUnsafeBufferPointer { w in out.withUnsafeMutableBufferPointer { call(w.baseAddress!, $0.baseAddress!) } }
        // Whether the keys are valid (nonzero, below n) is public: every key in use is.
        guard status != -1 else { throw .invalidPrivateKey }
        // −2: malloc failed for a few kilobytes; nothing sensible is left to do.
        precondition(status == 0, "out of memory in the curve batch")
        return (0..<points.count).map { SecureBytes(out[33 * $0..<33 * $0 + 33]) }
    }

    /// k_i·P_i as ser_P (33 bytes) for each point its own secret scalar (BIP352's
    /// (b_scan·input_hash)·A for a block's transactions: one multiplication a transaction, not
    /// input_hash·A and then b_scan times that): CCurveBatch's ladder with each lane picking by
    /// its own digits where the CPU has a vector path, libsecp256k1's ECDH one by one on the
    /// portable path. Constant-time in the k_i.
    public static func sharedPoints(
        privateKeys: [SecureBytes], points: [Secp256k1.PublicKey], path: CurveBatchPath = .inUse
    ) throws(CurveError) -> [SecureBytes] {
        precondition(privateKeys.count == points.count, "a key for every point")
        if hasOwnKernel(path) { return try kernelSharedPoints(privateKeys: privateKeys, points: points, path: path) }
        var out = [SecureBytes]()
        out.reserveCapacity(points.count)
        for (key, point) in zip(privateKeys, points) { out.append(try Secp256k1.ecdhPoint(privateKey: key, publicKey: point)) }
        return out
    }

    /// `sharedPoints(privateKeys:points:)` by CCurveBatch's per-lane ladder on `path`, whichever
    /// it is (tests, the oracle, the benchmark).
    public static func kernelSharedPoints(
        privateKeys: [SecureBytes], points: [Secp256k1.PublicKey], path: CurveBatchPath
    ) throws(CurveError) -> [SecureBytes] {
        precondition(privateKeys.count == points.count, "a key for every point")
        guard !points.isEmpty else { return [] }
        guard privateKeys.allSatisfy({ $0.count == 32 }) else { throw .invalidPrivateKey }
        var scalars = [UInt8]()
        scalars.reserveCapacity(32 * points.count)  // no reallocation leaves a copy behind
        for key in privateKeys { key.withUnsafeBytes { scalars.append(contentsOf: $0) } }
        defer { SecureBytes.wipe(&scalars) }
        return try ladder(points) { w, o in
            scalars.withUnsafeBufferPointer { satchel_secp256k1_mul_lanes(path.c, $0.baseAddress!, w, points.count, o) }
        }
    }

    /// t_i·G + Q_j as ser_P (33 bytes; 33 zero bytes for the point at infinity) for every secret
    /// scalar t_i (32 bytes big-endian each, `scalars` end to end) and public point Q_j, all of
    /// Q_0's first: BIP352's P_0 = B_spend + t_0·G (and + label·G) for a block's transactions.
    /// CCurveBatch's fixed-base kernel on `path`, whichever it is (the portable kernel too, for
    /// the tests; libsecp256k1 is faster there): a table of G, 8 scalars a block each with its
    /// own digits, constant-time in the t_i, one inversion per Q_j. The results are
    /// declassified: a sum with a public point gives neither t_i nor what made it away (BIP352's
    /// outputs are such sums). nil when a scalar is 0 or not below the group order, which is
    /// public (a hash output there has probability 2^-128).
    public static func kernelGeneratorSums(
        scalars: SecureBytes, addends: [Secp256k1.PublicKey], path: CurveBatchPath
    ) -> [UInt8]? {
        let n = scalars.count / 32
        precondition(scalars.count == 32 * n && !addends.isEmpty, "scalars of 32 bytes, and a point to add")
        guard n > 0 else { return [] }
        let words = affineWords(addends)
        var out = [UInt8](repeating: 0, count: 33 * n * addends.count)
        let status = scalars.withUnsafeBytes { t in
            words.withUnsafeBufferPointer { w in
                out.withUnsafeMutableBufferPointer { o in
                    satchel_secp256k1_gen_batch(
                        path.c, t.baseAddress!.assumingMemoryBound(to: UInt8.self), n, w.baseAddress!, addends.count, o.baseAddress!)
                }
            }
        }
        guard status != -1 else { return nil }
        precondition(status == 0, "out of memory in the curve batch")
        return ConstantTime.declassified(out)
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
