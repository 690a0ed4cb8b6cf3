import CCurveBatch

/// Helpers for code whose branches and memory accesses must not depend on a secret, which
/// `make ctime` and `make ctime-swift` check under valgrind's memcheck.
public enum ConstantTime {
    /// `condition`, which is computed from a secret but public by design (a bound that holds
    /// for every key, checked as an assertion), marked as such for memcheck so that the
    /// branch on it is not reported; the caller's comment says why it is public.
    public static func declassified(_ condition: Bool) -> Bool {
        var byte: UInt8 = condition ? 1 : 0
        satchel_declassify(&byte, 1)
        return byte == 1
    }

    /// `bytes`, computed from a secret but public by design (a diversifier, which goes into
    /// an address), marked as such for memcheck; the caller's comment says why it is public.
    public static func declassified(_ bytes: [UInt8]) -> [UInt8] {
        let copy = bytes
        copy.withUnsafeBytes { satchel_declassify($0.baseAddress, $0.count) }
        return copy
    }

    /// All ones when a == b, else 0, by arithmetic (a comparison may become a branch).
    @inlinable @inline(__always) public static func equalMask(_ a: UInt64, _ b: UInt64) -> UInt64 {
        zeroMask(a ^ b)
    }

    /// All ones when x == 0, else 0: x | −x has its top bit set exactly when x ≠ 0.
    @inlinable @inline(__always) public static func zeroMask(_ x: UInt64) -> UInt64 {
        ((x | (0 &- x)) >> 63) &- 1
    }
}
