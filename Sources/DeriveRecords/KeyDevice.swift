import WalletCore
import WalletKeys
import KeySources
import WalletCrypto

/// A key held outside this process (a Keycard): public keys by path, and private keys where
/// the device lets them out. Paths are absolute, below m.
public protocol KeyDevice: AnyObject {
    /// The public key at a path (at m too).
    func publicKey(at path: [UInt32]) throws -> Secp256k1.PublicKey
    /// The public node at a path below m, for deriving the addresses under it here.
    func node(at path: [UInt32]) throws -> ExtendedKey
    /// The private key at a path, or nil where the device gives none.
    func privateKey(at path: [UInt32]) throws -> SecureBytes?
}
