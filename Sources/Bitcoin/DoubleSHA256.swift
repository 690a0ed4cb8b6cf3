import COpenSSL

/// SHA256d, Bitcoin's hash, through OpenSSL's SHA-256 (SHA-NI, AVX2, SSSE3 or plain code,
/// chosen at run time from the CPU; libsodium's is plain C, four times slower here). The
/// low-level calls, not EVP: a block hashes thousands of short messages, and EVP's per-call
/// context costs as much as the hashing of one.
struct DoubleSHA256 {
    private var context = SHA256_CTX()

    init() { SHA256_Init(&context) }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        SHA256_Update(&context, bytes.baseAddress!, bytes.count)
    }

    mutating func update(_ pointer: UnsafeRawPointer, count: Int) { SHA256_Update(&context, pointer, count) }

    /// The digest of what was given, hashed again.
    mutating func finish() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 32) { out, initialized in
            finish(into: out.baseAddress!)
            initialized = 32
        }
    }

    /// The digest, hashed again, written to 32 bytes at `out`.
    mutating func finish(into out: UnsafeMutableRawPointer) {
        var first = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        withUnsafeMutableBytes(of: &first) { inner in
            SHA256_Final(inner.baseAddress!.assumingMemoryBound(to: UInt8.self), &context)
            var second = SHA256_CTX()
            SHA256_Init(&second)
            SHA256_Update(&second, inner.baseAddress!, 32)
            SHA256_Final(out.assumingMemoryBound(to: UInt8.self), &second)
        }
    }

    static func hash(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var h = DoubleSHA256()
        h.update(bytes)
        return h.finish()
    }
}
