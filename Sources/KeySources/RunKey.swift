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
    /// With `wantSeed`, `seed` is the seed behind the key, where there is one (a phrase's, a
    /// seed's), for keys that are not BIP32 (ZIP 32's); made only then (a phrase's costs PBKDF2).
    public func runKey(
        reader: RecordKeys, bip39Passphrase: SecureBytes?, promptOnTerminal: Bool, wantSeed: Bool = false
    ) throws -> (source: KeySource?, birthdays: [String: Int], seed: SecureBytes?) {
        func fromRecord(_ record: JSONObject) throws -> (source: KeySource?, birthdays: [String: Int], seed: SecureBytes?) {
            var scratch = record
            let source = try reader.source(record, out: &scratch)
            return (source, [:], wantSeed ? try reader.seed(record, behind: source) : nil)
        }
        switch choice() {
        case .wallet:
            guard let loaded = try loadWallet(bip39Passphrase: bip39Passphrase, wantSeed: wantSeed) else { return (nil, [:], nil) }
            return (loaded.source, loaded.birthdays, loaded.seed)
        case .keyRecord:
            guard let keyRecord = try keyRecord.read() else { return (nil, [:], nil) }
            return try fromRecord(keyRecord)
        case .records where promptOnTerminal && isatty(0) != 0:
            return try fromRecord(try PhraseLine.prompted())
        case .records, .card:
            return (nil, [:], nil)
        }
    }

    /// The signing tools' reader of keys in records (no coin or account path: a record's key
    /// signs what its record says) with the BIP39 passphrase the options give, and the run's key.
    public func signingKey(passphrase: PassphraseOptions, promptOnTerminal: Bool) throws -> (reader: RecordKeys, source: KeySource?) {
        let bip39Passphrase = try passphrase.read()
        let reader = RecordKeys(coin: nil, accountPath: nil, sharedPassphrase: bip39Passphrase)
        return (reader, try runKey(reader: reader, bip39Passphrase: bip39Passphrase, promptOnTerminal: promptOnTerminal).source)
    }

    /// `signingKey`'s, and the seed behind the run's key (a PCZT is signed from the seed).
    public func signingKeys(
        passphrase: PassphraseOptions, promptOnTerminal: Bool
    ) throws -> (reader: RecordKeys, source: KeySource?, seed: SecureBytes?) {
        let bip39Passphrase = try passphrase.read()
        let reader = RecordKeys(coin: nil, accountPath: nil, sharedPassphrase: bip39Passphrase)
        let run = try runKey(reader: reader, bip39Passphrase: bip39Passphrase, promptOnTerminal: promptOnTerminal, wantSeed: true)
        return (reader, run.source, run.seed)
    }
}
