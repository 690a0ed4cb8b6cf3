import WalletCore
import WalletCrypto

/// RedPallas spend authorization signatures: RedDSA over Pallas with the base G^Orchard
/// (protocol spec §5.4.7), which Orchard's and Ironwood's spends sign with.
///
/// H* is BLAKE2b-512 personalized "Zcash_RedPallasH", reduced mod q. Signing takes r from 80
/// fresh random bytes, the verification key and the message, so a signature is randomized: it
/// is checked by verifying it, never by comparing bytes.
public enum RedPallas {
    static let personal = Array("Zcash_RedPallasH".utf8)

    static func hStar(_ parts: [UInt8]...) -> PallasScalar {
        var wide = Blake2.b(64, personal: personal, parts.flatMap { $0 })
        defer { SecureBytes.wipe(&wide) }
        return PallasScalar(wide: wide)
    }

    /// The verification key of a signing key: [sk]G^Orchard, encoded.
    public static func verificationKey(_ sk: PallasScalar) -> [UInt8] { OrchardBases.spendAuth.times(sk).bytes }

    /// Signs `message` (a sighash) with `sk`. Constant time in sk and r; `random` (80 bytes) is
    /// for tests, else fresh from the CSPRNG.
    public static func sign(_ message: [UInt8], key sk: PallasScalar, random: [UInt8]? = nil) -> [UInt8] {
        var t = random ?? Sodium.randomBytes(80).withUnsafeBytes { Array($0) }
        defer { SecureBytes.wipe(&t) }
        let vk = verificationKey(sk)
        let r = hStar(t, vk, message)
        let rBar = OrchardBases.spendAuth.times(r).bytes
        let s = r + hStar(rBar, vk, message) * sk
        return rBar + s.bytes
    }

    /// Whether `signature` (R̄ ‖ S̄) is `key`'s over `message`: R̄ and the key valid point
    /// encodings, S̄ below q, [S]G = R + [c]vk.
    public static func verify(_ signature: [UInt8], message: [UInt8], key: [UInt8]) -> Bool {
        guard signature.count == 64, let r = PallasPoint(bytes: Array(signature[0..<32])), let s = PallasScalar(bytes: signature[32..<64]),
            let vk = PallasPoint(bytes: key)
        else { return false }
        let c = hStar(Array(signature[0..<32]), key, message)
        return OrchardBases.spendAuth.times(s) == r + vk.times(c)
    }
}

/// RedJubjub spend authorization signatures: RedDSA over Jubjub with the base
/// SpendAuthSig^Sapling (§5.4.7), which Sapling's spends sign with. H* is BLAKE2b-512
/// personalized "Zcash_RedJubjubH", reduced mod r; randomized as RedPallas is.
public enum RedJubjub {
    static let personal = Array("Zcash_RedJubjubH".utf8)

    static func hStar(_ parts: [UInt8]...) -> Fr {
        var wide = Blake2.b(64, personal: personal, parts.flatMap { $0 })
        defer { SecureBytes.wipe(&wide) }
        return Fr(wide: wide)
    }

    /// The verification key of a signing key: [sk]G, encoded.
    public static func verificationKey(_ sk: Fr) -> [UInt8] { SaplingGenerators.spendAuth.times(sk).bytes }

    /// Signs `message` with `sk`. Constant time in sk and r; `random` (80 bytes) is for tests,
    /// else fresh from the CSPRNG.
    public static func sign(_ message: [UInt8], key sk: Fr, random: [UInt8]? = nil) -> [UInt8] {
        var t = random ?? Sodium.randomBytes(80).withUnsafeBytes { Array($0) }
        defer { SecureBytes.wipe(&t) }
        let vk = verificationKey(sk)
        let r = hStar(t, vk, message)
        let rBar = SaplingGenerators.spendAuth.times(r).bytes
        let s = r + hStar(rBar, vk, message) * sk
        return rBar + s.bytes
    }

    /// Whether `signature` (R̄ ‖ S̄) is `key`'s over `message`: R̄ and the key valid point
    /// encodings, S̄ below r, [h][S]G = [h](R + [c]vk) with h the cofactor (§5.4.7).
    public static func verify(_ signature: [UInt8], message: [UInt8], key: [UInt8]) -> Bool {
        guard signature.count == 64, let r = JubjubPoint(bytes: Array(signature[0..<32])), let s = Fr(bytes: signature[32..<64]),
            let vk = JubjubPoint(bytes: key)
        else { return false }
        let c = hStar(Array(signature[0..<32]), key, message)
        return SaplingGenerators.spendAuth.times(s).timesCofactor() == (r + vk.times(c)).timesCofactor()
    }
}
