import ArgumentParser
import WalletCore

/// FILE arguments shared by every record-reading subcommand.
public struct InputFiles: ParsableArguments {
    @Argument(help: ArgumentHelp("JSON Lines files to read; none or - means stdin.", valueName: "file"))
    public var files: [String] = []

    public init() {}
}

/// --passphrase-file / --passphrase-fd / --passphrase-prompt: the BIP39 passphrase channels.
/// There is deliberately no option that takes the passphrase itself.
public struct PassphraseOptions: ParsableArguments {
    @Option(
        name: .customLong("passphrase-file"),
        help: ArgumentHelp("Read the BIP39 passphrase from this file (mode 0600 or stricter).", valueName: "path"))
    public var file: String?

    @Option(
        name: .customLong("passphrase-fd"), help: ArgumentHelp("Read the BIP39 passphrase from this open file descriptor.", valueName: "n"))
    public var fd: Int32?

    @Flag(name: .customLong("passphrase-prompt"), help: "Ask for the BIP39 passphrase on the terminal (twice, echo off).")
    public var prompt = false

    public init() {}

    public func validate() throws {
        guard [file != nil, fd != nil, prompt].filter({ $0 }).count <= 1 else {
            throw ValidationError("give at most one of --passphrase-file, --passphrase-fd, --passphrase-prompt")
        }
        if fd == 0 { throw ValidationError("--passphrase-fd 0 would read stdin, which carries the records; use another descriptor") }
    }

    /// The passphrase for the whole run, if an option gave one.
    public func read() throws(SecretInputError) -> SecureBytes? {
        if let file { return try SecretInput.read(.file(file)) }
        if let fd { return try SecretInput.read(.fileDescriptor(fd)) }
        if prompt { return try SecretInput.read(.prompt(label: "BIP39 passphrase: ", confirm: true)) }
        return nil
    }

    /// The passphrase for one record: its own "passphrase" field (removed from `out`), or the
    /// run's. Both at once is an error: a wrong passphrase silently gives another wallet.
    public static func forRecord(_ record: JSONObject, shared: SecureBytes?, out: inout JSONObject) throws -> SecureBytes? {
        guard let field = try record.optionalString("passphrase") else { return shared }
        guard shared == nil else {
            throw RecordError.conflictingFields(["passphrase", "--passphrase-file/--passphrase-fd/--passphrase-prompt"])
        }
        out["passphrase"] = nil
        return SecureBytes(Array(field.utf8))
    }
}

/// Record fields that hold secrets. Tools that make other records from a secret one (derive:
/// addresses from a seed) drop these instead of passing them through.
public enum SecretFields {
    public static let names: Set<String> = [
        "mnemonic", "seed", "entropy", "passphrase", "dice", "coins", "extended_key",
        "xprv", "yprv", "zprv", "Yprv", "Zprv", "tprv", "uprv", "vprv", "Uprv", "Vprv",
        "private_key", "wif", "spend_key", "view_key", "private_spend_key", "private_view_key",
        "extended_spending_key", "sp_scan_key", "sp_spend_key",
    ]

    public static func removed(from record: JSONObject) -> JSONObject {
        var out = record
        for key in record.keys where names.contains(key) || holdsSecretDescriptor(record[key]) { out[key] = nil }
        return out
    }

    /// A BIP392 `sp(…)` descriptor (alone or in a list, at the top level or not): it always
    /// holds the scan private key.
    static func holdsSecretDescriptor(_ value: JSONValue?) -> Bool {
        switch value {
        case .string(let text)?: text.contains("sp(")
        case .array(let items)?: items.contains { holdsSecretDescriptor($0) }
        default: false
        }
    }
}

extension ExitStatus {
    /// Ends an ArgumentParser command with this status (nothing for success).
    public func exitIfFailed() throws {
        if self != .ok { throw ExitCode(rawValue) }
    }
}
