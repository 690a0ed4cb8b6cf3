import WalletCardCLI
import WalletCore
import WalletKeys
import WalletRecords
import KeySources

// derive's run loop and its card: the key inputs with --card, and the card as a KeyDevice.

extension CardKeys: KeyDevice {
    /// EXPORT KEY of the private key, which the card allows inside EIP-1581 only.
    public func privateKey(at path: [UInt32]) throws -> SecureBytes? {
        try keycard.exportKey(path: path, kind: .privateKey).privateKey
    }
}

extension ChainOptions {
    /// The run's key inputs: a reader for key records (with the BIP39 passphrase the options
    /// gave) and, with --wallet or --card, the key that replaces them (the card's master node,
    /// and the card itself for the nodes below it). With --wallet, `walletRecord` is the
    /// record the run starts from: the entry's birthdays.
    public func keyInputs(
        _ passphrase: PassphraseOptions, _ keys: KeySourceOptions,
        _ cardOptions: CardKeyOptions?
    ) throws -> (records: RecordKeys, key: KeySource?, card: CardKeys?, walletRecord: JSONObject) {
        let shared = try passphrase.read()
        if let card = try cardOptions?.keys(keys.keyStore) {
            return (
                recordKeys(sharedPassphrase: shared), .bip32(try card.masterPlaceholder(), origin: DerivationPath(), fromSeed: true), card,
                JSONObject()
            )
        }
        let (records, source, start) = try keyInputs(sharedPassphrase: shared, keys)
        return (records, source, nil, start)
    }
}

/// What a derive run reads before any record.
public struct DeriveKeys {
    /// The reader of key records (with the run's BIP39 passphrase).
    public let records: RecordKeys
    /// The key-store entry's key, or the card's stand-in master: it replaces the records' keys.
    public let source: KeySource?
    public let card: CardKeys?

    public init(records: RecordKeys, source: KeySource? = nil, card: CardKeys? = nil) {
        (self.records, self.source, self.card) = (records, source, card)
    }

    /// The card as the device addresses and accounts are derived from.
    var device: (any KeyDevice)? { card }

    /// The key of one record: the run's (key store, card) if it has one, else the record's;
    /// `out` is the record with the fields that were read for the key left to the caller.
    func key(of record: JSONObject, out: inout JSONObject) throws -> KeySource {
        try source ?? records.source(record, out: &out)
    }
}

extension ChainOptions {
    /// A record's work in a derive run.
    public typealias RecordBody = (JSONObject, _ emit: (JSONObject) throws(CLIError) -> Void) throws -> Void

    /// A derive subcommand's run. The key inputs (with `card`, the card too), and what
    /// `prepare` makes of them, are read before any record; a failure there is the run's error.
    /// Then each record of `inputs` goes through the body `prepare` returns — or, when the key
    /// is there already (--wallet, --key-file/--key-fd, --card), one record does: the entry's
    /// (its birthdays) with `fromEntry`, else an empty one.
    public func runDerive(
        _ passphrase: PassphraseOptions, _ source: KeySourceOptions, card: CardKeyOptions? = nil, inputs: [String],
        fromEntry: Bool = false, _ prepare: (DeriveKeys) throws -> RecordBody
    ) throws {
        let pipeline = RecordPipeline(tool: "derive")
        pipeline.phraseLines = true
        let keys: DeriveKeys, start: JSONObject, body: RecordBody
        do {
            let (records, key, device, entry) = try keyInputs(passphrase, source, card)
            (keys, start) = (DeriveKeys(records: records, source: key, card: device), entry)
            body = try prepare(keys)
        } catch let error as any WalletError {
            return try pipeline.fail(error).exitIfFailed()
        }
        try (keys.source != nil ? pipeline.runOnce(fromEntry ? start : JSONObject(), body) : pipeline.run(inputs: inputs, body))
            .exitIfFailed()
    }
}
