import Monero
import WalletCore
import WalletKeyStore
import WalletKeys

/// What a derive or sign request starts from, once read from a record.
public enum KeySource: Sendable {
    /// A BIP32 key: the master key of a seed (origin m), or an imported extended key whose
    /// place in the tree is `origin` if the user said so, else unknown (nil).
    case bip32(ExtendedKey, origin: DerivationPath?, fromSeed: Bool)
    case monero(MoneroKeys)
    /// A lone secp256k1 private key (hex or WIF): no tree, no path.
    case single(SecureBytes)
    /// A Zcash key-store entry: a seed for ZIP-32 Sapling and Orchard keys, or a viewing key.
    case zcash(ZcashKeyMaterial)
}
