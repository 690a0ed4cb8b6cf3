import ArgumentParser
import Foundation
import WalletCard
import WalletCore
import WalletKeyStore
import WalletKeys
import WalletRecords

/// `card-info info`: every reader (or the chosen one) and what its card says — a Keycard's
/// SELECT information, and with a pairing its GET STATUS — one record each.
public enum CardSurvey {
    public static func run(
        _ readers: ReaderOptions, pairing: PairingOptions, keyStore: KeyStoreOptions, into pipeline: RecordPipeline
    ) throws {
        // A closure: Swift 6.3 crashes compiling this body as the function's own (SILGen ownership).
        let survey = { () throws in
            // With --wait: up to that long for a Keycard to answer SELECT; then list them all.
            if readers.wait > 0 { _ = try? readers.keycard() }
            let chosen = readers.reader
            let context = try PCSCContext()
            let present = try context.readers()
            let names = present.filter { name in chosen.map { name == $0 || name.contains($0) } ?? true }
            guard !present.isEmpty else { throw CardError.noReader }
            if let wanted = chosen, names.isEmpty { throw CardError.noSuchReader(name: wanted, present: present) }
            var keycards = 0
            for name in names {
                var r = JSONObject()
                r["type"] = .string("reader")
                r["reader"] = .string(name)
                let connected: Keycard?
                do { connected = Keycard(channel: try context.connect(name)) } catch CardError.noCard { connected = nil }
                guard let keycard = connected else {
                    r["card"] = .bool(false)
                    try pipeline.emit(r)
                    continue
                }
                r["card"] = .bool(true)
                do {
                    let info = try keycard.select()
                    var record = CardRecords.info(info, reader: name)
                    if let pair = try pairing.load(keyStore), info.initialized {
                        try keycard.openSecureChannel(pair)
                        let status = try keycard.status()
                        CardRecords.retries(status, into: &record)
                        if status.keyLoaded { record["current_path"] = .string(CardRecords.path(try keycard.currentPath())) }
                    }
                    keycards += 1
                    try pipeline.emit(record)
                } catch CardError.noKeycard {
                    r["keycard"] = .bool(false)
                    try pipeline.emit(r)
                } catch CardError.unsupportedApplet(let version) {
                    r["type"] = .string("keycard")
                    r["applet_version"] = .string(version)
                    r["supported"] = .bool(false)
                    r["message"] = .string(CardError.unsupportedApplet(version: version).message)
                    try pipeline.emit(r)
                }
            }
            if keycards == 0 { throw CardError.noKeycard }
        }
        try survey()
    }
}

extension CardFlows {
    /// `card-info pair`: everything that can be checked is checked before PAIR takes a slot
    /// (the entry's name is free, the card initialized); the pairing is kept as key-store entry
    /// `store`, or its slot freed again. The "paired" record.
    public static func pairAndKeep(
        _ readers: ReaderOptions, credentials: CredentialOptions, keyStore: KeyStoreOptions, store: String
    ) throws -> JSONObject {
        try FileKeyStore.validate(name: store)
        if try keyStore.store.exists(store) { throw KeyStoreError.entryExists(store) }
        let secrets = try credentials.read([
            ("pairing_password", "Pairing password: ", false),
            ("pin", "PIN (to free the slot again should the pairing not be kept): ", false),
        ])
        let (keycard, reader) = try readers.keycard()
        guard let info = keycard.info, info.initialized else { throw CardError.notInitialized }
        let passphrase = try keyStore.passphrase(confirm: true)
        let uid = info.instanceUID.map { Hex.encode($0) }
        let pairing = try pair(
            keycard, pairingSecret: KeycardCrypto.pairingSecret(password: secrets["pairing_password"]!),
            pin: secrets["pin"]!
        ) { pairing in
            let entry = KeyStoreEntry(
                metadata: EntryMetadata(name: store, kind: .keycardPairing, created: Int(Date().timeIntervalSince1970), card: uid),
                secret: pairing.key.prefixed(by: [pairing.index]))
            try keyStore.store.store(entry, passphrase: passphrase)
        }
        var r = JSONObject()
        r["type"] = .string("paired")
        r["reader"] = .string(reader)
        r["pairing"] = .string(store)
        r["index"] = .number(String(pairing.index))
        if let uid { r["instance_uid"] = .string(uid) }
        return r
    }

    /// As init: a new PIN equal to the duress PIN would open the duress wallet. Checked on
    /// the credentials alone, before anything is sent to the card.
    public static func checkNewPIN(_ secrets: [String: SecureBytes]) throws {
        if let duress = secrets["duress_pin"], duress.bytes != secrets["pin"]!.bytes, duress.bytes == secrets["new_pin"]!.bytes {
            throw CardError.badCredential("the new PIN equals the duress PIN, so it would open the duress wallet: choose another")
        }
    }

    /// The seed of a key record for LOAD KEY: a BIP39 phrase (and passphrase) or a seed.
    public static func seed(of record: JSONObject?) throws -> SecureBytes {
        guard let record else { throw RecordError.missingField("mnemonic", expected: "one key record on stdin") }
        if let phrase = try record.optionalString("mnemonic") {
            let bip39 = BIP39()
            let passphrase = try record.optionalString("passphrase").map { SecureBytes(Array($0.utf8)) }
            return try bip39.seed(of: try bip39.parse(phrase, language: nil), passphrase: passphrase)
        }
        if let hex = try record.optionalString("seed") { return try Hex.decodeSecret(hex) }
        throw RecordError.missingField("mnemonic", expected: "a BIP39 mnemonic or a seed")
    }
}

extension CardFlows {
    /// `card-info init`: INIT with the credentials' PIN, PUK, duress PIN and pairing
    /// password; the "initialized" record of the card's SELECT after.
    public static func initialize(
        _ readers: ReaderOptions, credentials: CredentialOptions, pinRetries: UInt8, pukRetries: UInt8
    ) throws -> JSONObject {
        let secrets = try credentials.read([
            ("pin", "New PIN (6 digits): ", true), ("puk", "New PUK (12 digits): ", true),
            ("duress_pin", "Duress PIN (6 digits, not the PIN): ", true),
            ("pairing_password", "Pairing password: ", true),
        ])
        let (keycard, reader) = try readers.keycard()
        let secret = KeycardCrypto.pairingSecret(password: secrets["pairing_password"]!)
        try keycard.initialize(
            pin: secrets["pin"]!, puk: secrets["puk"]!, duressPIN: secrets["duress_pin"]!,
            pairingSecret: secret, pinRetries: pinRetries, pukRetries: pukRetries)
        let info = try keycard.select()
        var r = CardRecords.info(info, reader: reader)
        r["type"] = .string("initialized")
        return r
    }

    /// `card-info unblock-pin`: UNBLOCK PIN with the PUK (no PIN to verify: it is blocked).
    public static func unblockPIN(_ session: SessionOptions) throws -> JSONObject {
        let secrets = try session.credentials.read([("puk", "PUK: ", false), ("new_pin", "New PIN: ", true)])
        let (keycard, reader) = try session.pairing.open(session.readers, session.keyStore)
        try keycard.unblockPIN(puk: secrets["puk"]!, newPIN: secrets["new_pin"]!)
        var r = JSONObject(["type": .string("pin_unblocked"), "reader": .string(reader)])
        CardRecords.retries(try keycard.status(), into: &r)
        return r
    }

    /// `card-info factory-reset`: FACTORY RESET of the chosen Keycard.
    public static func factoryReset(_ readers: ReaderOptions) throws -> JSONObject {
        let (keycard, reader) = try readers.keycard()
        try keycard.factoryReset()
        return JSONObject(["type": .string("factory_reset"), "reader": .string(reader)])
    }

    /// `card-info unpair`: frees slot `index`, by default the pairing's own, whose key-store
    /// entry is then destroyed (a pairing that opens nothing is worth nothing).
    public static func unpair(_ keycard: Keycard, _ session: SessionOptions, index: UInt8?, into r: inout JSONObject) throws {
        let own = try session.pairing.load(session.keyStore)!.index
        let slot = index ?? own
        try keycard.unpair(index: slot)
        r["index"] = .number(String(slot))
        if slot == own, let name = session.pairing.pairing {
            try session.keyStore.store.destroy(name)
            r["entry_destroyed"] = .string(name)
        }
    }
}

extension CardRecords {
    /// The PIN's and the PUK's tries left.
    public static func retries(_ status: CardStatus, into r: inout JSONObject) {
        r["pin_retries"] = .number(String(status.pinRetries))
        r["puk_retries"] = .number(String(status.pukRetries))
    }

    /// export-key's path: its steps; a path that does not parse, or m with the chain code
    /// (which the card cannot give), is a usage error.
    public static func exportPath(_ path: String, extended: Bool) throws -> [UInt32] {
        let steps: [UInt32]
        do { steps = try DerivationPath(parsing: path).components } catch { throw ValidationError(error.message) }
        if extended && steps.isEmpty { throw ValidationError(CardError.masterChainCodeUnavailable.message) }
        return steps
    }

    /// EXPORT KEY's answer at `path`: the public key, and the chain code when asked for.
    public static func exported(_ key: ExportedKey, path: [UInt32], into r: inout JSONObject) {
        r["path"] = .string(CardRecords.path(path))
        if let pub = key.publicKey { r["public_key"] = .string(Hex.encode(pub)) }
        if let chain = key.chainCode { r["chain_code"] = .string(Hex.encode(chain)) }
    }
}
