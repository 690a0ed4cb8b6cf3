import Bitcoin
import KeySources
import WalletCore
import WalletKeys
import WalletRecords

/// Bitcoin's silent payments in derive's table: they take a record by --purpose 352 or by the
/// receiver's fields in it, before any key is read.
enum SilentPaymentDerive: DeriveChain {
    static func claims(_ record: JSONObject, keys: DeriveKeys, options: ChainOptions) -> Bool {
        SilentPaymentRequest.applies(options, record)
    }

    static var takesLabels: Bool { true }

    static func account(_ request: AccountRequest, record: JSONObject, keys: DeriveKeys, read: ReadKey?) throws -> JSONObject {
        guard request.ur == nil else { throw DerivationError.unsupported("--ur has no silent payment account type") }
        return try SilentPaymentRequest(chainOptions: request.chainOptions).account(record, keys: keys, viewOnly: request.viewOnly)
    }

    static func addresses(
        _ request: AddressRequest, record: JSONObject, keys: DeriveKeys, read: ReadKey?,
        emit: (JSONObject) throws(CLIError) -> Void
    ) throws {
        try SilentPaymentRequest(chainOptions: request.chainOptions, labels: request.labels).addresses(record, keys: keys, emit: emit)
    }
}

/// derive's BIP352 silent payment records (--purpose 352): the receiver's keys from a seed at
/// m/352'/coin'/account'/{1',0'}/0, or from a record's BIP392 `sp()` descriptor, or watch-only
/// from a record's scan private key and spend public key; one `sp1…`/`tsp1…` address, labeled
/// or not.
public struct SilentPaymentRequest {
    public var chainOptions: ChainOptions
    /// Labels to write addresses for (none: the unlabeled address). 0 is change: refused.
    public var labels: [UInt32]
    /// The highest label handed out: the scan's (`SilentPayment.maxLabel`).
    public static let maxLabel = SilentPayment.maxLabel

    static let scanKeyField = SilentPaymentKeys.scanKeyField
    static let spendPublicKeyField = SilentPaymentKeys.spendPublicKeyField
    static let spendKeyField = SilentPaymentKeys.spendKeyField

    public init(chainOptions: ChainOptions, labels: [UInt32] = []) {
        self.chainOptions = chainOptions
        self.labels = labels
    }

    /// Whether a record is a silent payment one: --purpose 352, a receiver's sp() descriptor, or
    /// a watch-only receiver's keys.
    public static func applies(_ options: ChainOptions, _ record: JSONObject) -> Bool {
        options.purpose == 352 || record[scanKeyField] != nil
            || record["descriptor"]?.stringValue.map(SilentPaymentDescriptor.isClaimed) == true
    }

    /// The coin and network: Bitcoin on any network; Litecoin's test networks for tests only
    /// (BIP352 names no Litecoin prefix; they take tsp as every test network does).
    func network(_ record: JSONObject) throws -> (coin: String, network: String, testnet: Bool) {
        let coin = try chainOptions.coin ?? record.optionalString("coin") ?? "btc"
        let network = NetworkName.canonical(try chainOptions.network ?? record.optionalString("network") ?? "main")
        guard let chain = CoinNetwork.find(coin: coin, network: network) else {
            throw DerivationError.unsupported(CoinNetwork.noNetworkMessage(coin: coin, network: network))
        }
        let family = BitcoinFamilies.all.first { $0.coin == coin }
        guard let family, family.silentPaymentsOnMain || chain.testnet else {
            throw DerivationError.unsupported(
                "silent payments (BIP352) are Bitcoin's; --coin ltc is allowed on its test networks only, for tests")
        }
        return (coin, network, chain.testnet)
    }

    /// The receiver's keys: the record's sp() descriptor or watch-only pair, or a seed's (the
    /// run's or the record's), with the origin a descriptor of them names.
    func keys(
        _ record: JSONObject, keys: DeriveKeys, out: inout JSONObject, testnet: Bool
    ) throws -> (
        SilentPaymentKeys, fromSeed: Bool, origin: (fingerprint: [UInt8], path: DerivationPath)?
    ) {
        if let (receiver, descriptor) = try SilentPaymentDescriptor.receiver(
            descriptorField: record["descriptor"]?.stringValue, scanKeyHex: try record.optionalString(Self.scanKeyField),
            spendPublicKeyHex: try record.optionalString(Self.spendPublicKeyField))
        {
            if let descriptor, descriptor.testnet != testnet {
                throw DerivationError.unsupported(
                    "the sp() descriptor is for \(descriptor.testnet ? "a test" : "the main") network, and the record's network is \(testnet ? "a test" : "the main") one (give --network)"
                )
            }
            return (receiver, false, descriptor?.origin)
        }
        guard keys.device == nil else {
            throw DerivationError.unsupported("silent payment keys need the seed here: a card exports no hardened-path private key")
        }
        guard case .bip32(let root, _, true) = try keys.key(of: record, out: &out) else {
            throw DerivationError.unsupported(
                "silent payment keys come from a seed (their paths are hardened), or from a record with \(Self.scanKeyField) and \(Self.spendPublicKeyField)"
            )
        }
        let coinType = chainOptions.coinType ?? (testnet ? 1 : 0)
        let origin = (root.fingerprint, SilentPayment.accountPath(coinType: coinType, account: chainOptions.account))
        return (try SilentPaymentKeys(root: root, coinType: coinType, account: chainOptions.account), true, origin)
    }

    /// One address record per label (or the unlabeled one).
    public func addresses(_ record: JSONObject, keys: DeriveKeys, emit: (JSONObject) throws(CLIError) -> Void) throws {
        let (coin, network, testnet) = try network(record)
        var base = record
        let (receiver, fromSeed, _) = try self.keys(record, keys: keys, out: &base, testnet: testnet)
        base = AccountFields.removed(from: PhraseFields.removed(from: SecretFields.removed(from: base)))
        base[Self.spendPublicKeyField] = nil
        for label in labels.isEmpty ? [nil] : labels.map(Optional.some) {
            let address = try receiver.address(label: label, testnet: testnet)
            var out = base
            out["type"] = .string("address")
            fields(coin, network, receiver, fromSeed: fromSeed, testnet: testnet, into: &out)
            if let label { out["label"] = .number(String(label)) }
            out["address"] = .string(address.description)
            out["spend_public_key"] = .string(Hex.encode(address.spendKey.compressed))
            try emit(out)
        }
    }

    /// The account record: the unlabeled address and both public keys; --view-only adds the
    /// scan private key and the spend public key as a watch-only receiver's fields and as a
    /// BIP392 `sp(spscan…)` descriptor, --private the spend private key as well (and the
    /// descriptor is `sp(spspend…)`).
    public func account(_ record: JSONObject, keys: DeriveKeys, viewOnly: Bool) throws -> JSONObject {
        let (coin, network, testnet) = try network(record)
        var out = record
        let (receiver, fromSeed, origin) = try self.keys(record, keys: keys, out: &out, testnet: testnet)
        out = PhraseFields.removed(from: SecretFields.removed(from: out))
        out["type"] = .string("account")
        fields(coin, network, receiver, fromSeed: fromSeed, testnet: testnet, into: &out)
        out["address"] = .string(try receiver.address(testnet: testnet).description)
        out["spend_public_key"] = .string(Hex.encode(receiver.spendPublicKey.compressed))
        if viewOnly || chainOptions.private {
            out[Self.scanKeyField] = .string(receiver.scanPrivateKey.hex)
            out[Self.spendPublicKeyField] = .string(Hex.encode(receiver.spendPublicKey.compressed))
        }
        if chainOptions.private {
            guard let spend = receiver.spendPrivateKey else {
                throw DerivationError.unsupported("--private needs the spend private key, and the input is watch-only")
            }
            out[Self.spendKeyField] = .string(spend.hex)
        }
        if viewOnly || chainOptions.private {
            let descriptor = SilentPaymentDescriptor(keys: receiver, testnet: testnet, origin: origin)
            out["descriptor"] = .string(try descriptor.text(spend: chainOptions.private))
        }
        return out
    }

    private func fields(
        _ coin: String, _ network: String, _ receiver: SilentPaymentKeys, fromSeed: Bool, testnet: Bool, into out: inout JSONObject
    ) {
        out["coin"] = .string(coin)
        out["network"] = .string(network)
        out["script"] = .string("silent-payment")
        if fromSeed {
            let coinType = chainOptions.coinType ?? (testnet ? 1 : 0)
            out["scan_path"] = .string(SilentPayment.scanPath(coinType: coinType, account: chainOptions.account).description)
            out["spend_path"] = .string(SilentPayment.spendPath(coinType: coinType, account: chainOptions.account).description)
        }
        out["scan_public_key"] = .string(Hex.encode(receiver.scanPublicKey.compressed))
    }
}
