import CCurveBatch
import CSodium

/// Which batched curve kernels run (issue 23): chosen once per process from cpuid, or forced
/// with `SATCHEL_SIMD=ifma|avx2|portable` for tests and benchmarks.
public enum CurveBatchPath: String, CaseIterable, Sendable {
    case portable, avx2, ifma

    /// The path this process uses.
    public static var inUse: CurveBatchPath { CurveBatchPath(satchel_simd_path()) }

    /// True when SATCHEL_SIMD named a path this CPU cannot run (the best one runs instead).
    public static var forcedButUnavailable: Bool { satchel_simd_forced_unavailable() != 0 }

    /// Whether this CPU can run the path.
    public var isSupported: Bool { satchel_simd_supported(c) != 0 }

    /// For the C kernels.
    public var c: satchel_simd_path {
        switch self {
        case .portable: SATCHEL_SIMD_PORTABLE
        case .avx2: SATCHEL_SIMD_AVX2
        case .ifma: SATCHEL_SIMD_IFMA
        }
    }

    public init(_ c: satchel_simd_path) {
        switch c {
        case SATCHEL_SIMD_IFMA: self = .ifma
        case SATCHEL_SIMD_AVX2: self = .avx2
        default: self = .portable
        }
    }
}

public enum X25519Batch {
    /// Whether `path` has a ladder of its own on this CPU (else libsodium's runs).
    public static func hasOwnLadder(_ path: CurveBatchPath) -> Bool { satchel_x25519_batch_native(path.c) != 0 }

    /// u(k·P) for every u-coordinate in `points` (RFC 7748: k clamped, u's top bit ignored), or
    /// nil where the result is 0 (a point of small order), as crypto_scalarmult_curve25519
    /// answers −1 there. The vector paths run 8 points per ladder with one inversion for all;
    /// the portable path, and a path with no ladder of its own yet, is libsodium's, one at a time.
    public static func multiply(scalar: UnsafeRawBufferPointer, points: [[UInt8]], path: CurveBatchPath = .inUse) -> [[UInt8]?] {
        precondition(scalar.count == 32 && points.allSatisfy { $0.count == 32 })
        guard !points.isEmpty else { return [] }
        var out = [UInt8](repeating: 0, count: 32 * points.count)
        let flat = points.flatMap { $0 }
        let done = out.withUnsafeMutableBytes { o in
            flat.withUnsafeBytes { p in
                satchel_x25519_batch(path.c, o.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                     scalar.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                     p.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                     points.count) == 0
            }
        }
        if done {
            return (0..<points.count).map { i in
                let u = Array(out[32 * i..<32 * i + 32])
                return u.allSatisfy { $0 == 0 } ? nil : u
            }
        }
        return points.map { point in
            var q = [UInt8](repeating: 0, count: 32)
            return crypto_scalarmult_curve25519(&q, scalar.baseAddress!.assumingMemoryBound(to: UInt8.self), point) == 0 ? q : nil
        }
    }
}
