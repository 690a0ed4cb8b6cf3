import WalletCore

/// Errors of the KeyStorer. Messages name entries and files, never their contents.
public enum KeyStoreError: WalletError, Equatable {
    case wrongPassphrase(name: String)
    case tampered(name: String)
    case damaged(name: String, reason: String)
    case unknownEntry(String)
    case entryExists(String)
    case invalidName(String)
    case locked(directory: String)
    case insecureDirectory(path: String, mode: String)
    /// An entry file others can read, not a regular file (a symbolic link), or not ours.
    case insecureEntry(name: String, problem: String)
    case weakPassphrase(minimum: Int)
    case io(String)
    case unsupportedEntry(String)

    public var code: String {
        switch self {
        case .wrongPassphrase: "keystore.wrong_passphrase"
        case .tampered: "keystore.tampered"
        case .damaged: "keystore.damaged"
        case .unknownEntry: "keystore.unknown_entry"
        case .entryExists: "keystore.entry_exists"
        case .invalidName: "keystore.invalid_name"
        case .locked: "keystore.locked"
        case .insecureDirectory: "keystore.insecure_directory"
        case .insecureEntry: "keystore.insecure_entry"
        case .weakPassphrase: "keystore.weak_passphrase"
        case .io: "keystore.io"
        case .unsupportedEntry: "keystore.unsupported_entry"
        }
    }

    public var exitStatus: ExitStatus {
        switch self {
        case .wrongPassphrase: .noPermission
        case .tampered, .damaged, .unsupportedEntry: .dataError
        case .unknownEntry: .noInput
        case .entryExists: .cantCreate
        case .invalidName, .insecureDirectory, .insecureEntry, .weakPassphrase: .usage
        case .locked: .tryAgain
        case .io: .ioError
        }
    }

    /// The entry's name, so a listing's error record says which one it is.
    public var details: [(key: String, value: ErrorDetail)] {
        switch self {
        case .insecureEntry(let name, _), .damaged(let name, _), .tampered(let name): [("name", .string(name))]
        default: []
        }
    }

    public var message: String {
        switch self {
        case .wrongPassphrase(let name): "wrong passphrase for entry '\(name)'"
        case .tampered(let name): "entry '\(name)' has been altered or corrupted: it does not authenticate (nothing was decrypted)"
        case .damaged(let name, let reason): "entry '\(name)' is damaged: \(reason)"
        case .unknownEntry(let name): "no entry named '\(name)'"
        case .entryExists(let name): "an entry named '\(name)' exists; destroy it first or choose another name"
        case .invalidName(let name): "'\(name.prefix(40))' is not a valid entry name (1–64 of A–Z a–z 0–9 . _ -, not starting with .)"
        case .locked(let directory): "another process is writing to the key store \(directory); try again"
        case .insecureDirectory(let path, let mode):
            "key store directory \(path) has mode \(mode): others can read it; run chmod 700 \(path)"
        case .insecureEntry(let name, let problem): "entry '\(name)' is refused: \(problem)"
        case .weakPassphrase(let minimum): "the key-store passphrase must be at least \(minimum) characters"
        case .io(let what): what
        case .unsupportedEntry(let what): what
        }
    }
}
