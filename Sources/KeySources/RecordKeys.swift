import Monero
import WalletCore
import WalletKeys
import WalletRecords
import WalletCrypto
import Zcash

/// Reads the key material of one record.
public struct RecordKeys: Sendable {
    /// Field names an extended key may come in: private kinds first, so that a record with
    /// both an xprv and an xpub derives from the private key.
    public static let extendedKeyFields =
        ExtendedKeyVersion.all.map(\.privatePrefix) + ["extended_key"]
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

    /// The phrase scheme a coin implies: BIP39 for every coin but Monero, so that 25 words
    /// given with --coin btc are a BIP39 phrase with a word too many, not a Monero seed.
    var impliedScheme: MnemonicScheme? {
        guard let coin else { return nil }
        return Chain(code: coin)?.seedScheme == .monero ? nil : .bip39
    }

    /// Whether the record carries key material of its own.
    public static func hasKey(_ record: JSONObject) -> Bool {
        record.keys.contains { keyFields.contains($0) }
    }

    private static let keyFields = Set(
        [
            "mnemonic", "seed", "spend_key", "private_spend_key", "view_key", "private_view_key",
            "private_key", "wif",
        ] + extendedKeyFields + ZcashAccountKeys.keyFields)

    /// The seed of a record's BIP39 phrase (with its passphrase) or its "seed" field, for keys
    /// that are not BIP32 (Zcash ZIP-32). `out` loses a consumed "passphrase" field.
    public func seed(_ record: JSONObject, out: inout JSONObject) throws -> SecureBytes {
        if record["seed"] != nil {
            guard sharedPassphrase == nil, record["passphrase"] == nil else {
                throw DerivationError.unsupported(
                    "the record has a seed, which already includes any passphrase; drop the passphrase or give the mnemonic instead of the seed"
                )
            }
            return try Hex.decodeSecret(record.string("seed", expected: "hex"))
        }
        guard record["mnemonic"] != nil else {
            throw RecordError.missingField(
                "mnemonic", expected: "a BIP39 phrase, a seed, or a Zcash viewing key (ufvk, uivk, extended_full_viewing_key)")
        }
        let phrase = try record.string("mnemonic", expected: "a seed phrase")
        let scheme = try record.optionalString("scheme").flatMap(MnemonicScheme.init(rawValue:)) ?? impliedScheme
        let mnemonic = try MnemonicSchemes.parse(phrase, scheme: scheme, language: record.optionalString("language"))
        guard mnemonic.scheme != .monero else {
            throw DerivationError.unsupported("a Monero phrase gives no Zcash keys; give a BIP39 phrase")
        }
        let passphrase = try PassphraseOptions.forRecord(record, shared: sharedPassphrase, out: &out)
        return try MnemonicSchemes.handler(for: mnemonic.scheme).seed(of: mnemonic, passphrase: passphrase)
    }

    /// The seed behind `source`, read from `record` once more: a phrase's or seed's that gave a
    /// BIP32 master key, a Zcash seed; nil for every other key.
    public func seed(_ record: JSONObject, behind source: KeySource) throws -> SecureBytes? {
        switch source {
        case .bip32(_, _, fromSeed: true) where record["mnemonic"] != nil || record["seed"] != nil:
            var scratch = record
            return try seed(record, out: &scratch)
        case .chain(let key):
            if case .seed(let seed) = key as? ZcashKeyMaterial { return seed }
            return nil
        case .bip32, .single: return nil
        }
    }

    /// The key a record is signed with: its own key material (of which nothing then outlives the
    /// record: `ownKey`), or the run's (--key-file, --key-fd, --wallet); never both.
    public func signingSource(
        _ record: JSONObject, runSource: KeySource?, out: inout JSONObject
    ) throws -> (source: KeySource, ownKey: Bool) {
        let ownKey = Self.hasKey(record)
        if ownKey && runSource != nil {
            throw RecordError.conflictingFields(["a key in the record", "--key-file/--key-fd/--wallet"])
        }
        guard let source = ownKey ? try self.source(record, out: &out) : runSource else {
            throw RecordError.missingField("private_key", expected: "a key in the record, or --key-file, --key-fd or --wallet")
        }
        return (source, ownKey)
    }

    /// The key material of a record. `out` loses a consumed "passphrase" field.
    public func source(_ record: JSONObject, out: inout JSONObject) throws -> KeySource {
        let fields = ["mnemonic", "seed"].filter { record[$0] != nil }
        let isMoneroRecord = MnemonicScheme(rawValue: try record.optionalString("scheme") ?? "") == .monero
        if fields.contains("seed") {
            guard sharedPassphrase == nil, record["passphrase"] == nil else {
                throw DerivationError.unsupported(
                    "the record has a seed, which already includes any passphrase; drop the passphrase or give the mnemonic instead of the seed"
                )
            }
            let seed = try Hex.decodeSecret(record.string("seed", expected: "hex"))
            if isMoneroRecord || Chain(code: coin)?.seedScheme == .monero { return .chain(try MoneroKeys(seed: seed)) }
            return .bip32(try ExtendedKey.master(seed: seed), origin: DerivationPath(), fromSeed: true)
        }
        if fields.contains("mnemonic") {
            let phrase = try record.string("mnemonic", expected: "a seed phrase")
            let scheme = try record.optionalString("scheme").flatMap(MnemonicScheme.init(rawValue:)) ?? impliedScheme
            let mnemonic = try MnemonicSchemes.parse(phrase, scheme: scheme, language: record.optionalString("language"))
            let passphrase = try PassphraseOptions.forRecord(record, shared: sharedPassphrase, out: &out)
            let seed = try MnemonicSchemes.handler(for: mnemonic.scheme).seed(of: mnemonic, passphrase: passphrase)
            if mnemonic.scheme == .monero { return .chain(try MoneroKeys(seed: seed)) }
            return .bip32(try ExtendedKey.master(seed: seed), origin: DerivationPath(), fromSeed: true)
        }
        if let field = Self.extendedKeyFields.first(where: { record[$0] != nil }) {
            let key = try ExtendedKey(parsing: record.string(field, expected: "an extended key"))
            // `derive account` writes the key's own path as "path".
            let recordPath = try (record.optionalString("account_path") ?? record.optionalString("path")).map {
                text throws(DerivationError) in try DerivationPath(parsing: text)
            }
            let optionPath = try accountPath.map { text throws(DerivationError) in try DerivationPath(parsing: text) }
            let origin = try KeyRecordClaims.resolve(
                "path", record: recordPath, option: optionPath,
                written: { "--account-path \($0)" }, shown: \.description)
            if let origin, origin.components.count != Int(key.depth) {
                throw DerivationError.invalidPath(
                    "account path \(origin) has \(origin.components.count) steps but the key is at depth \(key.depth)")
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
        if let keys = try moneroKeys(record, out: &out) { return .chain(keys) }
        throw RecordError.missingField(
            "mnemonic", expected: "one of mnemonic, seed, an extended key (xpub, zpub, xprv, …), private_key, wif, spend_key or view_key")
    }
}

/// What a record says of the extended key it carries, as `derive account` writes it beside
/// the key: coin, network and script kind. The record describes its key, so an option that
/// contradicts it is an error (an xpub of m/84'/0'/0' asked for Litecoin or P2PKH addresses
/// would give addresses no wallet watches), and an option it makes unnecessary is not needed.
public struct KeyRecordClaims: Sendable, Equatable {
    public var coin: String?
    public var network: String?
    public var script: ScriptKind?

    public init(coin: String? = nil, network: String? = nil, script: ScriptKind? = nil) {
        self.coin = coin
        self.network = network
        self.script = script
    }

    /// The claims of a record that carries an extended key (a phrase or a seed claims
    /// nothing: it derives for any coin, and the options choose).
    public init(record: JSONObject) throws(RecordError) {
        guard RecordKeys.extendedKeyFields.contains(where: { record[$0] != nil }) else { return }
        coin = try record.optionalString("coin")
        network = try record.optionalString("network")
        if let text = try record.optionalString("script") {
            guard let kind = ScriptKind(rawValue: text) else {
                throw .invalidField(
                    field: "script", reason: "must be one of \(ScriptKind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            script = kind
        }
    }

    /// The value to use: the option's or the record's, whichever is given; both, when equal.
    /// `option` is how the option was written ("--coin ltc"), for the error.
    public static func resolve<T: Equatable>(
        _ field: String, record: T?, option: T?, written: (T) -> String,
        shown: (T) -> String
    ) throws(DerivationError) -> T? {
        if let record, let option, record != option {
            throw .conflictsWithRecord(field: field, record: shown(record), option: written(option))
        }
        return option ?? record
    }
}
