import WalletCore

/// One block's chain data: the block blob and the blobs of its transactions in block order.
public struct BlockData: Sendable {
    /// The highest height a block, an option or a record may name: beyond any chain's
    /// lifetime (2^40 blocks), and far from overflow in height arithmetic. A height from
    /// outside (a file, a node, a key record) is checked against it where it is read.
    public static let maxHeight = BlockHeight.max

    public let height: Int
    public let blob: [UInt8]
    public let transactions: [[UInt8]]
    /// The id the source claims for the block, checked against the one computed.
    public let claimedID: [UInt8]?
    /// What the block's inputs spend, one item per input in block order, when the source can
    /// tell (a node's undo data or RPC): a chain whose scan needs it (Bitcoin's silent
    /// payments: each spent output's script) reads it; nil when the source gives none.
    public let spent: [[UInt8]]?

    public init(height: Int, blob: [UInt8], transactions: [[UInt8]], claimedID: [UInt8]? = nil, spent: [[UInt8]]? = nil) {
        self.height = height
        self.blob = blob
        self.transactions = transactions
        self.claimedID = claimedID
        self.spent = spent
    }
}

/// The one seam to chain data (design notes): files, a node, a fake in tests. Sendable: the
/// synchronizer fetches the next batch while it scans the current one.
public protocol BlockSource: Sendable {
    /// The number of blocks available (the tip is height − 1); nil when the source cannot
    /// tell without reading to its end (a stream of records).
    func chainHeight() throws -> Int?
    /// Blocks from `height`, at most `count`, in order; empty past the end.
    func blocks(from height: Int, count: Int) throws -> [BlockData]
    /// Transactions in the mempool.
    func mempool() throws -> [[UInt8]]
    /// Transactions in the mempool with what each spends, where the source knows it (Bitcoin's
    /// silent payments need each input's spent script). By default `mempool()`'s, without.
    func mempoolTransactions() throws -> [PoolTransaction]
    /// Who serves the data, for messages ("the node at http://…"), when it is a server: bad
    /// data from a server is its fault (exit 76, naming it), from a file the file's (65).
    var serverName: String? { get }
}

/// A mempool transaction and, where the source gives them, the scripts its inputs spend (in
/// input order), as `BlockData.spent` gives a block's.
public struct PoolTransaction: Sendable {
    public let blob: [UInt8]
    public let spent: [[UInt8]]?

    public init(blob: [UInt8], spent: [[UInt8]]? = nil) { (self.blob, self.spent) = (blob, spent) }
}

extension BlockSource {
    public var serverName: String? { nil }
    public func mempoolTransactions() throws -> [PoolTransaction] { try mempool().map { PoolTransaction(blob: $0) } }
}

/// What the synchronizer tells its caller, in order.
public enum ScanEvent: Sendable, Equatable {
    case received(ReceivedOutput, confirmations: Int)
    case spent(SpentOutput, confirmations: Int)
    case pending(ReceivedOutput)
    /// A mempool transaction spends an owned output (chains whose `countsMempoolSpends`): the
    /// output leaves the balance until the spend is mined or leaves the mempool. Height -1.
    case pendingSpent(SpentOutput)
    case reorg(forkHeight: Int, undoneOutputs: Int, undoneSpends: Int)
    case balance(Balance)
    /// `chainHeight` is nil when the source cannot tell it (a stream).
    case progress(height: Int, chainHeight: Int?)
    /// A state an earlier version took past a pool's first height without scanning the pool
    /// (`ChainScanner.addedPools`) is scanned again for it over `from...to`; `waiting` when the
    /// source does not serve those blocks now (the next run tries again). Said, not recorded.
    case catchUp(pool: String, from: Int, to: Int, waiting: Bool)
}

extension ScanEvent {
    /// The event with its confirmations counted at `walletHeight` (the number of blocks scanned).
    func confirmed(atWalletHeight walletHeight: Int) -> ScanEvent {
        switch self {
        case .received(let o, _): .received(o, confirmations: walletHeight - (o.height ?? walletHeight))
        case .spent(let s, _): .spent(s, confirmations: walletHeight - s.height)
        default: self
        }
    }
}

/// An output a wallet owns, in terms every chain shares. A chain's own words for the fields
/// (Monero: major, minor, key image, payment id) are in its `OutputFieldNames`.
public struct ReceivedOutput: Sendable, Equatable {
    /// The block holding it; nil in the mempool.
    public var height: Int?
    public let txID: [UInt8]
    public let index: Int
    public let amount: UInt64
    /// The account it was paid to; balances are kept per account (Monero: major index).
    public let account: UInt32
    /// The address within the account (Monero: minor index).
    public let addressIndex: UInt32
    /// What a transaction that spends it reveals (Monero: key image; Zcash: nullifier); nil
    /// when the wallet cannot know (view-only).
    public let spendTag: [UInt8]?
    /// What the sender attached for the payee, decrypted (Monero: payment id; Zcash: memo).
    public var memo: [UInt8]?
    /// A height below 500,000,000, else a Unix time, before which it cannot be spent; 0: none.
    public let unlockTime: UInt64
    public let isCoinbase: Bool
    /// The output's one-time public key or note commitment (kept in the state, not reported).
    public let outputKey: [UInt8]
    /// Paid back to the wallet by a transaction that spends its outputs (known only with the
    /// spend key): change, not a payment. Not kept in the state; only its event says so.
    public var isChange = false
    /// Its leaf in the chain's note-commitment tree (Zcash), when the block said; a spend
    /// needs it for the witness. Not kept in the state; only its event says so.
    public var position: UInt64?

    public init(
        height: Int?, txID: [UInt8], index: Int, amount: UInt64, account: UInt32, addressIndex: UInt32,
        spendTag: [UInt8]?, memo: [UInt8]?, unlockTime: UInt64, isCoinbase: Bool, outputKey: [UInt8], isChange: Bool = false
    ) {
        self.height = height
        self.txID = txID
        self.index = index
        self.amount = amount
        self.account = account
        self.addressIndex = addressIndex
        self.spendTag = spendTag
        self.memo = memo
        self.unlockTime = unlockTime
        self.isCoinbase = isCoinbase
        self.outputKey = outputKey
        self.isChange = isChange
    }
}

public struct SpentOutput: Sendable, Equatable {
    public let height: Int
    public let spendingTxID: [UInt8]
    public let spendTag: [UInt8]
    public let outputTxID: [UInt8]
    public let outputIndex: Int
    public let amount: UInt64
    public let account: UInt32
    public let addressIndex: UInt32
    /// Which of the spending transaction's inputs (its place among the transaction's spend tags).
    public var input = 0
}

public struct Balance: Sendable, Equatable {
    public let height: Int
    public let total: UInt64
    public let unlocked: UInt64
    public let perAccount: [UInt32: (total: UInt64, unlocked: UInt64)]
    /// What the mempool pays the wallet (counted in `total`), and per account.
    public var pending: UInt64 = 0
    public var pendingPerAccount: [UInt32: UInt64] = [:]
    /// Per value pool, for a chain with several (`ChainScanner.pool(ofIndex:)`); empty otherwise.
    public var perPool: [String: (total: UInt64, unlocked: UInt64)] = [:]
    /// False for a view-only wallet: spends cannot be seen, so the totals are an upper bound.
    public let spendsKnown: Bool

    public init(
        height: Int, total: UInt64, unlocked: UInt64, perAccount: [UInt32: (total: UInt64, unlocked: UInt64)],
        perPool: [String: (total: UInt64, unlocked: UInt64)] = [:], spendsKnown: Bool
    ) {
        self.height = height
        self.total = total
        self.unlocked = unlocked
        self.perAccount = perAccount
        self.perPool = perPool
        self.spendsKnown = spendsKnown
    }

    public static func == (a: Balance, b: Balance) -> Bool {
        a.height == b.height && a.total == b.total && a.unlocked == b.unlocked && a.spendsKnown == b.spendsKnown
            && a.pending == b.pending && a.pendingPerAccount == b.pendingPerAccount
            && a.perAccount.keys == b.perAccount.keys
            && a.perAccount.allSatisfy {
                b.perAccount[$0.key]!.total == $0.value.total && b.perAccount[$0.key]!.unlocked == $0.value.unlocked
            }
            && a.perPool.keys == b.perPool.keys
            && a.perPool.allSatisfy { b.perPool[$0.key]!.total == $0.value.total && b.perPool[$0.key]!.unlocked == $0.value.unlocked }
    }
}

/// The synchronizer's status (design notes: unprepared / syncing / synced / stopped).
public enum SyncStatus: String, Sendable {
    case unprepared, syncing, synced, stopped
}
