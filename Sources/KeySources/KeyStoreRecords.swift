import ArgumentParser
import Foundation
import Monero
import WalletCore
import WalletKeys
import WalletKeyStore
import WalletRecords
import Zcash

extension KeySourceOptions {
    /// The --wallet entry's keys and birthdays (so a record made from them, e.g. derive
    /// account's view-only keys, can carry the birthday on to a new entry), or nil without
    /// --wallet. A BIP39 entry marked passphrase-protected needs the BIP39 passphrase (from
    /// --passphrase-*); one that is not refuses one.
    /// With `wantSeed`, also the seed behind the entry (`KeyStoreRecords.seed`).
    public func loadWallet(
        bip39Passphrase: SecureBytes?, wantSeed: Bool = false
    ) throws -> (source: KeySource, birthdays: [String: Int], seed: SecureBytes?)? {
        guard let wallet else { return nil }
        try keyStore.requireEntry(wallet)
        let entry = try keyStore.store.load(wallet, passphrase: try keyStore.passphrase(confirm: false))
        let source = try KeyStoreRecords.keySource(entry, bip39Passphrase: bip39Passphrase)
        return (source, entry.metadata.birthdays, wantSeed ? try KeyStoreRecords.seed(entry, bip39Passphrase: bip39Passphrase) : nil)
    }
}

/// Entries ↔ records and key sources: the one place that knows what each kind's secret holds.
public enum KeyStoreRecords {

    /// The public record of an entry: name, kind, birthdays, creation time; nothing secret.
    public static func listing(_ m: EntryMetadata) -> JSONObject {
        var out = JSONObject()
        out["type"] = .string("entry")
        out["name"] = .string(m.name)
        out["kind"] = .string(m.kind.rawValue)
        out["created"] = .number(String(m.created))
        out["birthdays"] = .object(birthdayObject(m.birthdays))
        if m.kind == .bip39Mnemonic {
            out["language"] = .string(m.language ?? "english")
            out["passphrase_protected"] = .bool(m.passphraseProtected)
        }
        if let path = m.path { out["path"] = .string(path) }
        return out
    }
    public static func keySource(_ entry: KeyStoreEntry, bip39Passphrase: SecureBytes?) throws -> KeySource {
        let m = entry.metadata
        switch m.kind {
        case .bip39Mnemonic:
            if m.passphraseProtected && bip39Passphrase == nil {
                throw KeyStoreError.unsupportedEntry(
                    "entry '\(m.name)' uses a BIP39 passphrase: give it with --passphrase-file, --passphrase-fd or --passphrase-prompt")
            }
            if !m.passphraseProtected && bip39Passphrase != nil {
                throw KeyStoreError.unsupportedEntry("entry '\(m.name)' has no BIP39 passphrase; drop the --passphrase option")
            }
            let bip39 = BIP39()
            let mnemonic = try bip39.mnemonic(fromEntropy: entry.secret, language: m.language ?? "english")
            return .bip32(
                try ExtendedKey.master(seed: try bip39.seed(of: mnemonic, passphrase: bip39Passphrase)), origin: DerivationPath(),
                fromSeed: true)
        case .bip39Seed:
            return .bip32(try ExtendedKey.master(seed: entry.secret), origin: DerivationPath(), fromSeed: true)
        case .moneroSeed:
            return .chain(try MoneroKeys(seed: entry.secret))
        case .xpub:
            let text = String(decoding: entry.secret.bytes, as: UTF8.self)
            let origin = try m.path.map { text throws in try DerivationPath(parsing: text) }
            return .bip32(try ExtendedKey(parsing: text), origin: origin, fromSeed: false)
        case .moneroView:
            let raw = entry.secret.bytes
            guard raw.count == 64 else { throw KeyStoreError.damaged(name: m.name, reason: "view-only material is not 64 bytes") }
            return .chain(try MoneroKeys(viewSecret: SecureBytes(raw[0..<32]), spendPublic: Array(raw[32..<64])))
        case .keycardPairing:
            throw KeyStoreError.unsupportedEntry("entry '\(m.name)' is a Keycard pairing, not a wallet")
        case .zec:
            guard let material = ZcashKeyMaterial(payload: entry.secret) else {
                throw KeyStoreError.damaged(name: m.name, reason: "not a Zcash seed or viewing key")
            }
            return .chain(material)
        }
    }

    /// The seed behind an entry, for keys that are not BIP32 (ZIP 32's, a PCZT's): a BIP39
    /// phrase's (with the passphrase `keySource` checked), a BIP39 seed entry's, a zec entry's;
    /// nil for the rest.
    public static func seed(_ entry: KeyStoreEntry, bip39Passphrase: SecureBytes?) throws -> SecureBytes? {
        switch entry.metadata.kind {
        case .bip39Mnemonic:
            let bip39 = BIP39()
            let mnemonic = try bip39.mnemonic(fromEntropy: entry.secret, language: entry.metadata.language ?? "english")
            return try bip39.seed(of: mnemonic, passphrase: bip39Passphrase)
        case .bip39Seed: return entry.secret
        case .zec:
            if case .seed(let seed) = ZcashKeyMaterial(payload: entry.secret) { return seed }
            return nil
        case .moneroSeed, .xpub, .moneroView, .keycardPairing: return nil
        }
    }

    /// An entry from a record: a phrase (BIP39 or Monero), a seed, an extended public key, or
    /// Monero view-only keys.
    public static func entry(
        from record: JSONObject, name: String, birthdays: [String: Int],
        passphraseProtected: Bool, now: Int
    ) throws -> KeyStoreEntry {
        func meta(_ kind: EntryKind, language: String? = nil, path: String? = nil) -> EntryMetadata {
            EntryMetadata(
                name: name, kind: kind, created: now, birthdays: birthdays,
                passphraseProtected: passphraseProtected && kind == .bip39Mnemonic, language: language, path: path)
        }
        if passphraseProtected, record["mnemonic"] == nil {
            throw KeyStoreError.unsupportedEntry("--bip39-passphrase applies to a BIP39 phrase only")
        }
        // Zcash: a viewing key, or a phrase or seed of a record that says "coin":"zec".
        if let field = ZcashAccountKeys.keyFields.first(where: { record[$0] != nil }) {
            // All upper case is valid Bech32(m) (QR codes carry it), and derive takes it: one
            // rule, so it is stored in lower case. Mixed case stays as it is, and is refused.
            let given = try record.string(field, expected: "a Zcash viewing key")
            let text = given == given.uppercased() ? given.lowercased() : given
            guard ZcashKeyMaterial.field(of: text) == field else {
                throw RecordError.invalidField(
                    field: field, reason: "not a \(field == "ufvk" ? "uview" : field == "uivk" ? "uivk" : "zxviews") key")
            }
            _ = try ZcashAccountKeys(material: .viewingKey(field: field, text: text), network: .main, account: 0)  // checks it
            return KeyStoreEntry(metadata: meta(.zec), secret: ZcashKeyMaterial.viewingKey(field: field, text: text).payload)
        }
        if Chain(code: try record.optionalString("coin")) == .zcash {
            guard !passphraseProtected else {
                throw KeyStoreError.unsupportedEntry(
                    "a zec entry keeps the seed; give the BIP39 passphrase in the record (\"passphrase\"), not --bip39-passphrase")
            }
            var scratch = record
            let seed = try RecordKeys(coin: Chain.zcash.rawValue, accountPath: nil, sharedPassphrase: nil).seed(record, out: &scratch)
            try ZcashAccountKeys.checkSeed(seed)  // refused here, not called damaged later
            return KeyStoreEntry(metadata: meta(.zec), secret: ZcashKeyMaterial.seed(seed).payload)
        }
        if let phrase = try record.optionalString("mnemonic") {
            let scheme = try record.optionalString("scheme").flatMap(MnemonicScheme.init(rawValue:))
            let m = try MnemonicSchemes.parse(phrase, scheme: scheme, language: record.optionalString("language"))
            let handler = MnemonicSchemes.handler(for: m.scheme)
            return m.scheme == .monero
                ? KeyStoreEntry(metadata: meta(.moneroSeed), secret: handler.entropy(of: m))
                : KeyStoreEntry(metadata: meta(.bip39Mnemonic, language: m.language), secret: handler.entropy(of: m))
        }
        if let seed = try record.optionalString("seed") {
            let bytes = try Hex.decodeSecret(seed)
            if MnemonicScheme(rawValue: try record.optionalString("scheme") ?? "") == .monero {
                _ = try MoneroKeys(seed: bytes)
                return KeyStoreEntry(metadata: meta(.moneroSeed), secret: bytes)
            }
            _ = try ExtendedKey.master(seed: bytes)
            return KeyStoreEntry(metadata: meta(.bip39Seed), secret: bytes)
        }
        if let field = RecordKeys.extendedKeyFields.first(where: { record[$0] != nil }) {
            let text = try record.string(field, expected: "an extended public key")
            let key = try ExtendedKey(parsing: text)
            guard !key.isPrivate else { throw KeyStoreError.unsupportedEntry("store a seed or phrase, not an extended private key") }
            let path = try record.optionalString("account_path") ?? record.optionalString("path")
            if let path { _ = try DerivationPath(parsing: path) }
            return KeyStoreEntry(metadata: meta(.xpub, path: path), secret: SecureBytes(Array(text.utf8)))
        }
        if let secret = try moneroViewEntry(record) { return KeyStoreEntry(metadata: meta(.moneroView), secret: secret) }
        throw RecordError.missingField(
            "mnemonic", expected: "a mnemonic, seed, extended public key, or Monero view_key with public_spend_key or the primary address")
    }

    /// The record `keystore export` writes: the secret in the form the other tools read.
    public static func record(of entry: KeyStoreEntry) throws -> JSONObject {
        let m = entry.metadata
        var out = JSONObject()
        out["type"] = .string("key")  // a key record, as the tools read it
        out["name"] = .string(m.name)
        out["kind"] = .string(m.kind.rawValue)
        switch m.kind {
        case .bip39Mnemonic:
            let mnemonic = try BIP39().mnemonic(fromEntropy: entry.secret, language: m.language ?? "english")
            out["scheme"] = .string("bip39")
            out["language"] = .string(mnemonic.language)
            out["mnemonic"] = .string(mnemonic.phrase)
            out["passphrase_protected"] = .bool(m.passphraseProtected)
        case .bip39Seed:
            out["seed"] = .string(entry.secret.hex)
        case .moneroSeed:
            out["scheme"] = .string("monero")
            out["language"] = .string("english")
            out["mnemonic"] = .string(try MoneroSeed().mnemonic(fromEntropy: entry.secret, language: "english").phrase)
        case .xpub:
            out["xpub"] = .string(String(decoding: entry.secret.bytes, as: UTF8.self))
            if let path = m.path { out["path"] = .string(path) }
        case .moneroView:
            let raw = entry.secret.bytes
            out["view_key"] = .string(Hex.encode(raw.prefix(32)))
            out["public_spend_key"] = .string(Hex.encode(raw.suffix(32)))
        case .keycardPairing:
            // The pairing key opens the card's secure channel: it stays in the store.
            throw KeyStoreError.unsupportedEntry("entry '\(m.name)' is a Keycard pairing; pairings are not exported")
        case .zec:
            out["coin"] = .string(Chain.zcash.rawValue)
            switch ZcashKeyMaterial(payload: entry.secret) {
            case .seed(let seed): out["seed"] = .string(seed.hex)
            case .viewingKey(let field, let text): out[field] = .string(text)
            case nil: throw KeyStoreError.damaged(name: m.name, reason: "not a Zcash seed or viewing key")
            }
        }
        out["birthdays"] = .object(birthdayObject(m.birthdays))
        return out
    }

    /// The highest block height an option or record may name (the engine's bound).
    public static let maxHeight = BlockHeight.max

    /// --birthday chain=height pairs, e.g. btc=840000.
    public static func parseBirthdays(_ items: [String]) throws -> [String: Int] {
        var out = [String: Int]()
        for item in items {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, let height = Int(parts[1]), (0...maxHeight).contains(height) else {
                throw ValidationError("--birthday takes chain=height, e.g. btc=840000 or xmr=3100000")
            }
            out[parts[0]] = height
        }
        return out
    }

    /// A record's "birthdays" object (chain → height), as `birthdayObject` writes it.
    public static func birthdays(in record: JSONObject) throws -> [String: Int] {
        guard let value = record["birthdays"] else { return [:] }
        guard case .object(let object) = value else {
            throw RecordError.invalidField(field: "birthdays", reason: "an object of chain: height")
        }
        var out = [String: Int]()
        for key in object.keys {
            guard let height = try object.optionalInt(key), (0...maxHeight).contains(height) else {
                throw RecordError.invalidField(field: "birthdays", reason: "\(key) is not a block height")
            }
            out[key] = height
        }
        return out
    }

    public static func birthdayObject(_ birthdays: [String: Int]) -> JSONObject {
        var o = JSONObject()
        for key in birthdays.keys.sorted() { o[key] = .number(String(birthdays[key]!)) }
        return o
    }
}
