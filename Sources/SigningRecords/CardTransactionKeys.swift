import Bitcoin
import WalletCard
import KeySources
import WalletCardCLI
import WalletCore
import WalletKeys
import WalletRecords
import WalletCrypto

/// The card as sign-tx's Ethereum key source: the public key at a path (the summary's `from`)
/// and an ECDSA signature there, made by the card on the hash sign-tx built.
extension CardKeys: SecpKeySource {
    public func publicKey(at path: String?) throws -> (key: Secp256k1.PublicKey, path: String?) {
        guard let path else {
            throw RecordError.missingField("path", expected: "the BIP32 path of the signing key, or --path (the card signs at a path)")
        }
        let parsed = try DerivationPath(parsing: path)
        return (try publicKey(at: parsed.components), parsed.description)
    }

    public func signECDSA(_ hash: [UInt8], at path: String?) throws -> ECDSASignature {
        guard let path else { throw RecordError.missingField("path", expected: "the BIP32 path of the signing key, or --path") }
        return try keycard.sign(hash: hash, key: .path(try DerivationPath(parsing: path).components, makeCurrent: false)).signature
    }
}

/// The card as a PSBT key ring: derivations name its master key's fingerprint; each input's
/// hash is signed on the card at the derivation's path, and the key the card signed with must be
/// the one the derivation names. Taproot inputs are refused: applet 3.x signs ECDSA only.
public final class CardPSBTKeys: PSBTKeyring {
    let card: CardKeys
    private var masterFingerprint: [UInt8]?

    public init(_ card: CardKeys) { self.card = card }

    public func owns(fingerprint: [UInt8], path: [UInt32]) -> Bool {
        if masterFingerprint == nil, let master = try? card.masterPublicKey() {
            masterFingerprint = Array(Hash.hash160(master.compressed).prefix(4))
        }
        return fingerprint == masterFingerprint
    }

    public func publicKey(at path: [UInt32]) throws -> Secp256k1.PublicKey { try card.publicKey(at: path) }

    public func signECDSA(_ hash: [UInt8], at path: [UInt32]) throws -> ECDSASignature {
        let signed = try card.keycard.sign(hash: hash, key: .path(path, makeCurrent: false))
        // The card names the key it signed with; a card answering for another key is refused.
        guard try Secp256k1.PublicKey(parsing: signed.publicKey) == (try publicKey(at: path)),
            try Secp256k1.verifyECDSA(hash: hash, compact: signed.signature.compact, publicKey: try publicKey(at: path))
        else {
            throw SignatureError.verificationFailed
        }
        return signed.signature
    }

    public var signsSchnorr: Bool { false }

    public func signSchnorr(_ hash: [UInt8], at path: [UInt32], merkleRoot: [UInt8]?) throws -> [UInt8] {
        throw DerivationError.unsupported("the Keycard (applet 3.x) signs ECDSA only: a taproot input cannot be signed on the card")
    }
}
