import KeySources
import WalletCore
import WalletKeys
import WalletRecords

/// `derive`'s address records: for each key record, the addresses the options ask for — BIP32
/// (from a seed, an extended key or a device), Monero subaddresses, Zcash Sapling and Orchard.
public struct AddressRequest {
    public var chainOptions: ChainOptions
    /// 0 receive, 1 change.
    public var chains: [UInt32]
    public var index: UInt32
    public var count: UInt32
    /// A BIP32 path instead of the presets; its last step may be a range.
    public var path: String?
    /// Monero: the integrated address's payment id (hex).
    public var paymentId: String?
    /// Silent payments: the labels to write addresses for.
    public var labels: [UInt32]

    public init(
        chainOptions: ChainOptions, chains: [UInt32] = [0], index: UInt32 = 0, count: UInt32 = 1, path: String? = nil,
        paymentId: String? = nil, labels: [UInt32] = []
    ) {
        self.chainOptions = chainOptions
        self.chains = chains
        self.index = index
        self.count = count
        self.path = path
        self.paymentId = paymentId
        self.labels = labels
    }

    /// The address records of one input record, from its key or the run's (`keys.source`: a
    /// key-store entry's, or a card's stand-in master, with the card as `keys.card`).
    public func addresses(_ record: JSONObject, keys: DeriveKeys, emit: (JSONObject) throws(CLIError) -> Void) throws {
        let claimer = DeriveChains.claiming(record, keys: keys, options: chainOptions)
        guard labels.isEmpty || claimer?.takesLabels == true else {
            throw DerivationError.unsupported("--label is for silent payment addresses (--purpose 352)")
        }
        if let claimer { return try claimer.addresses(self, record: record, keys: keys, read: nil, emit: emit) }
        var base = record
        let source = try keys.key(of: record, out: &base)
        // An address record carries its own path and keys, not the account record it
        // came from (its xpubs, descriptors, fingerprints, …): those fields go.
        base = AccountFields.removed(from: PhraseFields.removed(from: SecretFields.removed(from: base)))
        guard let owner = DeriveChains.owner(of: source) else {
            throw DerivationError.unsupported("a lone private key has no addresses to derive; give a seed or an extended key")
        }
        try owner.addresses(self, record: record, keys: keys, read: ReadKey(source: source, rest: base), emit: emit)
    }
}
