import WalletCore
import WalletKeys
import WalletRecords
import KeySources
import WalletCardCLI
import WalletCrypto

/// The signing key of a run, and the keys derived from it, each derived once per path (sign-hash's
/// and sign-tx's). `cacheable` is false for a key a record brought itself:
/// nothing of it outlives the record.
public final class SigningKeyCache {
    public init() {}

    private var byPath: [String: SecureBytes] = [:]
    private var pairs: [String: Secp256k1.SchnorrKeyPair] = [:]
    private var publicKeys: [String: Secp256k1.PublicKey] = [:]

    /// The public key, computed once per key (it costs as much as a signature).
    public func publicKey(_ key: SecureBytes, tag: String, cacheable: Bool) throws -> Secp256k1.PublicKey {
        if cacheable, let known = publicKeys[tag] { return known }
        let publicKey = try Secp256k1.publicKey(of: key)
        if cacheable { publicKeys[tag] = publicKey }
        return publicKey
    }

    /// The compressed public key in hex.
    public func publicKeyHex(_ key: SecureBytes, tag: String, cacheable: Bool) throws -> String {
        Hex.encode(try publicKey(key, tag: tag, cacheable: cacheable).compressed)
    }

    public func key(_ source: KeySource, path: String?, cacheable: Bool) throws -> (key: SecureBytes, path: String?) {
        switch source {
        case .single(let key):
            guard path == nil else { throw DerivationError.unsupported("a lone private key has no paths; drop \"path\"") }
            return (key, nil)
        case .chain(let key):
            throw DerivationError.unsupported(key.notSecp256k1)
        case .bip32(let root, let origin, _):
            guard let text = path else { throw RecordError.missingField("path", expected: "the BIP32 path of the signing key, or --path") }
            let parsed = try DerivationPath(parsing: text)
            let path = parsed.description  // one spelling per key, whether ' or h was typed
            if cacheable, let key = byPath[path] { return (key, path) }
            // From a seed the path is absolute; from an imported key it is relative to it.
            let node = try root.derive(parsed.components, base: origin ?? DerivationPath())
            guard let key = node.privateKey else { throw DerivationError.unsupported("an extended public key cannot sign; give the xprv") }
            if cacheable { byPath[path] = key }
            return (key, path)
        }
    }

    public func schnorr(_ key: SecureBytes, tag: String, taproot: Bool, cacheable: Bool) throws -> Secp256k1.SchnorrKeyPair {
        if cacheable, let pair = pairs[tag] { return pair }
        let pair = try Secp256k1.SchnorrKeyPair(privateKey: key, taprootTweak: taproot)
        if cacheable { pairs[tag] = pair }
        return pair
    }
}
