import WalletCore

/// What an entry holds. The secret payload is encrypted; this kind is not.
public enum EntryKind: String, Sendable, CaseIterable {
    /// BIP39 entropy (the phrase), with its language; its BIP39 passphrase is never stored.
    case bip39Mnemonic = "bip39-mnemonic"
    /// A 64-byte BIP39 seed (any passphrase already applied).
    case bip39Seed = "bip39-seed"
    /// Monero's 32-byte seed (the 25-word phrase).
    case moneroSeed = "monero-seed"
    /// A watch-only extended public key.
    case xpub
    /// Monero view-only material: private view key and public spend key.
    case moneroView = "monero-view"
    /// A Keycard pairing: slot index and pairing key (never exported, never printed).
    case keycardPairing = "keycard-pairing"
    /// Zcash: a BIP39 seed (passphrase applied) for ZIP-32 Sapling and Orchard keys, or a viewing key
    /// (UFVK, UIVK or zxviews) for a watch-only wallet; with its "zec" birthday.
    case zec

}

/// The unencrypted, authenticated part of an entry: enough to list and to choose, no secret.
public struct EntryMetadata: Sendable, Equatable {
    public var name: String
    public var kind: EntryKind
    /// Seconds since 1970, UTC.
    public var created: Int
    /// Per-chain birthday heights: the first block a scanner must look at.
    public var birthdays: [String: Int]
    /// BIP39 only: whether the wallet uses a BIP39 passphrase (asked for at use, never stored).
    public var passphraseProtected: Bool
    /// BIP39 wordlist for bip39-mnemonic entries.
    public var language: String?
    /// For xpub entries: the key's own derivation path, if known.
    public var path: String?
    /// For keycard-pairing entries: the card's instance UID (hex), which SELECT shows anyway.
    public var card: String?

    public init(
        name: String, kind: EntryKind, created: Int, birthdays: [String: Int] = [:],
        passphraseProtected: Bool = false, language: String? = nil, path: String? = nil, card: String? = nil
    ) {
        self.name = name
        self.kind = kind
        self.created = created
        self.birthdays = birthdays
        self.passphraseProtected = passphraseProtected
        self.language = language
        self.path = path
        self.card = card
    }
}

/// An entry: public metadata and the secret bytes (entropy, seed, or key text as UTF-8).
public struct KeyStoreEntry: Sendable {
    public var metadata: EntryMetadata
    public let secret: SecureBytes

    public init(metadata: EntryMetadata, secret: SecureBytes) {
        self.metadata = metadata
        self.secret = secret
    }
}

/// How hard the passphrase is to guess: Argon2id cost levels (libsodium's names).
public struct KDFParameters: Sendable, Equatable {
    public let opsLimit: UInt64
    public let memLimit: UInt64

    public init(opsLimit: UInt64, memLimit: UInt64) {
        self.opsLimit = opsLimit
        self.memLimit = memLimit
    }

    public static let interactive = KDFParameters(opsLimit: 2, memLimit: 64 << 20)
    public static let moderate = KDFParameters(opsLimit: 3, memLimit: 256 << 20)
    public static let sensitive = KDFParameters(opsLimit: 4, memLimit: 1 << 30)

    public static func named(_ name: String) -> KDFParameters? {
        switch name {
        case "interactive": .interactive
        case "moderate": .moderate
        case "sensitive": .sensitive
        default: nil
        }
    }

    /// Bounds a file may claim, so a damaged or hostile header cannot ask for a terabyte.
    static let opsRange: ClosedRange<UInt64> = 1...16
    static let memRange: ClosedRange<UInt64> = 8192...(4 << 30)
}

/// One entry of a listing.
public struct ListedEntry: Sendable {
    public let name: String
    public let metadata: Result<EntryMetadata, KeyStoreError>

    public init(name: String, metadata: Result<EntryMetadata, KeyStoreError>) {
        self.name = name
        self.metadata = metadata
    }
}

/// The KeyStorer pattern: store, load, list and destroy wallets' secrets and birthdays.
public protocol KeyStorer {
    func store(_ entry: KeyStoreEntry, passphrase: SecureBytes) throws(KeyStoreError)
    func load(_ name: String, passphrase: SecureBytes) throws(KeyStoreError) -> KeyStoreEntry
    /// Every entry, each with its metadata or why it cannot be read: one bad entry does not
    /// hide the others.
    func list() throws(KeyStoreError) -> [ListedEntry]
    func destroy(_ name: String) throws(KeyStoreError)
    func changePassphrase(_ name: String, from old: SecureBytes, to new: SecureBytes) throws(KeyStoreError)
}
