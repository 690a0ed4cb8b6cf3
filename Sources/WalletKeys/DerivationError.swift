import WalletCore

/// Errors of key derivation and key import. None carries key material.
public enum DerivationError: WalletError, Equatable {
    case invalidPath(String)
    case hardenedFromPublicKey(path: String)
    case invalidChild(path: String)
    case invalidMasterKey
    case invalidSeedLength(Int)
    case invalidExtendedKey(String)
    case unknownVersion(String)
    case unsupported(String)
    case invalidMoneroKey(String)
    case invalidWIF(String)
    /// A record that names its own coin, network, script or path, and an option that says
    /// otherwise: the record describes its key, so the option is refused, not obeyed.
    case conflictsWithRecord(field: String, record: String, option: String)

    public var code: String {
        switch self {
        case .invalidPath: "derive.invalid_path"
        case .hardenedFromPublicKey: "derive.hardened_from_public"
        case .invalidChild: "derive.invalid_child"
        case .invalidMasterKey: "derive.invalid_master_key"
        case .invalidSeedLength: "derive.invalid_seed_length"
        case .invalidExtendedKey: "derive.invalid_extended_key"
        case .unknownVersion: "derive.unknown_key_version"
        case .unsupported: "derive.unsupported"
        case .invalidMoneroKey: "derive.invalid_monero_key"
        case .invalidWIF: "derive.invalid_wif"
        case .conflictsWithRecord: "derive.conflicts_with_record"
        }
    }

    public var message: String {
        switch self {
        case .invalidPath(let why): "invalid derivation path: \(why)"
        case .hardenedFromPublicKey(let path):
            "\(path) has a hardened step, which an extended public key cannot derive; give the private key or a non-hardened path"
        case .invalidChild(let path): "the key at \(path) is invalid (BIP32: IL ≥ n or a zero key); use the next index"
        case .invalidMasterKey: "this seed gives an invalid BIP32 master key (BIP32: use another seed)"
        case .invalidSeedLength(let n): "a BIP32 seed is 16 to 64 bytes, got \(n)"
        case .invalidExtendedKey(let why): "invalid extended key: \(why)"
        case .unknownVersion(let hex): "unknown extended key version \(hex)"
        case .unsupported(let what): what
        case .invalidMoneroKey(let why): "invalid Monero key: \(why)"
        case .invalidWIF(let why): "invalid WIF private key: \(why)"
        case .conflictsWithRecord(let field, let record, let option):
            "the record's key is for \(field) \(record), but \(option) was given: drop \(option.split(separator: " ")[0]) (the record says what its key is), or derive from the seed"
        }
    }

    public var details: [(key: String, value: ErrorDetail)] {
        switch self {
        case .conflictsWithRecord(let field, let record, let option):
            [("field", .string(field)), ("record_value", .string(record)), ("option", .string(option))]
        default:
            []
        }
    }
}
