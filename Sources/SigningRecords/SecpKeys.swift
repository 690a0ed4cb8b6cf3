import WalletCore
import WalletKeys
import KeySources
import WalletCardCLI
import WalletCrypto

/// What sign-tx asks of a key source, software key or Keycard: the public key at a path (for
/// the summary, before anything is signed) and an ECDSA signature there. The transaction layer
/// is the same for both.
public protocol SecpKeySource: AnyObject {
    /// The key at `path` (nil: the source's only key, or a card's current one) and the path in
    /// one spelling.
    func publicKey(at path: String?) throws -> (key: Secp256k1.PublicKey, path: String?)
    /// RFC 6979, low S.
    func signECDSA(_ hash: [UInt8], at path: String?) throws -> ECDSASignature
}

/// A software key: a phrase, seed, xprv or lone key from a record, a key file or the key store,
/// each path's key derived once (`cacheable`: false for a key a record brought itself, of which
/// nothing outlives the record).
public final class SoftwareKeys: SecpKeySource {
    let source: KeySource
    let cache: SigningKeyCache
    let cacheable: Bool

    public init(_ source: KeySource, cache: SigningKeyCache, cacheable: Bool) {
        (self.source, self.cache, self.cacheable) = (source, cache, cacheable)
    }

    public func publicKey(at path: String?) throws -> (key: Secp256k1.PublicKey, path: String?) {
        let (key, keyPath) = try cache.key(source, path: path, cacheable: cacheable)
        return (try cache.publicKey(key, tag: keyPath ?? "", cacheable: cacheable), keyPath)
    }

    public func signECDSA(_ hash: [UInt8], at path: String?) throws -> ECDSASignature {
        try Secp256k1.signECDSA(hash: hash, privateKey: try cache.key(source, path: path, cacheable: cacheable).key)
    }
}
