import ArgumentParser
import Foundation
import WalletCard
import WalletCardCLI
import WalletCLI
import WalletCore
import WalletKeys
import WalletKeyStore

@main
struct CardInfoCommand: ParsableCommand {
    /// Core dumps off before anything is read: a crash must not write secrets to disk.
    static func main() {
        ProcessHardening.disableCoreDumps()
        main(nil)
    }

    static let configuration = CommandConfiguration(
        commandName: "card-info",
        abstract: "A Status Keycard over PC/SC: what it is and holds, and its management.",
        discussion: """
        With no subcommand, lists the readers and prints each Keycard's SELECT information as a
        JSON record; with --pairing, also its GET STATUS. Secrets (PIN, PUK, pairing password)
        come from --credentials-file/--credentials-fd (one JSON record) or a no-echo prompt,
        never from arguments. See card-info(1).

        Examples:
          card-info
          card-info init --credentials-file creds.json
          card-info pair --store my-card --credentials-file creds.json
          card-info verify-pin --pairing my-card --credentials-fd 3 3<creds.json
          card-info factory-reset --confirm
        """,
        version: SatchelVersion.string,
        subcommands: [Info.self, Initialize.self, Pair.self, Unpair.self, VerifyPIN.self, ChangePIN.self, ChangePUK.self,
                      ChangePairingPassword.self, UnblockPIN.self, LoadKey.self, GenerateKey.self, RemoveKey.self,
                      SetPinlessPath.self, ExportKey.self, FactoryReset.self],
        defaultSubcommand: Info.self)
}

/// Runs a card command: its records on stdout, a failure on stderr with its exit status.
func runCard(_ body: (RecordPipeline) throws -> Void) throws {
    let pipeline = RecordPipeline(tool: "card-info")
    do {
        try body(pipeline)
        try pipeline.flush()
    } catch let error as any WalletError {
        try pipeline.fail(error).exitIfFailed()
    }
}

extension CardInfoCommand {
    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "info", abstract: "Readers, cards and what each Keycard says (default).")
        @OptionGroup var readers: ReaderOptions
        @OptionGroup var pairing: PairingOptions
        @OptionGroup var keyStore: KeyStoreOptions

        func run() throws {
            try runCard { pipeline in
                // With --wait: up to that long for a Keycard to answer SELECT; then list them all.
                if readers.wait > 0 { _ = try? readers.keycard() }
                let context = try PCSCContext()
                let present = try context.readers()
                let names = present.filter { name in readers.reader.map { name == $0 || name.contains($0) } ?? true }
                guard !present.isEmpty else { throw CardError.noReader }
                if let wanted = readers.reader, names.isEmpty { throw CardError.noSuchReader(name: wanted, present: present) }
                var keycards = 0
                for name in names {
                    var r = JSONObject()
                    r["type"] = .string("reader")
                    r["reader"] = .string(name)
                    let keycard: Keycard
                    do {
                        keycard = Keycard(channel: try context.connect(name))
                    } catch CardError.noCard {
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
                            record["pin_retries"] = .number(String(status.pinRetries))
                            record["puk_retries"] = .number(String(status.pukRetries))
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
        }
    }

    struct Initialize: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "init", abstract: "Set PIN, PUK, duress PIN and pairing password on a new card (INIT, 58-byte form).")
        @OptionGroup var readers: ReaderOptions
        @OptionGroup var credentials: CredentialOptions
        @Option(help: "PIN tries before it blocks (2–10).") var pinRetries: UInt8 = 3
        @Option(help: "PUK tries before the card is lost (3–12).") var pukRetries: UInt8 = 5

        func validate() throws {
            guard (2...10).contains(pinRetries) else { throw ValidationError("--pin-retries must be 2 to 10") }
            guard (3...12).contains(pukRetries) else { throw ValidationError("--puk-retries must be 3 to 12") }
        }

        func run() throws {
            try runCard { pipeline in
                let secrets = try credentials.read([("pin", "New PIN (6 digits): ", true), ("puk", "New PUK (12 digits): ", true),
                                                    ("duress_pin", "Duress PIN (6 digits, not the PIN): ", true),
                                                    ("pairing_password", "Pairing password: ", true)])
                let (keycard, reader) = try readers.keycard()
                let secret = KeycardCrypto.pairingSecret(password: secrets["pairing_password"]!)
                try keycard.initialize(pin: secrets["pin"]!, puk: secrets["puk"]!, duressPIN: secrets["duress_pin"]!,
                                       pairingSecret: secret, pinRetries: pinRetries, pukRetries: pukRetries)
                let info = try keycard.select()
                var r = CardRecords.info(info, reader: reader)
                r["type"] = .string("initialized")
                try pipeline.emit(r)
            }
        }
    }

    struct Pair: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Pair with the card and keep the pairing in the key store (never printed).")
        @OptionGroup var readers: ReaderOptions
        @OptionGroup var credentials: CredentialOptions
        @Option(help: ArgumentHelp("The key-store entry to create for the pairing.", valueName: "name")) var store: String
        @OptionGroup var keyStore: KeyStoreOptions

        func run() throws {
            try runCard { pipeline in
                // Everything that can be checked is checked before PAIR takes a slot.
                try FileKeyStore.validate(name: store)
                if try keyStore.store.exists(store) { throw KeyStoreError.entryExists(store) }
                let secrets = try credentials.read([("pairing_password", "Pairing password: ", false),
                                                    ("pin", "PIN (to free the slot again should the pairing not be kept): ", false)])
                let (keycard, reader) = try readers.keycard()
                guard let info = keycard.info, info.initialized else { throw CardError.notInitialized }
                let passphrase = try keyStore.passphrase(confirm: true)
                let uid = info.instanceUID.map { Hex.encode($0) }
                let pairing = try CardFlows.pair(keycard, pairingSecret: KeycardCrypto.pairingSecret(password: secrets["pairing_password"]!),
                                                 pin: secrets["pin"]!) { pairing in
                    let entry = KeyStoreEntry(metadata: EntryMetadata(name: store, kind: .keycardPairing, created: Int(Date().timeIntervalSince1970), card: uid),
                                              secret: SecureBytes([pairing.index] + pairing.key.bytes))
                    try keyStore.store.store(entry, passphrase: passphrase)
                }
                var r = JSONObject()
                r["type"] = .string("paired")
                r["reader"] = .string(reader)
                r["pairing"] = .string(store)
                r["index"] = .number(String(pairing.index))
                if let uid { r["instance_uid"] = .string(uid) }
                try pipeline.emit(r)
            }
        }
    }

    /// What a command on a paired card needs: the reader, the pairing (in the key store) and
    /// the credentials record.
    struct SessionOptions: ParsableArguments {
        @OptionGroup var readers: ReaderOptions
        @OptionGroup var pairing: PairingOptions
        @OptionGroup var keyStore: KeyStoreOptions
        @OptionGroup var credentials: CredentialOptions

        /// A command inside the secure channel after VERIFY PIN; `body` fills in its record.
        /// `check` sees the credentials before anything is sent to the card.
        func run(_ name: String, extra: [(field: String, prompt: String, confirm: Bool)] = [],
                 check: ([String: SecureBytes]) throws -> Void = { _ in },
                 _ body: (Keycard, [String: SecureBytes], inout JSONObject) throws -> Void) throws {
            try runCard { pipeline in
                // A misspelt pairing is reported before the PIN is asked for.
                if let name = pairing.pairing { try keyStore.requireEntry(name) }
                let secrets = try credentials.read([("pin", "PIN: ", false)] + extra)
                try check(secrets)
                let (keycard, reader) = try pairing.open(readers, keyStore)
                try keycard.verifyPIN(secrets["pin"]!)
                var r = JSONObject()
                r["type"] = .string(name)
                r["reader"] = .string(reader)
                try body(keycard, secrets, &r)
                try pipeline.emit(r)
            }
        }
    }

    struct Unpair: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Free a pairing slot (this pairing's own by default, then its key-store entry is destroyed).")
        @OptionGroup var session: SessionOptions
        @Option(help: "Another slot to free.") var index: UInt8?

        func run() throws {
            try session.run("unpaired") { keycard, _, r in
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
    }

    struct VerifyPIN: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "verify-pin", abstract: "Check the PIN; a wrong one says how many tries are left.")
        @OptionGroup var session: SessionOptions

        func run() throws {
            try session.run("pin_verified") { keycard, _, r in
                let status = try keycard.status()
                r["pin_retries"] = .number(String(status.pinRetries))
                r["puk_retries"] = .number(String(status.pukRetries))
            }
        }
    }

    struct ChangePIN: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "change-pin", abstract: "Set a new PIN (credentials: pin, new_pin).")
        @OptionGroup var session: SessionOptions

        func run() throws {
            try session.run("pin_changed", extra: [("new_pin", "New PIN: ", true)], check: { s in
                // As init: a PIN equal to the duress PIN would open the duress wallet.
                if let duress = s["duress_pin"], duress.bytes != s["pin"]!.bytes, duress.bytes == s["new_pin"]!.bytes {
                    throw CardError.badCredential("the new PIN equals the duress PIN, so it would open the duress wallet: choose another")
                }
            }) { keycard, s, r in
                let changed = try CardFlows.changePIN(keycard, pin: s["pin"]!, newPIN: s["new_pin"]!, duressPIN: s["duress_pin"])
                r["changed"] = .string(changed.rawValue)
            }
        }
    }

    struct ChangePUK: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "change-puk", abstract: "Set a new PUK (credentials: pin, new_puk).")
        @OptionGroup var session: SessionOptions

        func run() throws {
            try session.run("puk_changed", extra: [("new_puk", "New PUK: ", true)]) { keycard, s, _ in try keycard.changePUK(s["new_puk"]!) }
        }
    }

    struct ChangePairingPassword: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "change-pairing-password",
                                                        abstract: "Set a new pairing password for future pairings (credentials: pin, new_pairing_password).")
        @OptionGroup var session: SessionOptions

        func run() throws {
            try session.run("pairing_password_changed", extra: [("new_pairing_password", "New pairing password: ", true)]) { keycard, s, _ in
                    try keycard.changePairingSecret(KeycardCrypto.pairingSecret(password: s["new_pairing_password"]!))
                }
        }
    }

    struct UnblockPIN: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "unblock-pin", abstract: "Unblock a blocked PIN with the PUK (credentials: puk, new_pin).")
        @OptionGroup var session: SessionOptions

        func run() throws {
            try runCard { pipeline in
                let secrets = try session.credentials.read([("puk", "PUK: ", false), ("new_pin", "New PIN: ", true)])
                let (keycard, reader) = try session.pairing.open(session.readers, session.keyStore)
                try keycard.unblockPIN(puk: secrets["puk"]!, newPIN: secrets["new_pin"]!)
                let status = try keycard.status()
                try pipeline.emit(JSONObject(["type": .string("pin_unblocked"), "reader": .string(reader),
                                              "pin_retries": .number(String(status.pinRetries)), "puk_retries": .number(String(status.pukRetries))]))
            }
        }
    }

    struct LoadKey: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "load-key",
                                                        abstract: "Load a master key from a BIP39 phrase or seed record on stdin ({\"mnemonic\"[,\"passphrase\"]} or {\"seed\"}).")
        @OptionGroup var session: SessionOptions

        func run() throws {
            try session.run("key_loaded") { keycard, _, r in
                r["key_uid"] = .string(Hex.encode(try keycard.loadSeed(try Self.seed())))
            }
        }

        /// The seed of the one record on stdin: a BIP39 phrase (and passphrase) or a seed.
        static func seed() throws -> SecureBytes {
            guard let record = try SingleRecord.read(phraseLines: true) else { throw RecordError.missingField("mnemonic", expected: "one key record on stdin") }
            if let phrase = try record.optionalString("mnemonic") {
                let bip39 = BIP39()
                let passphrase = try record.optionalString("passphrase").map { SecureBytes(Array($0.utf8)) }
                return try bip39.seed(of: try bip39.parse(phrase, language: nil), passphrase: passphrase)
            }
            if let hex = try record.optionalString("seed") { return try Hex.decodeSecret(hex) }
            throw RecordError.missingField("mnemonic", expected: "a BIP39 mnemonic or a seed")
        }
    }

    struct GenerateKey: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "generate-key",
                                                        abstract: "Make a random master key on the card (no phrase exists for it: back it up another way).")
        @OptionGroup var session: SessionOptions

        func run() throws {
            try session.run("key_generated") { keycard, _, r in
                r["key_uid"] = .string(Hex.encode(try keycard.generateKey()))
            }
        }
    }

    struct RemoveKey: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove-key", abstract: "Remove the card's key.")
        @OptionGroup var session: SessionOptions

        func run() throws {
            try session.run("key_removed") { keycard, _, _ in try keycard.removeKey() }
        }
    }

    struct SetPinlessPath: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set-pinless-path", abstract: "Let SIGN use this path without a PIN (empty: none).")
        @OptionGroup var session: SessionOptions
        @Option(help: ArgumentHelp("A path such as m/44h/60h/0h/0/0; \"m\" unsets it.", valueName: "path")) var path: String

        func run() throws {
            let steps = try DerivationPath(parsing: path).components
            try session.run("pinless_path_set") { keycard, _, r in
                try keycard.setPinlessPath(steps)
                r["path"] = .string(CardRecords.path(steps))
            }
        }
    }

    struct ExportKey: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "export-key",
                                                        abstract: "The public key (or extended public key) at a path, as the card exports it.")
        @OptionGroup var session: SessionOptions
        @Option(help: ArgumentHelp("The key's path, e.g. m/44h/60h/0h/0/0.", valueName: "path")) var path: String
        @Flag(help: "Add the chain code (refused by the card inside EIP-1581, and at m).") var extended = false

        func validate() throws {
            let steps: [UInt32]
            do { steps = try DerivationPath(parsing: path).components } catch { throw ValidationError(error.message) }
            if extended && steps.isEmpty { throw ValidationError(CardError.masterChainCodeUnavailable.message) }
        }

        func run() throws {
            let steps = try DerivationPath(parsing: path).components
            try session.run("public_key") { keycard, _, r in
                let key = try keycard.exportKey(path: steps, kind: extended ? .extendedPublicKey : .publicKey)
                r["path"] = .string(CardRecords.path(steps))
                if let pub = key.publicKey { r["public_key"] = .string(Hex.encode(pub)) }
                if let chain = key.chainCode { r["chain_code"] = .string(Hex.encode(chain)) }
            }
        }
    }

    struct FactoryReset: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "factory-reset", abstract: "Wipe keys, PINs and pairings (needs --confirm).")
        @OptionGroup var readers: ReaderOptions
        @Flag(help: "Yes: erase everything on the card.") var confirm = false

        func validate() throws {
            guard confirm else { throw ValidationError("factory-reset erases the card's key, PINs and pairings: add --confirm") }
        }

        func run() throws {
            try runCard { pipeline in
                let (keycard, reader) = try readers.keycard()
                try keycard.factoryReset()
                try pipeline.emit(JSONObject(["type": .string("factory_reset"), "reader": .string(reader)]))
            }
        }
    }
}
