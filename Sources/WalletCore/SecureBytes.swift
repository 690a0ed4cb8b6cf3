#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A fixed-size buffer for secret bytes (entropy, seeds, keys, passphrases) that is wiped
/// with explicit_bzero, a store the compiler keeps (libsodium's sodium_memzero calls it on
/// glibc), when released. It is a class so that copies share one buffer and
/// there is exactly one place to wipe.
///
/// Swift `String`s and `Array`s cannot be wiped reliably (copy-on-write may leave copies), so
/// code that must pass through them keeps their lifetime short and wipes arrays it owns.
public final class SecureBytes: @unchecked Sendable, Equatable {
    private let pointer: UnsafeMutableRawBufferPointer
    /// The number of secret bytes (the allocation is at least one byte, so empty values work).
    public let count: Int

    public init(count: Int) {
        pointer = .allocate(byteCount: max(count, 1), alignment: 16)
        pointer.initializeMemory(as: UInt8.self, repeating: 0)
        self.count = count
    }

    public convenience init<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        self.init(count: bytes.count)
        UnsafeMutableRawBufferPointer(rebasing: pointer[0..<bytes.count]).copyBytes(from: bytes)
    }

    deinit {
        Self.zero(pointer)
        pointer.deallocate()
    }

    /// The bytes after `prefix`, in a new buffer: no array copy of the secret is left behind
    /// (`SecureBytes(prefix + secret.bytes)` leaves `.bytes` unwiped). An empty prefix copies.
    public func prefixed(by prefix: [UInt8] = []) -> SecureBytes {
        let out = SecureBytes(count: prefix.count + count)
        out.withUnsafeMutableBytes { dst in
            dst.copyBytes(from: prefix)
            withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: dst[prefix.count...]).copyMemory(from: $0) }
        }
        return out
    }

    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(rebasing: pointer[0..<count]))
    }

    public func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeMutableRawBufferPointer(rebasing: pointer[0..<count]))
    }

    /// A plain copy, for values that are about to be written out anyway (hex output).
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    public var hex: String { withUnsafeBytes { Hex.encode($0) } }

    /// Constant-time comparison: every byte is read whatever differs, so equality checks do
    /// not leak where bytes differ.
    public static func == (lhs: SecureBytes, rhs: SecureBytes) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.withUnsafeBytes { a in
            rhs.withUnsafeBytes { b in
                var difference: UInt8 = 0
                for i in 0..<a.count { difference |= a[i] ^ b[i] }
                return difference == 0
            }
        }
    }

    /// Wipes an array the caller owns (best effort: earlier copy-on-write copies are not reached).
    public static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { zero($0) }
    }

    /// Wipes memory in place (a C library's key state, say) with a store the compiler keeps:
    /// zeroing by plain writes just before the memory is released may be optimized away.
    public static func wipe(_ memory: UnsafeMutableRawBufferPointer) { zero(memory) }

    private static func zero(_ memory: UnsafeMutableRawBufferPointer) {
        guard let base = memory.baseAddress, memory.count > 0 else { return }
        #if canImport(Glibc)
            explicit_bzero(base, memory.count)
        #else
            _ = memset_s(base, memory.count, 0, memory.count)
        #endif
    }
}
