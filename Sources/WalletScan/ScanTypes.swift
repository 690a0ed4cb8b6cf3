import WalletCore

/// One block's chain data: the block blob and the blobs of its transactions in block order.
public struct BlockData: Sendable {
    public let height: Int
    public let blob: [UInt8]
    public let transactions: [[UInt8]]
    /// The id the source claims for the block, checked against the one computed.
    public let claimedID: [UInt8]?

    public init(height: Int, blob: [UInt8], transactions: [[UInt8]], claimedID: [UInt8]? = nil) {
        self.height = height
        self.blob = blob
        self.transactions = transactions
        self.claimedID = claimedID
    }
}

/// The one seam to chain data (design notes): files, a node, a fake in tests.
public protocol BlockSource {
    /// The number of blocks available (the tip is height − 1).
    func chainHeight() throws -> Int
    /// Blocks from `height`, at most `count`, in order.
    func blocks(from height: Int, count: Int) throws -> [BlockData]
    /// Transactions in the mempool.
    func mempool() throws -> [[UInt8]]
}

/// What the synchronizer tells its caller, in order.
public enum ScanEvent: Sendable, Equatable {
    case received(ReceivedOutput, confirmations: Int)
    case spent(SpentOutput, confirmations: Int)
    case pending(ReceivedOutput)
    case reorg(forkHeight: Int, undoneOutputs: Int, undoneSpends: Int)
    case balance(Balance)
    case progress(height: Int, chainHeight: Int)
}

public struct ReceivedOutput: Sendable, Equatable {
    public let height: Int?
    public let txID: [UInt8]
    public let index: Int
    public let amount: UInt64
    public let major: UInt32
    public let minor: UInt32
    public let paymentID: [UInt8]?
    public let keyImage: [UInt8]?
    public let unlockTime: UInt64
    public let isCoinbase: Bool
}

public struct SpentOutput: Sendable, Equatable {
    public let height: Int
    public let spendingTxID: [UInt8]
    public let keyImage: [UInt8]
    public let outputTxID: [UInt8]
    public let outputIndex: Int
    public let amount: UInt64
    public let major: UInt32
    public let minor: UInt32
}

public struct Balance: Sendable, Equatable {
    public let height: Int
    public let total: UInt64
    public let unlocked: UInt64
    public let perAccount: [UInt32: (total: UInt64, unlocked: UInt64)]
    /// False for a view-only wallet: spends cannot be seen, so the totals are an upper bound.
    public let spendsKnown: Bool

    public static func == (a: Balance, b: Balance) -> Bool {
        a.height == b.height && a.total == b.total && a.unlocked == b.unlocked && a.spendsKnown == b.spendsKnown
            && a.perAccount.keys == b.perAccount.keys
            && a.perAccount.allSatisfy { b.perAccount[$0.key]!.total == $0.value.total && b.perAccount[$0.key]!.unlocked == $0.value.unlocked }
    }
}

/// The synchronizer's status (design notes: unprepared / syncing / synced / stopped).
public enum SyncStatus: String, Sendable {
    case unprepared, syncing, synced, stopped
}
