import CSodium
import WalletCore

/// libsodium: initialisation, the OS CSPRNG and the hashes Satchel needs.
public enum Sodium {
    private static let initialized: Bool = sodium_init() >= 0

    /// Calls `sodium_init` once per process; libsodium's functions are unsafe before it.
    public static func ensureInitialized() {
        precondition(initialized, "libsodium failed to initialise")
    }

    /// scrypt (RFC 7914) of public data with libsodium's low-level function: Litecoin's proof of
    /// work is scrypt(header, header, N = 1024, r = 1, p = 1) to 32 bytes.
    public static func scrypt(password: [UInt8], salt: [UInt8], n: UInt64, r: UInt32, p: UInt32, length: Int) -> [UInt8] {
        ensureInitialized()
        var out = [UInt8](repeating: 0, count: length)
        let status = crypto_pwhash_scryptsalsa208sha256_ll(password, password.count, salt, salt.count, n, r, p, &out, length)
        precondition(status == 0, "scrypt failed (out of memory)")
        return out
    }

    /// `count` bytes from the operating system's CSPRNG (libsodium's randombytes).
    public static func randomBytes(_ count: Int) -> SecureBytes {
        ensureInitialized()
        let out = SecureBytes(count: count)
        out.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, $0.count) }
        return out
    }

    /// A uniform integer in 0..<upperBound from the CSPRNG.
    public static func randomUniform(_ upperBound: UInt32) -> UInt32 {
        ensureInitialized()
        return randombytes_uniform(upperBound)
    }
}

/// Hash functions over libsodium. Inputs are byte buffers; outputs fixed-size arrays.
public enum Hash {
    public static func sha256(_ data: UnsafeRawBufferPointer) -> [UInt8] {
        Sodium.ensureInitialized()
        var out = [UInt8](repeating: 0, count: 32)
        crypto_hash_sha256(&out, data.uint8Pointer, UInt64(data.count))
        return out
    }

    public static func sha256<C: Collection>(_ data: C) -> [UInt8] where C.Element == UInt8 {
        Array(data).withUnsafeBytes { sha256($0) }
    }

    public static func sha512<C: Collection>(_ data: C) -> [UInt8] where C.Element == UInt8 {
        Sodium.ensureInitialized()
        var out = [UInt8](repeating: 0, count: 64)
        let input = Array(data)
        crypto_hash_sha512(&out, input, UInt64(input.count))
        return out
    }

    /// HMAC-SHA-512 with a key of any length (BIP32 uses it with the key "Bitcoin seed").
    public static func hmacSHA512(key: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer) -> SecureBytes {
        Sodium.ensureInitialized()
        var state = crypto_auth_hmacsha512_state()
        defer { withUnsafeMutableBytes(of: &state) { sodium_memzero($0.baseAddress, $0.count) } }
        crypto_auth_hmacsha512_init(&state, key.uint8Pointer, key.count)
        crypto_auth_hmacsha512_update(&state, data.uint8Pointer, UInt64(data.count))
        let out = SecureBytes(count: 64)
        out.withUnsafeMutableBytes { _ = crypto_auth_hmacsha512_final(&state, $0.uint8Pointer) }
        return out
    }

    /// PBKDF2-HMAC-SHA-512 (RFC 8018), as BIP39 uses it for phrase → seed.
    ///
    /// The keyed HMAC state is computed once and copied for every iteration, so each round
    /// costs two SHA-512 compressions — the same work as OpenSSL's PKCS5_PBKDF2_HMAC.
    /// Every intermediate buffer is wiped before returning.
    public static func pbkdf2SHA512(
        password: UnsafeRawBufferPointer, salt: UnsafeRawBufferPointer,
        iterations: Int, keyLength: Int
    ) -> SecureBytes {
        precondition(iterations >= 1 && keyLength >= 1)
        Sodium.ensureInitialized()
        let output = SecureBytes(count: keyLength)
        var keyed = crypto_auth_hmacsha512_state()
        var state = crypto_auth_hmacsha512_state()
        var u = [UInt8](repeating: 0, count: 64)
        var t = [UInt8](repeating: 0, count: 64)
        defer {
            withUnsafeMutableBytes(of: &keyed) { sodium_memzero($0.baseAddress, $0.count) }
            withUnsafeMutableBytes(of: &state) { sodium_memzero($0.baseAddress, $0.count) }
            SecureBytes.wipe(&u)
            SecureBytes.wipe(&t)
        }
        crypto_auth_hmacsha512_init(&keyed, password.uint8Pointer, password.count)
        let blocks = (keyLength + 63) / 64
        output.withUnsafeMutableBytes { out in
            u.withUnsafeMutableBufferPointer { u in
                t.withUnsafeMutableBufferPointer { t in
                    for block in 1...blocks {
                        state = keyed
                        crypto_auth_hmacsha512_update(&state, salt.uint8Pointer, UInt64(salt.count))
                        var index = UInt32(block).bigEndian
                        withUnsafeBytes(of: &index) {
                            _ = crypto_auth_hmacsha512_update(&state, $0.uint8Pointer, 4)
                        }
                        crypto_auth_hmacsha512_final(&state, u.baseAddress!)
                        for i in 0..<64 { t[i] = u[i] }
                        for _ in 1..<iterations {
                            state = keyed
                            crypto_auth_hmacsha512_update(&state, u.baseAddress!, 64)
                            crypto_auth_hmacsha512_final(&state, u.baseAddress!)
                            for i in 0..<64 { t[i] ^= u[i] }
                        }
                        let start = (block - 1) * 64
                        let n = min(64, keyLength - start)
                        for i in 0..<n { out[start + i] = t[i] }
                    }
                }
            }
        }
        return output
    }
}
