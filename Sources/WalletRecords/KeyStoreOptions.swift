import ArgumentParser
import WalletCore
import WalletKeyStore

/// --keystore, --kdf and the key-store passphrase channels, shared by every tool that opens
/// the key store. The key-store passphrase is not the BIP39 passphrase (--passphrase-*).
public struct KeyStoreOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The key-store directory (default $XDG_DATA_HOME/satchel/keystore or ~/.local/share/satchel/keystore).", valueName: "dir"))
    public var keystore: String?

    @Option(
        name: .customLong("keystore-pass-file"),
        help: ArgumentHelp("Read the key-store passphrase from this file (mode 0600).", valueName: "path"))
    public var passFile: String?

    @Option(
        name: .customLong("keystore-pass-fd"),
        help: ArgumentHelp("Read the key-store passphrase from this open file descriptor.", valueName: "n"))
    public var passFD: Int32?

    @Option(
        help: "Argon2id cost for entries written now: interactive, moderate (default) or sensitive.",
        completion: .list(["interactive", "moderate", "sensitive"]))
    public var kdf: String = "moderate"

    public init() {}

    public func validate() throws {
        guard KDFParameters.named(kdf) != nil else { throw ValidationError("--kdf must be interactive, moderate or sensitive") }
        if passFile != nil && passFD != nil { throw ValidationError("give --keystore-pass-file or --keystore-pass-fd, not both") }
        if passFD == 0 { throw ValidationError("--keystore-pass-fd 0 would read stdin, which carries the records") }
    }

    public var store: FileKeyStore {
        FileKeyStore(directory: keystore ?? FileKeyStore.defaultDirectory, kdf: KDFParameters.named(kdf) ?? .moderate)
    }

    /// The key-store passphrase from the file, the descriptor, or a prompt (twice when creating).
    /// An entry that does not exist is reported before anything is asked for.
    public func requireEntry(_ name: String) throws {
        guard try store.exists(name) else { throw KeyStoreError.unknownEntry(name) }
    }

    public func passphrase(confirm: Bool, label: String = "Key-store passphrase: ") throws(SecretInputError) -> SecureBytes {
        if let passFile { return try SecretInput.read(.file(passFile)) }
        if let passFD { return try SecretInput.read(.fileDescriptor(passFD)) }
        return try SecretInput.read(.prompt(label: label, confirm: confirm))
    }
}
