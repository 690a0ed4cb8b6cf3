import WalletCore
import WalletRecords
#if canImport(Glibc)
import Glibc
#endif

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
