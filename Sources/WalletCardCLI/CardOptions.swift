import ArgumentParser
import Foundation
import WalletCard
import WalletCore
import WalletKeyStore
import WalletKeys
import WalletRecords

/// --reader and --wait: which card. Without --reader, the reader whose card answers the
/// Keycard SELECT — never simply the first card present.
public struct ReaderOptions: ParsableArguments {
    public init() {}

    @Option(help: ArgumentHelp("The reader to use (its full name, or a part of it).", valueName: "name"))
    public var reader: String?

    @Option(help: ArgumentHelp("Wait up to this many seconds for a Keycard to answer.", valueName: "seconds"))
    public var wait: Double = 0

    public func validate() throws {
        guard wait.isFinite, (0...3600).contains(wait) else { throw ValidationError("--wait must be 0 to 3600 seconds") }
    }

    /// A Keycard, selected, on the chosen reader. With --wait, until a card in one of the
    /// readers answers the Keycard SELECT (another card, or none, is waited past).
    public func keycard() throws -> (keycard: Keycard, reader: String) {
        let context = try PCSCContext()
        // What the last attempt saw, for the error when none found a Keycard.
        var readers = [String](), candidates = [String](), failures = [CardError]()
        return try Self.untilKeycard(wait: wait) { () throws -> (Keycard, String)? in
            readers = try context.readers()
            candidates = reader.map { name in readers.filter { $0 == name || $0.contains(name) } } ?? readers
            failures = []
            for name in candidates {
                switch Self.select(context, name) {
                case .success(let keycard): return (keycard, name)
                case .failure(let error):
                    if case .unsupportedApplet = error { throw error }
                    failures.append(error)
                }
            }
            return nil
        } failure: { () throws -> Never in
            guard !readers.isEmpty else { throw CardError.noReader }
            if let reader, candidates.isEmpty { throw CardError.noSuchReader(name: reader, present: readers) }
            // With one reader named, its own error (no card there, …); else: no Keycard anywhere.
            if reader != nil, candidates.count == 1, let only = failures.first { throw only }
            throw CardError.noKeycard
        }
    }

    /// Tries `attempt` until it finds a Keycard or `wait` seconds have passed (at least once),
    /// polling: a reader's state change says nothing about whether a Keycard answers SELECT
    /// (a blank card in the reader, or the Keycard inserted late, is waited past).
    static func untilKeycard<T>(wait: Double, _ attempt: () throws -> T?, failure: () throws -> Never) throws -> T {
        let deadline = Date().addingTimeInterval(wait)
        while true {
            if let found = try attempt() { return found }
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { try failure() }
            usleep(UInt32(min(left, 0.25) * 1_000_000))
        }
    }

    private static func select(_ context: PCSCContext, _ name: String) -> Result<Keycard, CardError> {
        Result { () throws(CardError) -> Keycard in
            let keycard = Keycard(channel: try context.connect(name))
            try keycard.select()
            return keycard
        }
    }
}

/// Card secrets (PIN, PUK, duress PIN, pairing password, new values) from one JSON record in a
/// 0600 file or on a descriptor, or asked for without echo on the terminal. Never argv or env.
public struct CredentialOptions: ParsableArguments {
    public init() {}

    @Option(
        help: ArgumentHelp(
            "A file (mode 0600) with one JSON record of the secrets the command needs: pin, puk, duress_pin, pairing_password, new_pin, new_puk, new_pairing_password.",
            valueName: "path"))
    public var credentialsFile: String?

    @Option(help: ArgumentHelp("Read that record from this open file descriptor.", valueName: "n"))
    public var credentialsFd: Int32?

    public func validate() throws {
        if credentialsFile != nil && credentialsFd != nil { throw ValidationError("give --credentials-file or --credentials-fd, not both") }
    }

    /// The named secrets; a missing one is asked for on a terminal, else it is a usage error.
    public func read(_ names: [(field: String, prompt: String, confirm: Bool)]) throws -> [String: SecureBytes] {
        var record = JSONObject()
        if let credentialsFile { record = try JSONParser.parseRecord(try SecretInput.read(.file(credentialsFile)).bytes) }
        if let credentialsFd { record = try JSONParser.parseRecord(try SecretInput.read(.fileDescriptor(credentialsFd)).bytes) }
        var out = [String: SecureBytes]()
        for (field, prompt, confirm) in names {
            if let text = try record.optionalString(field) {
                out[field] = SecureBytes(Array(text.utf8))
            } else if credentialsFile == nil && credentialsFd == nil && isatty(0) != 0 {
                out[field] = try SecretInput.read(.prompt(label: prompt, confirm: confirm))
            } else {
                throw ValidationError("the credentials record has no \"\(field)\"")
            }
            try Self.checkFormat(field, out[field]!)
        }
        // Optional fields, checked only: the duress PIN lets change-pin refuse to make the PIN
        // equal to it (the PIN would then open the duress wallet).
        for field in ["duress_pin"] where out[field] == nil {
            if let text = try record.optionalString(field) {
                out[field] = SecureBytes(Array(text.utf8))
                try Self.checkFormat(field, out[field]!)
            }
        }
        return out
    }

    /// PINs are 6 digits and PUKs 12, checked before anything is sent: the card counts a
    /// malformed PIN as a wrong try. The message names the field, never the value.
    static func checkFormat(_ field: String, _ value: SecureBytes) throws {
        let digits: Int? =
            switch field {
            case "pin", "new_pin", "duress_pin": 6
            case "puk", "new_puk": 12
            default: nil
            }
        guard let digits else { return }
        guard value.count == digits, value.bytes.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw CardError.badCredential("\(field) must be \(digits) digits")
        }
    }
}

/// --pairing NAME: a pairing kept in the key store (its key never leaves it except into the
/// card). The key-store options are the tool's own (shared with --wallet where a tool has it).
public struct PairingOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The key-store entry holding this card's pairing (made by card-info pair --store).", valueName: "name"))
    public var pairing: String?

    public init() {}

    public func load(_ keyStore: KeyStoreOptions) throws -> Pairing? {
        guard let pairing else { return nil }
        try keyStore.requireEntry(pairing)
        let entry = try keyStore.store.load(pairing, passphrase: try keyStore.passphrase(confirm: false))
        guard entry.metadata.kind == .keycardPairing, entry.secret.count == 33 else {
            throw KeyStoreError.unsupportedEntry("entry '\(pairing)' is not a Keycard pairing")
        }
        return Pairing(
            index: entry.secret.bytes[0], key: SecureBytes(Array(entry.secret.bytes[1...])),
            instanceUID: entry.metadata.card.flatMap { try? Hex.decode($0) })
    }

    /// A selected card with the secure channel open.
    public func open(_ readers: ReaderOptions, _ keyStore: KeyStoreOptions) throws -> (keycard: Keycard, reader: String) {
        guard let pairing = try load(keyStore) else { throw ValidationError("this command needs --pairing NAME") }
        let (keycard, reader) = try readers.keycard()
        try keycard.openSecureChannel(pairing)
        return (keycard, reader)
    }

    /// A card ready for key use: channel open and the PIN (from the credentials) verified.
    public func unlocked(_ readers: ReaderOptions, _ keyStore: KeyStoreOptions, _ credentials: CredentialOptions) throws -> Keycard {
        if let pairing { try keyStore.requireEntry(pairing) }
        let pin = try credentials.read([("pin", "Keycard PIN: ", false)])["pin"]!
        let (keycard, _) = try open(readers, keyStore)
        try keycard.verifyPIN(pin)
        if keycard.info?.keyLoaded == false { throw CardError.noKeyLoaded }
        return keycard
    }
}

/// Records for what the card says.
public enum CardRecords {
    public static func info(_ info: ApplicationInfo, reader: String) -> JSONObject {
        var r = JSONObject()
        r["type"] = .string("keycard")
        r["reader"] = .string(reader)
        r["initialized"] = .bool(info.initialized)
        r["secure_channel_public_key"] = .string(Hex.encode(info.secureChannelPublicKey))
        guard info.initialized else { return r }
        if let uid = info.instanceUID { r["instance_uid"] = .string(Hex.encode(uid)) }
        if let version = info.versionText { r["applet_version"] = .string(version) }
        if let slots = info.freePairingSlots { r["free_pairing_slots"] = .number(String(slots)) }
        r["key_loaded"] = .bool(info.keyLoaded)
        if info.keyLoaded, let uid = info.keyUID { r["key_uid"] = .string(Hex.encode(uid)) }
        if let bits = info.capabilities {
            let names = ["secure_channel", "key_management", "credentials_management", "ndef", "factory_reset"]
            r["capabilities"] = .array(names.enumerated().filter { bits & (1 << $0.offset) != 0 }.map { .string($0.element) })
        }
        return r
    }

    /// m/84'/0'/… as every other record writes a path.
    public static func path(_ steps: [UInt32]) -> String { DerivationPath(steps).description }
}
