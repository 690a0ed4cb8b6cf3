import Foundation

/// What this machine's CPU offers, from /proc/cpuinfo: the tests' independent view of the path
/// the curve kernels choose (CCurveBatch reads cpuid itself).
public enum HostCPU {
    public static let flags: Set<String> = {
        let text = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        return Set(text.split(whereSeparator: \.isWhitespace).map(String.init))
    }()

    public static var hasIFMA: Bool { flags.isSuperset(of: ["avx512f", "avx512ifma", "avx512vl"]) }
    public static var hasAVX2: Bool { flags.contains("avx2") }

    /// The name `scan-blocks --version` should give when SATCHEL_SIMD forces nothing.
    public static var bestCurveKernels: String { hasIFMA ? "ifma" : hasAVX2 ? "avx2" : "portable" }
}
