import COpenSSL
import WalletCore

/// FF1-AES256 (NIST SP 800-38G) for Sapling's 88-bit diversifiers: radix 2, n = 88, an empty
/// tweak, so u = v = 44, b = 6, d = 12 and every round's PRF is a two-block AES CBC-MAC.
/// AES comes from libcrypto (OpenSSL); only the Feistel structure is here.
public struct FF1AES256 {
    private let aes: AESBlock
    /// AES_K(P): the first CBC-MAC block, the same in every round.
    private let encryptedP: [UInt8]

    public init(key: [UInt8]) {
        precondition(key.count == 32)
        aes = AESBlock(key: key)
        // P = [1, 2, 1] ‖ radix (3 bytes) ‖ 10 ‖ u mod 256 ‖ n (4 bytes) ‖ t (4 bytes).
        encryptedP = aes.encrypt([1, 2, 1, 0, 0, 2, 10, 44, 0, 0, 0, 88, 0, 0, 0, 0])
    }

    /// Encrypts the 88-bit string `bits` (first bit first).
    public func encrypt(bits: [UInt8]) -> [UInt8] {
        precondition(bits.count == 88)
        let mask: UInt64 = (1 << 44) - 1
        // NUM_2: the first bit is the most significant.
        var a = bits[0..<44].reduce(UInt64(0)) { $0 << 1 | UInt64($1) }
        var b = bits[44..<88].reduce(UInt64(0)) { $0 << 1 | UInt64($1) }
        for round in 0..<10 {
            // Q = 0^9 ‖ round ‖ NUM(B) in b = 6 bytes, big-endian.
            var q = [UInt8](repeating: 0, count: 16)
            q[9] = UInt8(round)
            for k in 0..<6 { q[10 + k] = UInt8(truncatingIfNeeded: b >> (8 * UInt64(5 - k))) }
            for k in 0..<16 { q[k] ^= encryptedP[k] }
            let r = aes.encrypt(q)
            // y = NUM(R[0..<12]); only y mod 2^44 matters, the low bits of bytes 6..<12.
            let y = r[6..<12].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } & mask
            let c = (a &+ y) & mask
            a = b
            b = c
        }
        return (0..<44).map { UInt8(a >> UInt64(43 - $0) & 1) } + (0..<44).map { UInt8(b >> UInt64(43 - $0) & 1) }
    }

    /// Decrypts: the rounds backwards (used to find a received note's diversifier index).
    public func decrypt(bits: [UInt8]) -> [UInt8] {
        precondition(bits.count == 88)
        let mask: UInt64 = (1 << 44) - 1
        var a = bits[0..<44].reduce(UInt64(0)) { $0 << 1 | UInt64($1) }
        var b = bits[44..<88].reduce(UInt64(0)) { $0 << 1 | UInt64($1) }
        for round in stride(from: 9, through: 0, by: -1) {
            var q = [UInt8](repeating: 0, count: 16)
            q[9] = UInt8(round)
            for k in 0..<6 { q[10 + k] = UInt8(truncatingIfNeeded: a >> (8 * UInt64(5 - k))) }
            for k in 0..<16 { q[k] ^= encryptedP[k] }
            let r = aes.encrypt(q)
            let y = r[6..<12].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } & mask
            let c = (b &- y) & mask
            b = a
            a = c
        }
        return (0..<44).map { UInt8(a >> UInt64(43 - $0) & 1) } + (0..<44).map { UInt8(b >> UInt64(43 - $0) & 1) }
    }
}

/// AES-256 block encryption under one key: libcrypto's context, keyed once for the eleven
/// blocks an FF1 encryption needs (ECB of one block at a time, no padding).
final class AESBlock {
    private let ctx: OpaquePointer

    init(key: [UInt8]) {
        ctx = EVP_CIPHER_CTX_new()!
        precondition(EVP_EncryptInit_ex(ctx, EVP_aes_256_ecb(), nil, key, nil) == 1)
        EVP_CIPHER_CTX_set_padding(ctx, 0)
    }

    deinit { EVP_CIPHER_CTX_free(ctx) }  // also clears the key schedule

    func encrypt(_ block: [UInt8]) -> [UInt8] {
        precondition(block.count == 16)
        var out = [UInt8](repeating: 0, count: 32)
        var length: Int32 = 0
        precondition(EVP_EncryptUpdate(ctx, &out, &length, block, 16) == 1 && length == 16)
        return Array(out[0..<16])
    }
}
