import Bitcoin
import WalletCore
import WalletKeys
import WalletScan
import WalletCrypto

/// A watched account: one script kind over one account key, and its chains (0 receive, 1 change).
public struct WatchAccount: Sendable {
    public let script: ScriptKind
    /// The BIP44 account number (the key's own child number when nothing else says it).
    public let number: UInt32
    /// The account key's path from the master, when known (a seed's, a descriptor's origin).
    public let path: DerivationPath?
    public let key: ExtendedKey
    public let chains: [UInt32]

    public init(script: ScriptKind, number: UInt32, path: DerivationPath?, key: ExtendedKey, chains: [UInt32] = [0, 1]) {
        (self.script, self.number, self.path, self.key, self.chains) = (script, number, path, key.neutered, chains)
    }

    /// From a descriptor: the account number is the origin's last step, else the key's own.
    public init(_ descriptor: AccountDescriptor) {
        let last = descriptor.origin?.path.components.last ?? descriptor.key.childNumber
        self.init(
            script: descriptor.script, number: last & ~DerivationPath.hardened, path: descriptor.origin?.path,
            key: descriptor.key, chains: descriptor.chains)
    }

    /// The engine's account number: script kind (top 4 bits) and account in one UInt32.
    var code: UInt32 { Self.code(script, number) }

    static func code(_ script: ScriptKind, _ number: UInt32) -> UInt32 {
        let slot: UInt32 =
            switch script {
            case .p2pkh, .ethereum: 0
            case .p2shP2wpkh: 1
            case .p2wpkh: 2
            case .p2tr: 3
            }
        return slot << 28 | number
    }

    static func kind(ofCode code: UInt32) -> ScriptKind { [.p2pkh, .p2shP2wpkh, .p2wpkh, .p2tr][Int(min(code >> 28, 3))] }
}

/// A Bitcoin-family chain's part in the synchronizer: raw blocks parsed and checked, and a
/// wallet's watch set of scriptPubKeys, matched by hash lookup. The watch set is every
/// account's receive and change chains from index 0 to the last used index plus the gap
/// limit, grown as outputs are found (the engine then scans the same block again, so a later
/// or earlier payment in it to a newly watched script is not missed). A wallet from a seed
/// discovers its accounts as BIP44 says: account n+1 of a purpose is watched once account n's
/// receive chain is used.
///
/// In the engine's terms: `account` is the script kind (top 4 bits) and the account number,
/// `addressIndex` the chain (top bit) and index, the spend tag the outpoint (txid ‖ vout),
/// `outputKey` the scriptPubKey, and `unlockTime` the confirmations a Litecoin peg-out needs
/// (a Bitcoin output has no lock of its own).
public struct BitcoinScanner<C: BitcoinFamily>: ChainScanner {
    public typealias Block = BitcoinBlock

    public let network: BitcoinNetwork
    public let discovery: AccountDiscovery
    /// The seed's master key, when accounts are discovered: their steps are hardened.
    private let master: ExtendedKey?
    private let coinType: UInt32
    /// Fixed accounts (keys and descriptors); a seed's are added as discovery finds them.
    private var accounts: [UInt32: WatchAccount]
    private let identity: [UInt8]
    private var windows = [UInt64: Window]()
    private var scripts = [ByteKey: UInt64]()
    /// A filter of the same scripts: most of a block's outputs are ruled out at one bit.
    private var watched = ByteFilter()
    private var fresh = [AddressEntry]()
    /// The wallet's BIP352 receiver, scanned in each transaction whose block came with its
    /// spent outputs.
    public let silentPayments: SilentPaymentWatch?

    struct Window: Sendable {
        var nextUnused: UInt32 = 0
        var derived: UInt32 = 0
    }

    /// Confirmations before a coinbase output counts as spendable: Bitcoin Core's wallet waits
    /// for COINBASE_MATURITY + 1 (its getbalances and listunspent agree).
    public static var coinbaseMaturity: Int { 101 }
    /// Litecoin's PEGOUT_MATURITY: a HogEx output is spendable 6 blocks deep.
    public static var pegOutMaturity: UInt64 { 6 }

    /// A wallet from a seed: accounts 0 of every purpose, more as they are used.
    /// With `silentPayments`, its BIP352 receiver too (a state is then another one).
    public init(
        master: ExtendedKey, network: BitcoinNetwork, coinType: UInt32? = nil, discovery: AccountDiscovery = AccountDiscovery(),
        silentPayments: SilentPaymentWatch? = nil
    ) {
        self.network = network
        self.discovery = discovery
        self.master = master
        self.coinType = coinType ?? network.coin.slip44
        self.silentPayments = silentPayments
        accounts = [:]
        identity =
            Array("seed".utf8) + master.publicKey.compressed + master.chainCode
            + withUnsafeBytes(of: self.coinType.bigEndian) { Array($0) } + network.purposes.map { UInt8($0) }
            + (silentPayments?.identity ?? [])
    }

    /// A watch-only silent payment receiver alone (a scan key and a spend public key).
    public init(silentPayments: SilentPaymentWatch, network: BitcoinNetwork) {
        self.network = network
        discovery = AccountDiscovery()
        master = nil
        coinType = network.coin.slip44
        self.silentPayments = silentPayments
        accounts = [:]
        identity = silentPayments.identity
    }

    /// No keys: a pass that finds nothing and keeps its place in a state of its own (`name`
    /// tells it from others), for what is written of every block it stores (tweak records).
    public init(keyless name: String, network: BitcoinNetwork) {
        self.network = network
        discovery = AccountDiscovery()
        master = nil
        coinType = network.coin.slip44
        silentPayments = nil
        accounts = [:]
        identity = Array("keyless".utf8) + Array(name.utf8)
    }

    /// A watch-only wallet of fixed accounts (extended public keys, descriptors).
    public init(
        accounts given: [WatchAccount], network: BitcoinNetwork, discovery: AccountDiscovery = AccountDiscovery()
    ) throws(DerivationError) {
        self.network = network
        self.discovery = discovery
        master = nil
        coinType = network.coin.slip44
        silentPayments = nil
        var byCode = [UInt32: WatchAccount]()
        for account in given {
            guard account.number < 1 << 28 else { throw .unsupported("account \(account.number) is beyond what a scan follows (2^28)") }
            if let other = byCode[account.code] {
                // Two descriptors of one account (receive /0/*, change /1/*) are one account.
                guard other.key.publicKey == account.key.publicKey, other.key.chainCode == account.key.chainCode else {
                    throw .unsupported(
                        "two keys are given for \(account.script.rawValue) account \(account.number); give one wallet's keys per wallet")
                }
                byCode[account.code] = WatchAccount(
                    script: account.script, number: account.number, path: other.path ?? account.path,
                    key: account.key, chains: Array(Set(other.chains + account.chains)).sorted())
            } else {
                byCode[account.code] = account
            }
        }
        guard !byCode.isEmpty else { throw .unsupported("a watch-only wallet needs at least one account key") }
        accounts = byCode
        identity = byCode.keys.sorted().flatMap { code -> [UInt8] in
            let a = byCode[code]!
            return withUnsafeBytes(of: code.bigEndian) { Array($0) } + a.key.publicKey.compressed + a.key.chainCode
                + a.chains.map { UInt8($0) }
        }
    }

    public static var chainName: String { C.name }
    public static var fieldNames: OutputFieldNames {
        OutputFieldNames(
            account: "account", addressIndex: "address_index", spendTag: nil, memo: "memo", index: "vout", amount: "value", input: "vin")
    }

    public var stateName: String {
        "\(C.name)-\(network.coin.network)-" + Hex.encode(Hash.sha256(identity + Array(network.coin.network.utf8)).prefix(12))
    }

    public var stateID: String { Hex.encode(Hash.sha256(identity).prefix(16)) }
    /// Every output's outpoint is known, so every spend is seen.
    public var spendsKnown: Bool { true }

    public static func parse(_ data: BlockData) -> Result<BitcoinBlock, ScanError> {
        let what = "block \(data.height)"
        do {
            var block = try Bitcoin.parseBlock(data.blob, what: what, dialect: C.dialect, verifyWitness: false)
            if let spent = data.spent { try block.attachSpent(spent, what: what) }
            if let claimed = data.claimedID, claimed != block.id {
                return .failure(.hashMismatch(what: what, expected: Bitcoin.display(claimed), computed: Bitcoin.display(block.id)))
            }
            return .success(block)
        } catch {
            return .failure(error)
        }
    }

    /// As the node's getbalances: a mempool spend of an output takes it out of `confirmed`.
    public static var countsMempoolSpends: Bool { true }
    /// Blocks of up to 4 MB (1.4 MB on mainnet today).
    public static var bigBlocks: Bool { true }

    /// The tip's height, as bitcoind's getblockcount and every Bitcoin tool name it.
    public static func reportedHeight(walletHeight: Int) -> Int { walletHeight - 1 }

    public static func parseTransaction(_ blob: [UInt8]) -> BitcoinTransaction? {
        try? Bitcoin.parseTransaction(blob, what: "a mempool transaction", dialect: C.dialect)
    }

    /// With what its inputs spend, a mempool transaction's silent payments are looked for too;
    /// spent scripts that do not fit its inputs leave it as if none were given.
    public static func parseTransaction(_ transaction: PoolTransaction) -> BitcoinTransaction? {
        guard var tx = parseTransaction(transaction.blob) else { return nil }
        if let spent = transaction.spent { try? tx.attachSpent(spent[...], what: "a mempool transaction") }
        return tx
    }

    /// Mempool transactions with a taproot output and no spent scripts: a silent payment in
    /// them cannot be seen before it is mined.
    public func unseenInMempool(_ transactions: [BitcoinTransaction]) -> Int {
        guard silentPayments != nil else { return 0 }
        return transactions.filter { !$0.spentKnown && $0.hasTaprootOutput }.count
    }

    public static func isUnlocked(_ o: ReceivedOutput, walletHeight: Int, now: UInt64) -> Bool {
        guard let height = o.height else { return false }
        let confirmations = walletHeight - height
        if o.isCoinbase { return confirmations >= coinbaseMaturity }
        return confirmations >= Int(o.unlockTime)
    }

    // MARK: the watch set

    private static func windowKey(_ code: UInt32, _ chain: UInt32) -> UInt64 { UInt64(code) << 1 | UInt64(chain) }

    /// The account of `code`: a fixed one, or a seed's, derived.
    func account(_ code: UInt32) -> WatchAccount? {
        guard code >> 28 < SilentPaymentWatch.slot else { return nil }
        if let known = accounts[code] { return known }
        guard let master else { return nil }
        let kind = WatchAccount.kind(ofCode: code), number = code & 0x0FFF_FFFF
        let path = DerivationPath([kind.purpose, coinType, number].map { $0 + DerivationPath.hardened })
        guard let key = try? master.derive(path.components) else { return nil }
        return WatchAccount(script: kind, number: number, path: path, key: key)
    }

    private mutating func watch(_ code: UInt32) throws {
        if accounts[code] == nil {
            guard let account = account(code) else { return }
            accounts[code] = account
        }
        for chain in accounts[code]!.chains { try widen(code, chain) }
    }

    /// Derives the chain's scripts up to its window's end; true when it derived any.
    @discardableResult
    private mutating func widen(_ code: UInt32, _ chain: UInt32) throws -> Bool {
        let key = Self.windowKey(code, chain)
        var window = windows[key] ?? Window()
        let end = discovery.windowEnd(nextUnused: window.nextUnused)
        guard window.derived < end, let account = accounts[code] else { return false }
        let node = try account.key.child(chain)
        for index in window.derived..<end {
            // BIP32's rare invalid child: that index has no key, and is skipped.
            guard let child = try? node.child(index) else { continue }
            let script = try BitcoinNetwork.script(for: child.publicKey, kind: account.script)
            scripts[ByteKey(script)] = UInt64(code) << 32 | UInt64(chain << 31 | index)
            watched.insert(script[...])
            fresh.append(AddressEntry(account: code, index: chain << 31 | index, key: script))
        }
        window.derived = end
        windows[key] = window
        return true
    }

    public mutating func prepare(cached: [AddressEntry]) throws {
        for entry in cached {
            scripts[ByteKey(entry.key)] = UInt64(entry.account) << 32 | UInt64(entry.index)
            watched.insert(entry.key[...])
            let key = Self.windowKey(entry.account, entry.index >> 31)
            var window = windows[key] ?? Window()
            window.derived = max(window.derived, (entry.index & 0x7FFF_FFFF) + 1)
            windows[key] = window
            if master != nil, accounts[entry.account] == nil, let account = account(entry.account) { accounts[entry.account] = account }
        }
        if master != nil {
            for purpose in network.purposes { try watch(WatchAccount.code(ScriptKind.forPurpose(purpose)!, 0)) }
        }
        for code in accounts.keys.sorted() {
            for chain in accounts[code]!.chains { try widen(code, chain) }
        }
    }

    public mutating func takeNewAddresses() -> [AddressEntry] {
        defer { fresh = [] }
        return fresh
    }

    public mutating func noteStored(_ output: ReceivedOutput) throws -> Bool {
        guard output.account >> 28 < SilentPaymentWatch.slot else { return false }  // no address window
        let code = output.account, chain = output.addressIndex >> 31, index = output.addressIndex & 0x7FFF_FFFF
        let key = Self.windowKey(code, chain)
        var window = windows[key] ?? Window()
        guard index >= window.nextUnused else { return false }
        window.nextUnused = index + 1
        windows[key] = window
        var grew = try widen(code, chain)
        // Discovery: a used receive chain brings the next account into the watch set.
        let number = code & 0x0FFF_FFFF
        if master != nil, AccountDiscovery.goesOn(receiveUsed: chain == 0), number + 1 < discovery.maxAccounts, accounts[code + 1] == nil {
            try watch(code + 1)
            grew = true
        }
        return grew
    }

    public func scan(_ transactions: [BitcoinTransaction]) throws(ScanError) -> [[ReceivedOutput]] {
        if silentPayments != nil, let blind = transactions.first(where: { $0.inBlock && !$0.isCoinbase && !$0.spentKnown }) {
            // Never a silent "nothing found": without the spent outputs no payment can be seen.
            throw .unsupported(
                "silent payments need what each input spends, and the block of transaction \(Bitcoin.display(blind.id)) came without it: read the node's blk and rev files, its RPC, or records with \"spent\""
            )
        }
        // The shared points of every transaction with tweak data, batched (one ladder for a
        // block's), then each one's outputs to the receiver.
        var paid: [Int: [ReceivedOutput]] = [:]
        if let sp = silentPayments {
            let eligible = transactions.indices.filter { transactions[$0].silentPaymentTweak != nil }
            let secrets = try? sp.receiver.sharedSecrets(eligible.map { transactions[$0].silentPaymentTweak! })
            let found = sp.received(in: eligible.map { (transactions[$0].id, transactions[$0].taprootOutputs) }, secrets: secrets)
            for (i, outputs) in zip(eligible, found) where !outputs.isEmpty { paid[i] = outputs }
        }
        return transactions.indices.map { i in
            let tx = transactions[i]
            var found = [ReceivedOutput]()
            tx.outputs(passing: watched) { vout, value, script in
                guard let place = scripts[ByteKey(script)] else { return }
                let maturity = tx.isHogEx && vout >= 1 ? Self.pegOutMaturity : 0
                found.append(
                    ReceivedOutput(
                        height: nil, txID: tx.id, index: vout, amount: value, account: UInt32(place >> 32),
                        addressIndex: UInt32(truncatingIfNeeded: place), spendTag: Bitcoin.outpoint(tx.id, UInt32(vout)),
                        memo: nil, unlockTime: maturity, isCoinbase: tx.isCoinbase, outputKey: Array(script)))
            }
            return found + (paid[i] ?? [])
        }
    }

    public func asChange(_ output: ReceivedOutput) -> ReceivedOutput {
        var o = output
        o.isChange = true
        return o
    }

    // MARK: records

    public func address(account code: UInt32, index: UInt32) -> String? {
        if code >> 28 == SilentPaymentWatch.slot, let sp = silentPayments {
            return try? sp.keys.address(label: SilentPaymentWatch.label(ofIndex: index), testnet: sp.testnet).description
        }
        guard let account = account(code), let chain = try? account.key.child(index >> 31),
            let child = try? chain.child(index & 0x7FFF_FFFF),
            let script = try? BitcoinNetwork.script(for: child.publicKey, kind: account.script)
        else { return nil }
        return network.address(of: script)
    }

    public func addressPaid(_ output: ReceivedOutput) -> String? { network.address(of: output.outputKey) }

    public static func transactionID(_ id: [UInt8]) -> String { Bitcoin.display(id) }

    public func placeFields(account code: UInt32, addressIndex: UInt32?) -> [(key: String, value: JSONValue)] {
        if code >> 28 == SilentPaymentWatch.slot {
            var fields: [(key: String, value: JSONValue)] = [
                ("account", .number(String(code & 0x0FFF_FFFF))), ("script_type", .string("silent-payment")),
            ]
            if let label = addressIndex.flatMap(SilentPaymentWatch.label(ofIndex:)) { fields.append(("label", .number(String(label)))) }
            return fields
        }
        let account = account(code)
        var fields: [(key: String, value: JSONValue)] = [
            ("account", .number(String(code & 0x0FFF_FFFF))), ("script_type", .string(WatchAccount.kind(ofCode: code).rawValue)),
        ]
        guard let addressIndex else {
            if let path = account?.path { fields.append(("path", .string(path.description))) }
            return fields
        }
        let chain = addressIndex >> 31, index = addressIndex & 0x7FFF_FFFF
        if let path = account?.path {
            fields.append(("path", .string(path.appending([chain, index]).description)))
        } else {
            fields += [("change", .bool(chain == 1)), ("address_index", .number(String(index)))]
        }
        return fields
    }

    /// A silent payment output's memo is its tweak: b_spend + tweak is its private key
    /// (sign-tx reads it as PSBT_IN_SP_TWEAK).
    public static func memoFields(_ memo: [UInt8]) -> [(key: String, value: String)] { [("sp_tweak", Hex.encode(memo))] }

    public static func outputFields(_ output: ReceivedOutput) -> [(key: String, value: JSONValue)] {
        output.unlockTime == 0 ? [] : [("pegout", .bool(true))]
    }

    public static func sumFields(total: UInt64, unlocked: UInt64, pending: UInt64) -> [(key: String, value: JSONValue)] {
        [
            ("confirmed", .string(String(unlocked))), ("unconfirmed", .string(String(pending))),
            ("immature", .string(String(total - unlocked - pending))), ("total", .string(String(total))),
        ]
    }
}
