import ArgumentParser
import WalletCore
#if canImport(Glibc)
    import Glibc
#endif

/// --key-file / --key-fd: one JSON record holding the run's key (the same fields a record may carry),
/// for tools whose stdin carries other records.
public struct KeyOptions: ParsableArguments {
    public init() {}

    @Option(
        help: ArgumentHelp(
            "A file (mode 0600) holding one JSON record with the key (the fields a key record on stdin may carry).", valueName: "path"))
    public var keyFile: String?

    @Option(help: ArgumentHelp("Read that key record from this open file descriptor.", valueName: "n"))
    public var keyFd: Int32?

    public func validate() throws {
        // Which key source (this, --wallet or --card): KeySourceOptions.checkOne.
        if keyFd == 0 { throw ValidationError("--key-fd 0 would read stdin, which carries the records") }
    }

    /// Whether a key record was given.
    public var isGiven: Bool { keyFile != nil || keyFd != nil }

    /// The key record, if one was given.
    public func read() throws -> JSONObject? {
        let secret: SecureBytes
        if let keyFile {
            secret = try SecretInput.read(.file(keyFile))
        } else if let keyFd {
            secret = try SecretInput.read(.fileDescriptor(keyFd))
        } else {
            return nil
        }
        // A bare phrase (a line that is not JSON) is a phrase record.
        if let typed = PhraseLine.record(secret.bytes) { return typed }
        return try JSONParser.parseRecord(PhraseLine.jsonPart(secret.bytes))
    }
}
