import WalletCore

/// A chain's block, parsed and checked: what the engine needs to follow the chain.
public protocol ChainBlock: Sendable {
    associatedtype Transaction: ChainTransaction
    var id: [UInt8] { get }
    var previousID: [UInt8] { get }
    /// Every transaction, the coinbase first.
    var transactions: [Transaction] { get }
    /// What the block says of the chain's running totals at its end (Zcash: the sizes of the
    /// note-commitment trees, which place each note and so make its nullifier), kept beside its
    /// hash so that the next block, in this run or a later one, is checked against it; nil
    /// where a chain has none or the source did not say.
    var tally: [UInt8]? { get }
    /// Why this block cannot follow a parent whose tally was `parentTally`; nil when it can.
    /// The engine asks before it stores the block, so one wrong total fails the batch instead
    /// of silently misplacing notes.
    func contradiction(parentTally: [UInt8]) -> String?
}

extension ChainBlock {
    public var tally: [UInt8]? { nil }
    public func contradiction(parentTally: [UInt8]) -> String? { nil }
}

public protocol ChainTransaction: Sendable {
    var id: [UInt8] { get }
    /// What its inputs reveal of the outputs they spend (Monero: key images; Zcash:
    /// nullifiers); matched against owned outputs' `spendTag`.
    var spendTags: [[UInt8]] { get }
}

/// One entry of a wallet's address table (Monero: a subaddress's spend key), cached in the
/// wallet's state so a cron run does not derive the table again.
public struct AddressEntry: Sendable, Equatable {
    public let account: UInt32
    public let index: UInt32
    public let key: [UInt8]

    public init(account: UInt32, index: UInt32, key: [UInt8]) {
        self.account = account
        self.index = index
        self.key = key
    }
}

/// A chain's words for the fields of `ReceivedOutput`, used in records.
public struct OutputFieldNames: Sendable {
    public let account: String
    public let addressIndex: String
    /// nil: not shown (Bitcoin's is the outpoint, which txid and vout already say).
    public let spendTag: String?
    public let memo: String
    /// An output's index in its transaction, and its amount.
    public let index: String
    public let amount: String
    /// The spending input's index in spent records; nil: not shown.
    public let input: String?

    public init(account: String, addressIndex: String, spendTag: String?, memo: String,
                index: String = "index", amount: String = "amount", input: String? = nil) {
        self.account = account
        self.addressIndex = addressIndex
        self.spendTag = spendTag
        self.memo = memo
        self.index = index
        self.amount = amount
        self.input = input
    }
}

/// All the engine knows of a chain: how its block data is parsed (static, once per block for
/// every wallet) and one wallet's detector (a value per wallet, copied to worker threads).
/// A chain module conforms one type; `Synchronizer` does the rest.
public protocol ChainScanner: Sendable {
    associatedtype Block: ChainBlock

    static var chainName: String { get }
    static var fieldNames: OutputFieldNames { get }
    /// Parses a block and its transactions and checks their ids; runs on every core.
    static func parse(_ data: BlockData) -> Result<Block, ScanError>
    /// A mempool transaction; nil when it does not parse (the mempool is not checked).
    static func parseTransaction(_ blob: [UInt8]) -> Block.Transaction?
    /// Whether an unspent output can be spent once `walletHeight` blocks are known.
    static func isUnlocked(_ output: ReceivedOutput, walletHeight: Int, now: UInt64) -> Bool
    /// Whether the mempool's spends of owned outputs count, as a Bitcoin node's wallet counts
    /// them (getbalances): an output a mempool transaction spends leaves the balance until the
    /// spend is mined or gone. False by default: the mempool only adds receipts.
    static var countsMempoolSpends: Bool { get }

    /// Ties a state to the wallet's keys: a state made for other keys is refused.
    var stateID: String { get }
    /// The state file's base name: the chain, its network and an id of the wallet's public keys.
    var stateName: String { get }
    var spendsKnown: Bool { get }
    /// Makes the address table from `cached` entries and derives what they lack.
    mutating func prepare(cached: [AddressEntry]) throws
    /// Entries derived since the last call, to be cached in the state.
    mutating func takeNewAddresses() -> [AddressEntry]
    /// The wallet's outputs in each of the transactions, height nil; pure, runs on every core.
    /// The transactions of one or several consecutive whole blocks (or the mempool's), so a
    /// chain can batch its work across small blocks. Throws
    /// when a transaction proves inconsistent only once an output is found to be the
    /// wallet's (Zcash: a full ciphertext that fails its tag where the compact part decrypts).
    func scan(_ transactions: [Block.Transaction]) throws(ScanError) -> [[ReceivedOutput]]
    /// Called for each output stored, in chain order; true when the address table grew, so
    /// the rest of the batch is scanned again.
    mutating func noteStored(_ output: ReceivedOutput) throws -> Bool
    /// The output as the change of one of the wallet's own spends.
    func asChange(_ output: ReceivedOutput) -> ReceivedOutput
    /// The address text of (account, index), for records.
    func address(account: UInt32, index: UInt32) -> String?
    /// The address an output was paid to when the output itself tells (Zcash: its
    /// diversifier and transmission key, whichever key scope found it); nil to look it up by
    /// (account, index).
    func addressPaid(_ output: ReceivedOutput) -> String?
    /// A memo's record fields; by default its hex under `fieldNames.memo`.
    static func memoFields(_ memo: [UInt8]) -> [(key: String, value: String)]
    /// The value pools this wallet's balance counts, named (with their sums) in balance
    /// records where a chain has several (Zcash: the shielded pools its keys scan); nil for a
    /// chain with one.
    var balancePools: [String]? { get }
    /// Pools this version scans that earlier versions did not, each with the first height that
    /// can hold its outputs (Zcash: Ironwood from NU6.3). A state an earlier version took past
    /// that height is scanned again for the pool alone, once (`Synchronizer`'s catch-up).
    var addedPools: [(name: String, since: Int)] { get }
    /// The pool of the output at `index` of a transaction, and its index among that pool's outputs,
    /// for a chain with several (`ReceivedOutput.index` must be unique within a transaction,
    /// so a chain may fold the pool into it); nil for a chain with one.
    static func pool(ofIndex index: Int) -> (name: String, index: Int)?
    /// A transaction id as the chain's tools show it (Bitcoin: byte-reversed); by default its hex.
    static func transactionID(_ id: [UInt8]) -> String
    /// A spend tag as records show it (Zcash: an Ironwood tag's nullifier without its pool
    /// byte); by default its hex.
    static func spendTagText(_ tag: [UInt8]) -> String
    /// Record fields naming where an output was paid (`addressIndex` nil: the account alone,
    /// in balances); by default the account and address index under `fieldNames`.
    func placeFields(account: UInt32, addressIndex: UInt32?) -> [(key: String, value: JSONValue)]
    /// Record fields an output adds for its chain; by default its unlock time, when it has one.
    static func outputFields(_ output: ReceivedOutput) -> [(key: String, value: JSONValue)]
    /// A balance's sums in the chain's words (`pending`: the mempool's part of `total`); by
    /// default total and unlocked.
    static func sumFields(total: UInt64, unlocked: UInt64, pending: UInt64) -> [(key: String, value: JSONValue)]
    /// The height a balance record names, of a wallet that has scanned `walletHeight` blocks:
    /// by default that count (monero-wallet-rpc's get_height); a chain whose tools name the
    /// tip's height says `walletHeight - 1`.
    static func reportedHeight(walletHeight: Int) -> Int
}

extension ChainScanner {
    public static var countsMempoolSpends: Bool { false }
    public static func reportedHeight(walletHeight: Int) -> Int { walletHeight }
    public func addressPaid(_ output: ReceivedOutput) -> String? { nil }
    public static func memoFields(_ memo: [UInt8]) -> [(key: String, value: String)] { [(fieldNames.memo, Hex.encode(memo))] }
    public var balancePools: [String]? { nil }
    public var addedPools: [(name: String, since: Int)] { [] }
    public static func pool(ofIndex index: Int) -> (name: String, index: Int)? { nil }

    public static func transactionID(_ id: [UInt8]) -> String { Hex.encode(id) }
    public static func spendTagText(_ tag: [UInt8]) -> String { Hex.encode(tag) }

    public func placeFields(account: UInt32, addressIndex: UInt32?) -> [(key: String, value: JSONValue)] {
        [(Self.fieldNames.account, .number(String(account)))] + (addressIndex.map { [(Self.fieldNames.addressIndex, .number(String($0)))] } ?? [])
    }

    public static func outputFields(_ output: ReceivedOutput) -> [(key: String, value: JSONValue)] {
        output.unlockTime == 0 ? [] : [("unlock_time", .string(String(output.unlockTime)))]
    }

    public static func sumFields(total: UInt64, unlocked: UInt64, pending: UInt64) -> [(key: String, value: JSONValue)] {
        [("total", .string(String(total))), ("unlocked", .string(String(unlocked)))]
    }
}
