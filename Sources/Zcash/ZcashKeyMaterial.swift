import WalletCore
import WalletKeys

/// What a Zcash key-store entry holds: a seed (its BIP39 passphrase applied), or a viewing
/// key under its record field name (ufvk, uivk, extended_full_viewing_key).
public enum ZcashKeyMaterial: Sendable {
    case seed(SecureBytes)
    case viewingKey(field: String, text: String)

    /// The entry payload: tag 1 and the seed, or tag 2 and the key's text.
    public var payload: SecureBytes {
        switch self {
        case .seed(let seed): return seed.prefixed(by: [1])
        case .viewingKey(_, let text): return SecureBytes([2] + Array(text.utf8))
        }
    }

    public init?(payload: SecureBytes) {
        let raw = payload.bytes
        switch raw.first {
        case 1 where raw.count > 1: self = .seed(SecureBytes(raw.dropFirst()))
        case 2:
            let text = String(decoding: raw.dropFirst(), as: UTF8.self)
            guard let field = Self.field(of: text) else { return nil }
            self = .viewingKey(field: field, text: text)
        default: return nil
        }
    }

    /// The record field a viewing key goes in, from its prefix.
    public static func field(of text: String) -> String? {
        KeyTokens.zcashViewingKeys.first { text.hasPrefix($0.prefix) }?.field
    }
}

extension ZcashKeyMaterial: ChainKey {
    public var notSecp256k1: String {
        "a Zcash key-store entry holds Sapling keys, which do not sign secp256k1 hashes; store the phrase as a BIP39 entry"
    }
}

/// ZIP 32's seed fingerprint: BLAKE2b-256("Zcash_HD_Seed_FP", [length] ‖ seed), what a PCZT's
/// derivations name a seed by. nil for a seed of another length than 32 to 252 bytes.
public func zip32SeedFingerprint(_ seed: [UInt8]) -> [UInt8]? {
    guard (32...252).contains(seed.count) else { return nil }
    return Blake2.b(32, personal: Array("Zcash_HD_Seed_FP".utf8), [UInt8(seed.count)], seed)
}
