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
    /// Parts of the block this version could not read (Zcash: transactions with fields of a
    /// later upgrade, perhaps a new pool's): scanned for what they hold, counted by the
    /// engine (`Synchronizer.unreadBlockParts`) and said by the run, never skipped silently.
    var unreadParts: Int { get }
}

extension ChainBlock {
    public var tally: [UInt8]? { nil }
    public func contradiction(parentTally: [UInt8]) -> String? { nil }
    public var unreadParts: Int { 0 }
}

public protocol ChainTransaction: Sendable {
    var id: [UInt8] { get }
    /// What its inputs reveal of the outputs they spend (Monero: key images; Zcash:
    /// nullifiers); matched against owned outputs' `spendTag`.
    var spendTags: [[UInt8]] { get }
    /// The inputs whose spend tag `tags` holds, with their tags. A chain may walk its inputs
    /// where they lie, making a tag only for what the set's filter lets through: a wallet
    /// with unspent outputs asks it of every transaction of every block.
    func spends(in tags: FilteredByteSet) -> [(input: Int, tag: [UInt8])]
}

extension ChainTransaction {
    public func spends(in tags: FilteredByteSet) -> [(input: Int, tag: [UInt8])] {
        spendTags.enumerated().filter { tags.contains($0.element) }.map { ($0.offset, $0.element) }
    }
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

/// All the engine knows of a chain: how its block data is parsed (static, once per block for
/// every wallet) and one wallet's detector (a value per wallet, copied to worker threads).
/// A chain module conforms one type; `Synchronizer` does the rest. How its findings read in
/// records is ScanRecords' `ChainRecords`, which the engine never calls.
public protocol ChainScanner: Sendable {
    associatedtype Block: ChainBlock

    /// Parses a block and its transactions and checks their ids; runs on every core.
    static func parse(_ data: BlockData) -> Result<Block, ScanError>
    /// A mempool transaction; nil when it does not parse (the mempool is not checked).
    static func parseTransaction(_ blob: [UInt8]) -> Block.Transaction?
    /// A mempool transaction with the scripts its inputs spend, when the source gives them.
    static func parseTransaction(_ transaction: PoolTransaction) -> Block.Transaction?
    /// How many of these mempool transactions could hold a payment this wallet cannot look
    /// for (Bitcoin's silent payments without what the inputs spend): the caller says so.
    func unseenInMempool(_ transactions: [Block.Transaction]) -> Int
    /// Whether an unspent output can be spent once `walletHeight` blocks are known.
    static func isUnlocked(_ output: ReceivedOutput, walletHeight: Int, now: UInt64) -> Bool
    /// Whether the mempool's spends of owned outputs count, as a Bitcoin node's wallet counts
    /// them (getbalances): an output a mempool transaction spends leaves the balance until the
    /// spend is mined or gone. False by default: the mempool only adds receipts.
    static var countsMempoolSpends: Bool { get }
    /// Whether a run's first batches should be small (`Synchronizer.rampsUp`): for blocks of
    /// megabytes, whose first batch is otherwise read before anything is scanned.
    static var bigBlocks: Bool { get }
    /// Whether no two outputs can share a spend tag (Zcash: a note is its nullifier): a new
    /// output whose tag the wallet already holds is then a copy, and the block is refused
    /// rather than the output counted twice. False where a chain can repeat one (Monero's
    /// burning bug: the same one-time key twice, only one of them spendable).
    static var spendTagIsUnique: Bool { get }

    /// Ties a state to the wallet's keys: a state made for other keys is refused.
    var stateID: String { get }
    /// The state file's base name: the chain, its network and an id of the wallet's public keys.
    var stateName: String { get }
    var spendsKnown: Bool { get }
    /// Why the wallet's network cannot hold `block` at `height`, though it parsed (Zcash: a
    /// pool's outputs before its activation, or the pool's first tree size not its first
    /// block's own count); nil when it can. A light client trusts its source for what exists,
    /// never for what cannot be: the engine asks before it stores a block.
    func impossibility(in block: Block, at height: Int) -> String?
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
}

extension ChainScanner {
    public static func parseTransaction(_ transaction: PoolTransaction) -> Block.Transaction? { parseTransaction(transaction.blob) }
    public func unseenInMempool(_ transactions: [Block.Transaction]) -> Int { 0 }
    public static var countsMempoolSpends: Bool { false }
    public static var bigBlocks: Bool { false }
    public static var spendTagIsUnique: Bool { false }
    public func impossibility(in block: Block, at height: Int) -> String? { nil }
    public var balancePools: [String]? { nil }
    public var addedPools: [(name: String, since: Int)] { [] }
    public static func pool(ofIndex index: Int) -> (name: String, index: Int)? { nil }
}
