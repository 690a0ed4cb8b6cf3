import CSodium
import Foundation
import WalletCore
import WalletCrypto

/// The on-disk form of one entry (docs/keystore-format.md): a header with the KDF parameters,
/// salt, nonce and a key check; the metadata in clear; the payload sealed with
/// XChaCha20-Poly1305 under a key from Argon2id, everything before it authenticated as AD.
package enum EntryFile {
    static let magic = Array("SATCHELK".utf8)
    static let version: UInt8 = 1
    static let argon2id: UInt8 = 2  // crypto_pwhash_ALG_ARGON2ID13
    static let checkContext = Array("satchel keystore key check v1".utf8)

    static func seal(_ entry: KeyStoreEntry, passphrase: SecureBytes, kdf: KDFParameters) throws(KeyStoreError) -> [UInt8] {
        Sodium.ensureInitialized()
        let salt = Sodium.randomBytes(16).bytes
        let nonce = Sodium.randomBytes(24).bytes
        let key = try deriveKey(passphrase: passphrase, salt: salt, kdf: kdf)
        let metadata = encode(entry.metadata)
        var out = magic + [version, argon2id, 0, 0]
        out += le64(kdf.opsLimit) + le64(kdf.memLimit) + salt + nonce + keyCheck(key)
        out += le32(UInt32(metadata.count)) + metadata
        let sealedLength = entry.secret.count + Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)
        out += le32(UInt32(sealedLength))
        var sealed = [UInt8](repeating: 0, count: sealedLength)
        var written: UInt64 = 0
        let ad = out
        entry.secret.withUnsafeBytes { plain in
            key.withUnsafeBytes { k in
                _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                    &sealed, &written, plain.uint8Pointer, UInt64(plain.count),
                    ad, UInt64(ad.count), nil, nonce, k.uint8Pointer)
            }
        }
        return out + sealed
    }

    /// The metadata alone, without the passphrase (for list).
    package static func metadata(of data: [UInt8], name: String) throws(KeyStoreError) -> EntryMetadata {
        try parse(data, name: name).metadata
    }

    static func open(_ data: [UInt8], name: String, passphrase: SecureBytes) throws(KeyStoreError) -> KeyStoreEntry {
        let p = try parse(data, name: name)
        let key = try deriveKey(passphrase: passphrase, salt: p.salt, kdf: p.kdf)
        guard sodium_memcmp(keyCheck(key), p.check, 16) == 0 else { throw .wrongPassphrase(name: name) }
        let plainLength = p.sealed.count - Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)
        let secret = SecureBytes(count: max(plainLength, 0))
        var written: UInt64 = 0
        let ok = secret.withUnsafeMutableBytes { plain in
            key.withUnsafeBytes { k in
                crypto_aead_xchacha20poly1305_ietf_decrypt(
                    plain.uint8Pointer, &written, nil, p.sealed, UInt64(p.sealed.count),
                    p.ad, UInt64(p.ad.count), p.nonce, k.uint8Pointer)
            }
        }
        guard ok == 0, plainLength >= 0 else { throw .tampered(name: name) }
        return KeyStoreEntry(metadata: p.metadata, secret: secret)
    }

    private struct Parsed {
        let kdf: KDFParameters
        let salt: [UInt8]
        let nonce: [UInt8]
        let check: [UInt8]
        let metadata: EntryMetadata
        let ad: [UInt8]
        let sealed: [UInt8]
    }

    private static func parse(_ data: [UInt8], name: String) throws(KeyStoreError) -> Parsed {
        func damaged(_ why: String) -> KeyStoreError { .damaged(name: name, reason: why) }
        guard data.count >= 92 else { throw damaged("truncated (\(data.count) bytes)") }
        guard Array(data[0..<8]) == magic else { throw damaged("not a Satchel key-store file") }
        guard data[8] == version else { throw damaged("format version \(data[8]) is not supported") }
        guard data[9] == argon2id, data[10] == 0, data[11] == 0 else { throw damaged("unknown key derivation") }
        let kdf = KDFParameters(opsLimit: readLE(data, 12, 8), memLimit: readLE(data, 20, 8))
        guard KDFParameters.opsRange.contains(kdf.opsLimit), KDFParameters.memRange.contains(kdf.memLimit) else {
            throw damaged("key derivation parameters out of range")
        }
        let metadataLength = Int(readLE(data, 84, 4))
        guard metadataLength <= 65536, data.count >= 92 + metadataLength else { throw damaged("truncated metadata") }
        let sealedLength = Int(readLE(data, 88 + metadataLength, 4))
        guard data.count == 92 + metadataLength + sealedLength else {
            throw damaged(data.count < 92 + metadataLength + sealedLength ? "truncated" : "trailing bytes")
        }
        guard sealedLength >= Int(crypto_aead_xchacha20poly1305_ietf_ABYTES) else { throw damaged("truncated") }
        guard let metadata = decode(Array(data[88..<(88 + metadataLength)])) else { throw .tampered(name: name) }
        return Parsed(
            kdf: kdf, salt: Array(data[28..<44]), nonce: Array(data[44..<68]), check: Array(data[68..<84]),
            metadata: metadata, ad: Array(data[0..<(92 + metadataLength)]), sealed: Array(data[(92 + metadataLength)...]))
    }

    private static func deriveKey(passphrase: SecureBytes, salt: [UInt8], kdf: KDFParameters) throws(KeyStoreError) -> SecureBytes {
        let key = SecureBytes(count: 32)
        let ok = key.withUnsafeMutableBytes { k in
            passphrase.withUnsafeBytes { p in
                crypto_pwhash(
                    k.uint8Pointer, 32, UnsafeRawPointer(p.uint8Pointer).assumingMemoryBound(to: CChar.self), UInt64(p.count), salt,
                    kdf.opsLimit, Int(kdf.memLimit), crypto_pwhash_ALG_ARGON2ID13)
            }
        }
        guard ok == 0 else { throw .io("Argon2id failed (out of memory for \(kdf.memLimit >> 20) MiB?)") }
        return key
    }

    private static func keyCheck(_ key: SecureBytes) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 16)
        key.withUnsafeBytes { k in _ = crypto_generichash(&out, 16, checkContext, UInt64(checkContext.count), k.uint8Pointer, 32) }
        return out
    }

    // Metadata as sorted-key JSON: names, kinds, dates and heights only.
    package static func encode(_ m: EntryMetadata) -> [UInt8] {
        var object: [String: Any] = [
            "name": m.name, "kind": m.kind.rawValue, "created": m.created,
            "birthdays": m.birthdays, "passphrase_protected": m.passphraseProtected,
        ]
        if let language = m.language { object["language"] = language }
        if let path = m.path { object["path"] = path }
        if let card = m.card { object["card"] = card }
        return Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
    }

    package static func decode(_ bytes: [UInt8]) -> EntryMetadata? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            let name = object["name"] as? String, let kindText = object["kind"] as? String,
            let kind = EntryKind(rawValue: kindText), let created = object["created"] as? Int,
            let birthdays = object["birthdays"] as? [String: Int], let protected = object["passphrase_protected"] as? Bool
        else { return nil }
        return EntryMetadata(
            name: name, kind: kind, created: created, birthdays: birthdays,
            passphraseProtected: protected, language: object["language"] as? String, path: object["path"] as? String,
            card: object["card"] as? String)
    }

    private static func le64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) } }
    private static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * UInt32($0))) } }
    private static func readLE(_ d: [UInt8], _ at: Int, _ n: Int) -> UInt64 {
        (0..<n).reduce(UInt64(0)) { $0 | UInt64(d[at + $1]) << (8 * UInt64($1)) }
    }
}
