import Monero
import WalletCore
import WalletKeys

/// Reads the key material of one record.
public struct RecordKeys: Sendable {
    /// Field names an extended key may come in: private kinds first, so that a record with
    /// both an xprv and an xpub derives from the private key.
    public static let extendedKeyFields = ExtendedKeyVersion.all.map(\.privatePrefix) + ["extended_key"]
        + ExtendedKeyVersion.all.map(\.publicPrefix)

    /// The coin asked for, if any: "xmr" makes a 32-byte seed a Monero seed.
    public let coin: String?
    /// Where an imported extended key sits, if the user said so.
    public let accountPath: String?
    public let sharedPassphrase: SecureBytes?
    /// The Monero network the run works on, which a view-only record's address must match
    /// (nil: any).
    public let moneroNetwork: MoneroNetwork?

    public init(coin: String?, accountPath: String?, sharedPassphrase: SecureBytes?, moneroNetwork: MoneroNetwork? = nil) {
        self.coin = coin
        self.accountPath = accountPath
        self.sharedPassphrase = sharedPassphrase
        self.moneroNetwork = moneroNetwork
    }

    /// Whether the record carries key material of its own.
    public static func hasKey(_ record: JSONObject) -> Bool {
        record.keys.contains { keyFields.contains($0) }
    }

    private static let keyFields = Set(["mnemonic", "seed", "spend_key", "private_spend_key", "view_key", "private_view_key",
                                        "private_key", "wif"] + extendedKeyFields + ZcashAccountKeys.keyFields)

    /// The seed of a record's BIP39 phrase (with its passphrase) or its "seed" field, for keys
    /// that are not BIP32 (Zcash ZIP-32). `out` loses a consumed "passphrase" field.
    public func seed(_ record: JSONObject, out: inout JSONObject) throws -> SecureBytes {
        if record["seed"] != nil {
            guard sharedPassphrase == nil, record["passphrase"] == nil else {
                throw DerivationError.unsupported("the record has a seed, which already includes any passphrase; drop the passphrase or give the mnemonic instead of the seed")
            }
            return try Hex.decodeSecret(record.string("seed", expected: "hex"))
        }
        guard record["mnemonic"] != nil else {
            throw RecordError.missingField("mnemonic", expected: "a BIP39 phrase, a seed, or a Zcash viewing key (ufvk, uivk, extended_full_viewing_key)")
        }
        let phrase = try record.string("mnemonic", expected: "a seed phrase")
        let scheme = try record.optionalString("scheme").flatMap(MnemonicScheme.init(rawValue:))
        let mnemonic = try MnemonicSchemes.parse(phrase, scheme: scheme, language: record.optionalString("language"))
        guard mnemonic.scheme != .monero else { throw DerivationError.unsupported("a Monero phrase gives no Zcash keys; give a BIP39 phrase") }
        let passphrase = try PassphraseOptions.forRecord(record, shared: sharedPassphrase, out: &out)
        return try MnemonicSchemes.handler(for: mnemonic.scheme).seed(of: mnemonic, passphrase: passphrase)
    }

    /// The key material of a record. `out` loses a consumed "passphrase" field.
    public func source(_ record: JSONObject, out: inout JSONObject) throws -> KeySource {
        let fields = ["mnemonic", "seed"].filter { record[$0] != nil }
        let isMoneroRecord = (try record.optionalString("scheme")) == "monero"
        if fields.contains("seed") {
            guard sharedPassphrase == nil, record["passphrase"] == nil else {
                throw DerivationError.unsupported("the record has a seed, which already includes any passphrase; drop the passphrase or give the mnemonic instead of the seed")
            }
            let seed = try Hex.decodeSecret(record.string("seed", expected: "hex"))
            if isMoneroRecord || coin == "xmr" { return .monero(try MoneroKeys(seed: seed)) }
            return .bip32(try ExtendedKey.master(seed: seed), origin: DerivationPath(), fromSeed: true)
        }
        if fields.contains("mnemonic") {
            let phrase = try record.string("mnemonic", expected: "a seed phrase")
            let scheme = try record.optionalString("scheme").flatMap(MnemonicScheme.init(rawValue:))
            let mnemonic = try MnemonicSchemes.parse(phrase, scheme: scheme, language: record.optionalString("language"))
            let passphrase = try PassphraseOptions.forRecord(record, shared: sharedPassphrase, out: &out)
            let seed = try MnemonicSchemes.handler(for: mnemonic.scheme).seed(of: mnemonic, passphrase: passphrase)
            if mnemonic.scheme == .monero { return .monero(try MoneroKeys(seed: seed)) }
            return .bip32(try ExtendedKey.master(seed: seed), origin: DerivationPath(), fromSeed: true)
        }
        if let field = Self.extendedKeyFields.first(where: { record[$0] != nil }) {
            let key = try ExtendedKey(parsing: record.string(field, expected: "an extended key"))
            // `derive account` writes the key's own path as "path".
            let originText = try accountPath ?? record.optionalString("account_path") ?? record.optionalString("path")
            let origin = try originText.map { text throws(DerivationError) in try DerivationPath(parsing: text) }
            if let origin, origin.components.count != Int(key.depth) {
                throw DerivationError.invalidPath("account path \(origin) has \(origin.components.count) steps but the key is at depth \(key.depth)")
            }
            return .bip32(key, origin: origin, fromSeed: false)
        }
        if let hex = try record.optionalString("private_key") {
            let key = try Hex.decodeSecret(hex)
            guard Secp256k1.isValidPrivateKey(key) else { throw CurveError.invalidPrivateKey }
            return .single(key)
        }
        if let wif = try record.optionalString("wif") {
            return .single(try WIF.decode(wif))
        }
        // Monero keys, under the names this tool and monero-wallet-rpc's query_key use.
        if let field = ["spend_key", "private_spend_key"].first(where: { record[$0] != nil }) {
            return .monero(try MoneroKeys(spendSecret: try Hex.decodeSecret(record.string(field, expected: "hex"))))
        }
        if let field = ["view_key", "private_view_key"].first(where: { record[$0] != nil }) {
            let view = try Hex.decodeSecret(record.string(field, expected: "hex"))
            // The wallet's address under the names derive account and monero-wallet-rpc use.
            if let text = try record.optionalString("primary_address") ?? record.optionalString("address") {
                let address = try MoneroAddress(parsing: text)
                let keys = try MoneroKeys(viewSecret: view, address: address, network: moneroNetwork)
                if let spendPublic = try record.optionalString("public_spend_key"), try Hex.decode(spendPublic) != keys.spendPublic {
                    throw DerivationError.invalidMoneroKey("public_spend_key is not the address's public spend key")
                }
                if let id = address.paymentID {
                    if let given = try record.optionalString("payment_id"), given.lowercased() != Hex.encode(id) {
                        throw DerivationError.invalidMoneroKey("payment_id differs from the integrated address's")
                    }
                    out["payment_id"] = .string(Hex.encode(id))
                }
                return .monero(keys)
            }
            if let spendPublic = try record.optionalString("public_spend_key") {
                return .monero(try MoneroKeys(viewSecret: view, spendPublic: try Hex.decode(spendPublic)))
            }
            throw RecordError.missingField("public_spend_key", expected: "the public spend key (or the \"address\") beside a view key")
        }
        throw RecordError.missingField("mnemonic", expected: "one of mnemonic, seed, an extended key (xpub, zpub, xprv, …), private_key, wif, spend_key or view_key")
    }
}

