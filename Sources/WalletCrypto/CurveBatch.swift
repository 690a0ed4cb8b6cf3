import CCurveBatch
import CSodium

/// Which batched curve kernels run: chosen once per process from cpuid, or forced
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

/// One scalar times many points on curve25519, batched (CCurveBatch): 8 (IFMA) or 4 (AVX2)
/// points per vector ladder and one inversion per call; on the portable path, libsodium's ladder.
public enum X25519Batch {
    /// Whether `path` has a ladder of its own on this CPU (else libsodium's runs).
    public static func hasOwnLadder(_ path: CurveBatchPath) -> Bool { satchel_x25519_batch_native(path.c) != 0 }

    /// u(k·P) for every u-coordinate in `points` (RFC 7748: k clamped, u's top bit ignored), or
    /// nil where the result is 0 (a point of small order), where crypto_scalarmult_curve25519
    /// answers −1.
    public static func multiply(scalar: UnsafeRawBufferPointer, points: [[UInt8]], path: CurveBatchPath = .inUse) -> [[UInt8]?] {
        var ok = [UInt8](repeating: 1, count: points.count)
        let out = run(points, ok: &ok) { o, _, p in satchel_x25519_batch(path.c, o, scalar.bytePointer, p, points.count) }
        return out.map { u in u.allSatisfy { $0 == 0 } ? nil : u }
    }

    /// For Edwards points given by their y (the sign bit ignored): the y of k·P (k clamped),
    /// through the Montgomery form, or nil where y is not canonical or k·P is the identity or
    /// of order 2. k·P's x sign is lost; a caller that needs the point tries both encodings.
    public static func edwardsY(scalar: UnsafeRawBufferPointer, points: [[UInt8]], path: CurveBatchPath = .inUse) -> [[UInt8]?] {
        var ok = [UInt8](repeating: 0, count: points.count)
        let out = run(points, ok: &ok) { o, flags, p in satchel_edwards_y_batch(path.c, o, flags, scalar.bytePointer, p, points.count) }
        return zip(out, ok).map { $1 == 1 ? $0 : nil }
    }

    private static func run(
        _ points: [[UInt8]], ok: inout [UInt8],
        _ body: (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>, UnsafePointer<UInt8>) -> Int32
    ) -> [[UInt8]] {
        precondition(points.allSatisfy { $0.count == 32 })
        guard !points.isEmpty else { return [] }
        Sodium.ensureInitialized()  // the portable path is libsodium's ladder: its fast one only after sodium_init
        var out = [UInt8](repeating: 0, count: 32 * points.count)
        let flat = points.flatMap { $0 }
        let status = out.withUnsafeMutableBufferPointer { o in
            ok.withUnsafeMutableBufferPointer { f in
                flat.withUnsafeBufferPointer { p in body(o.baseAddress!, f.baseAddress!, p.baseAddress!) }
            }
        }
        // −2: malloc failed for a few kilobytes; nothing sensible is left to do.
        precondition(status == 0, "out of memory in the curve batch")
        defer { out.withUnsafeMutableBytes { sodium_memzero($0.baseAddress, $0.count) } }  // shared secrets (Monero's D)
        return (0..<points.count).map { Array(out[32 * $0..<32 * $0 + 32]) }
    }
}

extension UnsafeRawBufferPointer {
    fileprivate var bytePointer: UnsafePointer<UInt8> {
        precondition(count == 32)
        return baseAddress!.assumingMemoryBound(to: UInt8.self)
    }
}
