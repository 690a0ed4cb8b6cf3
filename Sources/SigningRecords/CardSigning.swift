import WalletCard
import KeySources
import WalletCardCLI
import WalletCore
import WalletKeys
import WalletRecords
import WalletCrypto

extension CardKeys {
    /// Signs a record's hash on the card (ECDSA): at the record's path or `path`, with
    /// `makeCurrent` making it the card's current key; with neither, the current key; with
    /// `pinless`, at the card's PIN-less path.
    public func sign(_ record: JSONObject, path: String?, makeCurrent: Bool, pinless: Bool, chainId: UInt64?) throws -> JSONObject {
        var out = record
        out["type"] = .string("signature")
        let hash = try HashSignatures.hashToSign(record)
        if RecordKeys.hasKey(record) { throw RecordError.conflictingFields(["a key in the record", "--card"]) }
        // A path (record or --path) signs there; none signs with the card's current key.
        let signed: CardSignature
        if pinless {
            // The card signs at its PIN-less path, which it does not tell without the
            // PIN: a record asking for a path could get another key's signature
            // under its own path, so it is refused; the output says "pinless":true.
            if record["path"] != nil {
                throw RecordError.conflictingFields(["path", "--pinless (the card signs at its PIN-less path, whatever the record says)"])
            }
            signed = try keycard.sign(hash: hash, key: .pinless)
            out["pinless"] = .bool(true)
        } else if let text = try record.optionalString("path") ?? path {
            let keyPath = try DerivationPath(parsing: text)
            signed = try keycard.sign(hash: hash, key: .path(keyPath.components, makeCurrent: makeCurrent))
            out["path"] = .string(keyPath.description)
        } else {
            signed = try keycard.sign(hash: hash, key: .current)
        }
        out["scheme"] = .string("ecdsa")
        HashSignatures.put(signed.signature, into: &out, chainId: chainId)
        out["public_key"] = .string(Hex.encode(try Secp256k1.PublicKey(parsing: signed.publicKey).compressed))
        return out
    }
}
