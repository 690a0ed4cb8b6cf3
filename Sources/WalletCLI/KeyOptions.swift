import ArgumentParser
import WalletCore
#if canImport(Glibc)
import Glibc
#endif

/// --key-file / --key-fd: one JSON record holding the run's key (the same fields a record may carry),
/// for tools whose stdin carries other records.
public struct KeyOptions: ParsableArguments {
    public init() {}

    @Option(help: ArgumentHelp("A file (mode 0600) holding one JSON record with the key (the fields a key record on stdin may carry).", valueName: "path"))
    public var keyFile: String?

    @Option(help: ArgumentHelp("Read that key record from this open file descriptor.", valueName: "n"))
    public var keyFd: Int32?

    public func validate() throws {
        if keyFile != nil && keyFd != nil { throw ValidationError("give --key-file or --key-fd, not both") }
        if keyFd == 0 { throw ValidationError("--key-fd 0 would read stdin, which carries the records") }
    }

    /// Whether a key record was given.
    public var isGiven: Bool { keyFile != nil || keyFd != nil }

    /// The key record, if one was given.
    public func read() throws -> JSONObject? {
        let secret: SecureBytes
        if let keyFile { secret = try SecretInput.read(.file(keyFile)) } else if let keyFd { secret = try SecretInput.read(.fileDescriptor(keyFd)) } else { return nil }
        // A bare phrase (a line that is not JSON) is a phrase record.
        if let typed = PhraseLine.record(secret.bytes) { return typed }
        return try JSONParser.parseRecord(PhraseLine.jsonPart(secret.bytes))
    }
}

extension KeyOptions {
    /// The signing tools' run key and the reader of keys in records: a key-store entry
    /// (--wallet) or this key record (--key-file/--key-fd, which wins), the BIP39 passphrase
    /// options applying to every phrase. With `promptOnTerminal` and neither given, on a
    /// terminal, the phrase is asked for without echo (the records are then typed or pasted).
    public func runKey(passphrase: PassphraseOptions, wallet: WalletOptions, promptOnTerminal: Bool) throws -> (reader: RecordKeys, source: KeySource?) {
        let bip39Passphrase = try passphrase.read()
        let reader = RecordKeys(coin: nil, accountPath: nil, sharedPassphrase: bip39Passphrase)
        var source = try wallet.keySource(bip39Passphrase: bip39Passphrase)
        if let keyRecord = try read() {
            var scratch = keyRecord
            source = try reader.source(keyRecord, out: &scratch)
        }
        if source == nil, promptOnTerminal, isatty(0) != 0 {
            let record = try PhraseLine.prompted()
            var scratch = record
            source = try reader.source(record, out: &scratch)
        }
        return (reader, source)
    }
}
