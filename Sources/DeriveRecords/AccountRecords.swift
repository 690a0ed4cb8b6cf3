import KeySources
import WalletCore
import WalletKeys
import WalletRecords

/// `derive account`'s record for each key record: an account's extended public key,
/// fingerprints and descriptors (BIP32), primary address and keys (Monero), or viewing keys
/// and default addresses (Zcash Sapling and Orchard).
public struct AccountRequest {
    public var chainOptions: ChainOptions
    /// Monero: the private view key alone (a view-only wallet), not the spend key.
    public var viewOnly: Bool
    /// --ur: the account also as a UR text ("ur"), for a watch-only wallet to scan.
    public var ur: AccountURType?

    public init(chainOptions: ChainOptions, viewOnly: Bool = false, ur: AccountURType? = nil) {
        self.chainOptions = chainOptions
        self.viewOnly = viewOnly
        self.ur = ur
    }

    /// The account record of one input record, from its key or the key-store entry's
    /// (`keys.source`) that replaces it.
    public func account(_ record: JSONObject, keys: DeriveKeys) throws -> JSONObject {
        if let chain = DeriveChains.claiming(record, keys: keys, options: chainOptions) {
            return try chain.account(self, record: record, keys: keys, read: nil)
        }
        var out = record
        let source = try keys.key(of: record, out: &out)
        out = PhraseFields.removed(from: SecretFields.removed(from: out))
        out["type"] = .string("account")
        let owner = DeriveChains.owner(of: source)
        if ur != nil {
            guard owner?.hasAccountUR == true, chainOptions.multisigScript == nil else {
                throw DerivationError.unsupported(
                    "--ur exports a BIP32 account of a single-key script (Monero, Zcash and --purpose 48 have none)")
            }
        }
        guard let owner else { throw DerivationError.unsupported("a lone private key has no account; give a seed or an extended key") }
        return try owner.account(self, record: record, keys: keys, read: ReadKey(source: source, rest: out))
    }
}

/// The fields `derive account` writes about an account, dropped from address records made
/// from it; a user's own fields (an id, a label) pass through.
public enum AccountFields {
    public static let names: Set<String> = ExtendedKeyVersion.prefixes.union([
        "extended_key", "descriptor", "change_descriptor", "key_origin", "descriptor_key", "master_fingerprint", "fingerprint",
        "seed_fingerprint",
        "parent_fingerprint",
        "depth", "child_number", "account_path", "primary_address", "public_spend_key", "public_view_key", "birthdays",
        "used_receive", "next_receive_index", "used_change", "next_change_index", "account",
        "ufvk", "uivk", "extended_full_viewing_key", "incoming_viewing_key", "default_diversifier_index", "default_address",
        "unified_address", "transparent_address",
    ])

    public static func removed(from record: JSONObject) -> JSONObject {
        var out = record
        for key in record.keys where names.contains(key) { out[key] = nil }
        return out
    }
}
