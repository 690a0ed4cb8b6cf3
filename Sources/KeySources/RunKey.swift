import WalletCore
import WalletKeys
import WalletRecords
#if canImport(Glibc)
    import Glibc
#endif

extension KeySourceOptions {
    /// The run's key, from the one source the options chose (nil: each record's own, or the
    /// card's, which its module opens): the key-store entry with its birthdays, or the key
    /// record read by `reader` (whose BIP39 passphrase applies). With `promptOnTerminal` and
    /// no option, on a terminal, the phrase is asked for without echo (the records are then
    /// typed or pasted).
    public func runKey(
        reader: RecordKeys, bip39Passphrase: SecureBytes?, promptOnTerminal: Bool
    ) throws -> (source: KeySource?, birthdays: [String: Int]) {
        switch choice() {
        case .wallet:
            guard let loaded = try loadWallet(bip39Passphrase: bip39Passphrase) else { return (nil, [:]) }
            return (loaded.source, loaded.birthdays)
        case .keyRecord:
            guard let keyRecord = try keyRecord.read() else { return (nil, [:]) }
            var scratch = keyRecord
            return (try reader.source(keyRecord, out: &scratch), [:])
        case .records where promptOnTerminal && isatty(0) != 0:
            let record = try PhraseLine.prompted()
            var scratch = record
            return (try reader.source(record, out: &scratch), [:])
        case .records, .card:
            return (nil, [:])
        }
    }

    /// The signing tools' reader of keys in records (no coin or account path: a record's key
    /// signs what its record says) with the BIP39 passphrase the options give, and the run's key.
    public func signingKey(passphrase: PassphraseOptions, promptOnTerminal: Bool) throws -> (reader: RecordKeys, source: KeySource?) {
        let bip39Passphrase = try passphrase.read()
        let reader = RecordKeys(coin: nil, accountPath: nil, sharedPassphrase: bip39Passphrase)
        return (reader, try runKey(reader: reader, bip39Passphrase: bip39Passphrase, promptOnTerminal: promptOnTerminal).source)
    }
}
