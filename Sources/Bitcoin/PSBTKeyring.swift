import WalletCore
import WalletKeys
import WalletCrypto

/// The keys a PSBT signer asks for, by the BIP32 origin (master fingerprint and path) that a
/// PSBT's derivation fields name. A software key (`BIP32Keyring`) and a Keycard both serve it:
/// the signer builds everything around the signature.
public protocol PSBTKeyring: AnyObject {
    /// Whether a derivation field's origin is one of ours.
    func owns(fingerprint: [UInt8], path: [UInt32]) -> Bool
    /// The public key at `path` (from the master).
    func publicKey(at path: [UInt32]) throws -> Secp256k1.PublicKey
    /// An ECDSA signature of `hash` by the key at `path`, low S.
    func signECDSA(_ hash: [UInt8], at path: [UInt32]) throws -> ECDSASignature
    /// A BIP340 signature of `hash` by the key at `path` tweaked as BIP341 says for a key-path
    /// spend (`merkleRoot` nil: no script tree, as BIP86).
    func signSchnorr(_ hash: [UInt8], at path: [UInt32], merkleRoot: [UInt8]?) throws -> [UInt8]
    /// Whether it makes BIP340 signatures at all (a Keycard of applet 3.x does not): a taproot
    /// input is then refused before the summary.
    var signsSchnorr: Bool { get }
    /// A BIP340 signature of `hash` by the key at `path` plus `tweak`, untweaked otherwise: a
    /// silent payment output's key is (b_spend + tweak)·G itself (BIP352), no TapTweak.
    func signSchnorr(_ hash: [UInt8], at path: [UInt32], addingTweak tweak: [UInt8]) throws -> [UInt8]
    /// Whether it can add a tweak to a key before signing (a card exports no such key).
    var signsTweaked: Bool { get }
    /// The private key at `path`, for what only the key itself can make: a silent payment
    /// ECDH share and its DLEQ proof (BIP375). A card gives none.
    func privateKey(at path: [UInt32]) throws -> SecureBytes
}

extension PSBTKeyring {
    public var signsSchnorr: Bool { true }
    public var signsTweaked: Bool { false }
    public func signSchnorr(_ hash: [UInt8], at path: [UInt32], addingTweak tweak: [UInt8]) throws -> [UInt8] {
        throw DerivationError.unsupported("this signing device cannot sign for a silent payment output (a key plus a tweak)")
    }
    public func privateKey(at path: [UInt32]) throws -> SecureBytes {
        throw DerivationError.unsupported(
            "this signing device cannot pay a silent payment address (its ECDH shares need the input keys themselves)")
    }
}

/// A software BIP32 key as a PSBT keyring: a master key (from a seed, or an xprv at depth 0), or
/// an extended key whose own fingerprint derivations name with paths relative to it. Each node
/// on the way to a key is derived once and kept for the run, so a PSBT's hundred keys below one
/// account cost one derivation step each.
public final class BIP32Keyring: PSBTKeyring {
    /// How ECDSA nonces are chosen: Bitcoin Core's low-R grinding (the default: signatures equal
    /// the node's own, a byte shorter half of the time), or plain RFC 6979 (as BIP174's vectors).
    public enum Nonces: Sendable { case lowR, rfc6979 }

    let root: ExtendedKey
    public let fingerprint: [UInt8]
    let nonces: Nonces
    private var nodes: [[UInt32]: ExtendedKey] = [:]

    public init(root: ExtendedKey, nonces: Nonces = .lowR) throws(DerivationError) {
        guard root.isPrivate else { throw .unsupported("an extended public key cannot sign; give the xprv, seed or phrase") }
        (self.root, self.fingerprint, self.nonces) = (root, root.fingerprint, nonces)
    }

    public func owns(fingerprint: [UInt8], path: [UInt32]) -> Bool { fingerprint == self.fingerprint }

    func node(_ path: [UInt32]) throws -> ExtendedKey {
        var key = root, start = 0
        for k in stride(from: path.count, through: 1, by: -1) {
            if let known = nodes[Array(path.prefix(k))] { (key, start) = (known, k); break }
        }
        for i in start..<path.count {
            key = try key.child(path[i], pathForErrors: DerivationPath(Array(path.prefix(i + 1))).description)
            nodes[Array(path.prefix(i + 1))] = key
        }
        return key
    }

    public func publicKey(at path: [UInt32]) throws -> Secp256k1.PublicKey { try node(path).publicKey }

    public func signECDSA(_ hash: [UInt8], at path: [UInt32]) throws -> ECDSASignature {
        let key = try node(path).privateKey!
        switch nonces {
        case .lowR: return try Secp256k1.signECDSALowR(hash: hash, privateKey: key)
        case .rfc6979: return try Secp256k1.signECDSA(hash: hash, privateKey: key)
        }
    }

    public func signSchnorr(_ hash: [UInt8], at path: [UInt32], merkleRoot: [UInt8]?) throws -> [UInt8] {
        try Secp256k1.SchnorrKeyPair(privateKey: try node(path).privateKey!, taprootTweak: true, merkleRoot: merkleRoot).sign(hash)
    }

    public var signsTweaked: Bool { true }

    public func privateKey(at path: [UInt32]) throws -> SecureBytes { try node(path).privateKey! }

    public func signSchnorr(_ hash: [UInt8], at path: [UInt32], addingTweak tweak: [UInt8]) throws -> [UInt8] {
        let key = try SilentPayment.outputPrivateKey(spendKey: try node(path).privateKey!, tweak: tweak)
        return try Secp256k1.SchnorrKeyPair(privateKey: key).sign(hash)
    }
}
