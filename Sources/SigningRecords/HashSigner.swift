import ArgumentParser
import WalletCore
import WalletKeys
import WalletRecords
import KeySources
import WalletCardCLI
import WalletCrypto

/// Which signature sign-hash makes.
public enum SigningScheme: String, CaseIterable, Sendable, ExpressibleByArgument {
    case ecdsa, schnorr
}

/// sign-hash's signing with a software key: each record's hash, with the key the record or
/// the run gives; the cache derives each path's key once (a card signs in `CardKeys.sign`).
public struct HashSigner {
    public var scheme: SigningScheme
    /// Schnorr: the BIP341 key-path tweak (a BIP86 taproot output key).
    public var taproot: Bool
    /// The key's path when a record has none.
    public var path: String?
    /// ECDSA: EIP-155's v.
    public var chainId: UInt64?
    let cache = SigningKeyCache()

    public init(scheme: SigningScheme = .ecdsa, taproot: Bool = false, path: String? = nil, chainId: UInt64? = nil) {
        (self.scheme, self.taproot, self.path, self.chainId) = (scheme, taproot, path, chainId)
    }

    /// Signs the record's hash with the key in the record (`reader` reads it) or the run's
    /// key (`runSource`: --key-file, --key-fd, --wallet); not both.
    public func sign(_ record: JSONObject, reader: RecordKeys, runSource: KeySource?) throws -> JSONObject {
        var out = record
        out["type"] = .string("signature")
        let hash = try HashSignatures.hashToSign(record)
        let (source, ownKey) = try reader.signingSource(record, runSource: runSource, out: &out)
        let (key, keyPath) = try cache.key(source, path: try record.optionalString("path") ?? path, cacheable: !ownKey)
        out = SecretFields.removed(from: out)
        if let keyPath { out["path"] = .string(keyPath) }
        out["scheme"] = .string(scheme.rawValue)
        switch scheme {
        case .ecdsa:
            HashSignatures.put(try Secp256k1.signECDSA(hash: hash, privateKey: key), into: &out, chainId: chainId)
            out["public_key"] = .string(try cache.publicKeyHex(key, tag: keyPath ?? "", cacheable: !ownKey))
        case .schnorr:
            let pair = try cache.schnorr(key, tag: (keyPath ?? "") + (taproot ? "#tr" : ""), taproot: taproot, cacheable: !ownKey)
            // "aux_rand" in a record reproduces BIP340 test vectors; otherwise fresh randomness.
            let aux = try record.optionalString("aux_rand").map { text throws -> [UInt8] in try Hex.decode(text) }
            out["signature"] = .string(Hex.encode(try pair.sign(hash, auxRand: aux)))
            out["public_key"] = .string(Hex.encode(pair.xOnlyPublicKey))
            if taproot { out["taproot"] = .bool(true) }
        }
        return out
    }
}

/// The pieces of hash signatures that every signer and checker shares.
public enum HashSignatures {
    /// The record's 32-byte hash to sign.
    public static func hashToSign(_ record: JSONObject) throws -> [UInt8] {
        let hash = try hashField(record, expected: "the 32-byte hash to sign, in hex")
        guard hash.count == 32 else { throw SignatureError.invalidHashLength(hash.count) }
        return hash
    }

    /// An ECDSA signature's fields: r ‖ s, recovery id, Ethereum's v as "eth_v" (27/28 or
    /// EIP-155; "v" is the record schema version), DER.
    public static func put(_ sig: ECDSASignature, into out: inout JSONObject, chainId: UInt64?) {
        out["signature"] = .string(Hex.encode(sig.compact))
        out["recovery_id"] = .number(String(sig.recoveryID))
        let v = chainId.map { $0 * 2 + 35 + UInt64(sig.recoveryID) } ?? UInt64(27 + sig.recoveryID)
        out["eth_v"] = .number(String(v))
        out["der"] = .string(Hex.encode(sig.der))
    }

    /// The recovery id from "recovery_id", or from Ethereum's v: "eth_v", or "v" of 27 and above
    /// as records of Satchel before record versions (and other tools) write it.
    public static func recoveryID(_ record: JSONObject) throws -> Int {
        if let id = try record.optionalInt("recovery_id") { return id }
        let field = record["eth_v"] != nil ? "eth_v" : "v"
        guard let v = try record.optionalInt(field), field == "eth_v" || v >= 27 else {
            throw RecordError.missingField("recovery_id", expected: "recovery_id (0–3) or eth_v")
        }
        if v == 27 || v == 28 { return v - 27 }
        if v >= 35 { return (v - 35) % 2 }
        throw RecordError.invalidField(field: field, reason: "must be 27, 28 or an EIP-155 value (≥ 35)")
    }

    /// A record's "hash": hex, with or without the 0x that Ethereum tools write.
    public static func hashField(_ record: JSONObject, expected: String) throws -> [UInt8] {
        let text = try record.string("hash", expected: expected)
        return try Hex.decode(text.hasPrefix("0x") || text.hasPrefix("0X") ? String(text.dropFirst(2)) : text)
    }

    /// `sign-hash verify`: the record's signature checked against its public_key, its address
    /// or `address` (the expected signer, which replaces what the record claims).
    public static func verify(_ record: JSONObject, address: String?) throws -> JSONObject {
        var out = record
        out["type"] = .string("verification")
        let hash = try HashSignatures.hashField(record, expected: "hex")
        let signature = try Hex.decode(record.string("signature", expected: "hex r‖s (64 bytes)"))
        if let address {
            // The expected signer replaces whatever key the record itself claims.
            out["address"] = .string(address)
            out["public_key"] = nil
        }
        let record = out
        let scheme = try record.optionalString("scheme") ?? "ecdsa"
        let valid: Bool
        switch scheme {
        case "schnorr":
            let key: [UInt8]
            if let hex = try record.optionalString("public_key") {
                key = try Hex.decode(hex)
            } else {
                // A taproot address commits to the x-only output key itself.
                let signer = try SignerAddress(
                    parsing: record.string("address", expected: "the 32-byte x-only public_key or a taproot address"))
                guard signer.script == .p2tr else {
                    throw SignerAddressError.schemeMismatch(
                        "a Schnorr (BIP340) signature is checked against a taproot address (bc1p…) or a 32-byte public_key, and this is a \(signer.script.rawValue) address: verify an ECDSA signature (\"scheme\":\"ecdsa\") against it"
                    )
                }
                key = signer.program
            }
            guard hash.count == 32 else { throw SignatureError.invalidHashLength(hash.count) }
            valid = Secp256k1.verifySchnorr(message: hash, signature: signature, xOnlyPublicKey: key)
        case "ecdsa":
            if let hex = try record.optionalString("public_key") {
                valid = try Secp256k1.verifyECDSA(
                    hash: hash, compact: signature, publicKey: try Secp256k1.PublicKey(parsing: try Hex.decode(hex)))
            } else {
                let signer = try SignerAddress(parsing: record.string("address", expected: "the signer's public_key or address"))
                guard signer.script != .p2tr else {
                    throw SignerAddressError.schemeMismatch(
                        "a taproot address (bc1p…) names a BIP340 key: it is checked with a Schnorr signature (\"scheme\":\"schnorr\"), not ECDSA"
                    )
                }
                let recovered = try Secp256k1.recoverECDSA(
                    hash: hash, compact: signature, recoveryID: try HashSignatures.recoveryID(record))
                valid = try signer.isPaid(to: recovered) && (Secp256k1.verifyECDSA(hash: hash, compact: signature, publicKey: recovered))
            }
        default:
            throw RecordError.invalidField(field: "scheme", reason: "must be ecdsa or schnorr")
        }
        guard valid else { throw SignatureError.verificationFailed }
        out["valid"] = .bool(true)
        return out
    }

    /// `sign-hash recover`: the public key of a recoverable ECDSA signature, and its address
    /// for `coin` (eth, or btc: P2PKH and P2WPKH).
    public static func recover(_ record: JSONObject, coin: String) throws -> JSONObject {
        var out = record
        out["type"] = .string("recovery")
        let hash = try HashSignatures.hashField(record, expected: "hex")
        let signature = try Hex.decode(record.string("signature", expected: "hex r‖s (64 bytes)"))
        let key = try Secp256k1.recoverECDSA(hash: hash, compact: signature, recoveryID: try HashSignatures.recoveryID(record))
        out["public_key"] = .string(Hex.encode(key.compressed))
        if Chain(code: coin) == .ethereum {
            out["address"] = .string(try CoinNetwork.find(.ethereum, network: "main")!.address(for: key, script: .ethereum).address)
        } else {
            let btc = CoinNetwork.find(.bitcoin, network: "main")!
            out["address"] = .string(try btc.address(for: key, script: .p2pkh).address)
            out["p2wpkh_address"] = .string(try btc.address(for: key, script: .p2wpkh).address)
        }
        return out
    }
}
