import COpenSSL
import CSodium
import Foundation
import WalletCore
import WalletCrypto

/// The secure channel's primitives: AES-256-CBC and its CBC-MAC (libcrypto: libsodium has no
/// CBC), ISO/IEC 9797-1 method 2 padding, the session-key and pairing-token derivations.
public enum KeycardCrypto {
    /// AES-256-CBC without padding over whole blocks.
    public static func aesCBC(encrypt: Bool, key: [UInt8], iv: [UInt8], _ input: [UInt8]) -> [UInt8] {
        precondition(key.count == 32 && iv.count == 16 && input.count % 16 == 0)
        guard let ctx = EVP_CIPHER_CTX_new() else { fatalError("libcrypto: out of memory") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        var out = [UInt8](repeating: 0, count: input.count + 16)
        var n: Int32 = 0, tail: Int32 = 0
        let ok =
            EVP_CipherInit_ex(ctx, EVP_aes_256_cbc(), nil, key, iv, encrypt ? 1 : 0) == 1
            && EVP_CIPHER_CTX_set_padding(ctx, 0) == 1
            && EVP_CipherUpdate(ctx, &out, &n, input, Int32(input.count)) == 1
            && out.withUnsafeMutableBufferPointer { EVP_CipherFinal_ex(ctx, $0.baseAddress! + Int(n), &tail) } == 1
        precondition(ok, "libcrypto AES-256-CBC failed on whole blocks")
        return Array(out[0..<Int(n + tail)])
    }

    /// ISO/IEC 9797-1 method 2: 0x80, then zeros to a whole block (always at least one byte).
    public static func pad(_ data: [UInt8]) -> [UInt8] {
        var out = data + [0x80]
        while out.count % 16 != 0 { out.append(0) }
        return out
    }

    /// The inverse of `pad`; nil when the bytes do not end in 0x80 00…
    public static func unpad(_ data: [UInt8]) -> [UInt8]? {
        guard let last = data.lastIndex(where: { $0 != 0 }), data[last] == 0x80, data.count - last <= 16 else { return nil }
        return Array(data[..<last])
    }

    /// AES-CBC-MAC: the last block of AES-256-CBC(key, IV = 0) over whole blocks.
    public static func cbcMAC(key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        Array(aesCBC(encrypt: true, key: key, iv: [UInt8](repeating: 0, count: 16), data).suffix(16))
    }

    /// K = SHA-512(ECDH-x ‖ pairing key ‖ salt): the first half encrypts, the second MACs.
    public static func sessionKeys(sharedX: [UInt8], pairingKey: [UInt8], salt: [UInt8]) -> (enc: SecureBytes, mac: SecureBytes) {
        var k = Hash.sha512(sharedX + pairingKey + salt)
        defer { SecureBytes.wipe(&k) }
        return (SecureBytes(Array(k[0..<32])), SecureBytes(Array(k[32..<64])))
    }

    /// The pairing secret from a pairing password: PBKDF2-HMAC-SHA256(NFKD(password),
    /// "Keycard Pairing Password Salt", 50000 iterations, 32 bytes), as every Keycard client does.
    public static func pairingSecret(password: SecureBytes) -> SecureBytes {
        let normalized = String(decoding: password.bytes, as: UTF8.self).decomposedStringWithCompatibilityMapping
        var text = Array(normalized.utf8)
        defer { SecureBytes.wipe(&text) }
        let salt = Array("Keycard Pairing Password Salt".utf8)
        var out = [UInt8](repeating: 0, count: 32)
        defer { SecureBytes.wipe(&out) }
        let ok = text.withUnsafeBufferPointer { p in
            p.withMemoryRebound(to: CChar.self) {
                PKCS5_PBKDF2_HMAC($0.baseAddress, Int32(text.count), salt, Int32(salt.count), 50_000, EVP_sha256(), 32, &out)
            }
        }
        precondition(ok == 1, "libcrypto PBKDF2 failed")
        return SecureBytes(out)
    }
}
