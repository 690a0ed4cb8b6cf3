import WalletCore
import WalletKeys

/// What a derive or sign request starts from, once read from a record.
public enum KeySource: Sendable {
    /// A BIP32 key: the master key of a seed (origin m), or an imported extended key whose
    /// place in the tree is `origin` if the user said so, else unknown (nil).
    case bip32(ExtendedKey, origin: DerivationPath?, fromSeed: Bool)
    /// A lone secp256k1 private key (hex or WIF): no tree, no path.
    case single(SecureBytes)
    /// A chain's own keys (Monero's; a Zcash key-store entry's seed or viewing key), which only
    /// that chain's code reads.
    case chain(any ChainKey)

    /// The chain key of type `K`, if this source is one.
    public func chainKey<K: ChainKey>(_: K.Type) -> K? {
        if case .chain(let key) = self { key as? K } else { nil }
    }
}
