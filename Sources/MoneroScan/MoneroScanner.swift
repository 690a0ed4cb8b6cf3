import WalletCore
import WalletKeys
import WalletScan
import Monero
import WalletCrypto

/// A Monero block with its transactions (the miner's first), parsed and checked.
public struct MoneroParsedBlock: ChainBlock {
    public let block: MoneroBlock
    public let transactions: [MoneroTransaction]
    public var id: [UInt8] { block.id }
    public var previousID: [UInt8] { block.previousID }
}

extension MoneroTransaction: ChainTransaction {
    public var spendTags: [[UInt8]] { inputs.compactMap(\.keyImage) }
}

/// Monero's part in the synchronizer: the block parser, and a wallet's view-key detector with
/// its subaddress table (grown as Monero's wallet grows it). With the spend key it computes
/// key images, so the engine can see spends.
public struct MoneroScanner: ChainScanner {
    public let keys: MoneroKeys
    public let network: MoneroNetwork
    public let lookahead: (majors: UInt32, minors: UInt32)
    /// The table grows when an output lands within this many indexes of its edge.
    private let growthMargin: UInt32
    private var detector: MoneroDetector?

    public init(keys: MoneroKeys, network: MoneroNetwork, lookahead: (majors: UInt32, minors: UInt32) = MoneroDetector.defaultLookahead) {
        self.keys = keys
        self.network = network
        self.lookahead = lookahead
        growthMargin = min(lookahead.majors, lookahead.minors, 50)
    }

    public static let chainName = "monero"
    public static let fieldNames = OutputFieldNames(account: "major", addressIndex: "minor", spendTag: "key_image", memo: "payment_id")

    /// The state file's name: network and a hash of the public keys (one file per wallet).
    public var stateName: String {
        "monero-\(network.name)-" + Hex.encode(Keccak256.hash(keys.spendPublic + keys.viewPublic + Array(network.name.utf8)).prefix(12))
    }

    public var stateID: String { Hex.encode(Keccak256.hash(keys.spendPublic + keys.viewPublic).prefix(16)) }
    public var spendsKnown: Bool { keys.spendSecret != nil }

    public static func parse(_ data: BlockData) -> Result<MoneroParsedBlock, ScanError> {
        let what = "block \(data.height)"
        let block: MoneroBlock
        do { block = try MoneroBlock(blob: data.blob) } catch {
            return .failure(.malformed(what: what, reason: error.message))
        }
        if let claimed = data.claimedID, claimed != block.id {
            return .failure(.hashMismatch(what: what, expected: Hex.encode(claimed), computed: Hex.encode(block.id)))
        }
        guard block.transactionIDs.count == data.transactions.count else {
            return .failure(
                .malformed(
                    what: what, reason: "lists \(block.transactionIDs.count) transactions, the source gave \(data.transactions.count)"))
        }
        // Parsed first, then hashed together; the first transaction that fails either way is
        // the one reported, as when each was hashed on its own.
        var txs = [MoneroTransaction]()
        txs.reserveCapacity(data.transactions.count + 1)
        var malformed: (index: Int, error: ScanError)?
        for (i, blob) in data.transactions.enumerated() {
            do { txs.append(try MoneroTransaction(blob: blob, deferringID: true)) } catch {
                malformed = (i, error)
                break
            }
        }
        MoneroTransaction.computeIDs(&txs)
        for (i, tx) in txs.enumerated() where tx.id != block.transactionIDs[i] {
            return .failure(
                .hashMismatch(what: "\(what), transaction \(i)", expected: Hex.encode(block.transactionIDs[i]), computed: Hex.encode(tx.id))
            )
        }
        if let malformed {
            return .failure(.malformed(what: "\(what), transaction \(malformed.index)", reason: malformed.error.message))
        }
        return .success(MoneroParsedBlock(block: block, transactions: [block.minerTransaction] + txs))
    }

    public static func parseTransaction(_ blob: [UInt8]) -> MoneroTransaction? { try? MoneroTransaction(blob: blob) }

    /// Monero's rules: unlocked 10 blocks deep and once its unlock_time (a height below
    /// 500,000,000, else a Unix time, with the wallet's 120 s leeway) has passed.
    public static func isUnlocked(_ o: ReceivedOutput, walletHeight: Int, now: UInt64) -> Bool {
        let height = o.height ?? walletHeight
        guard height + 10 <= walletHeight else { return false }
        if o.unlockTime == 0 { return true }
        return o.unlockTime < 500_000_000 ? UInt64(walletHeight) >= o.unlockTime : now + 120 >= o.unlockTime
    }

    public mutating func prepare(cached: [AddressEntry]) throws {
        detector = try MoneroDetector(keys: keys, majors: lookahead.majors, minors: lookahead.minors, cached: cached)
    }

    public mutating func takeNewAddresses() -> [AddressEntry] { detector?.takeNewEntries() ?? [] }

    public func scan(_ transactions: [MoneroTransaction]) -> [[ReceivedOutput]] {
        guard let detector else { preconditionFailure("MoneroScanner.prepare was not called") }
        return detector.scan(transactions).map { outputs in
            outputs.map { o in
                ReceivedOutput(
                    height: nil, txID: o.txID, index: o.outputIndex, amount: o.amount, account: o.major, addressIndex: o.minor,
                    spendTag: o.keyImage, memo: o.paymentID, unlockTime: o.unlockTime, isCoinbase: o.isCoinbase, outputKey: o.outputKey)
            }
        }
    }

    public mutating func noteStored(_ output: ReceivedOutput) throws -> Bool {
        let before = detector?.tableSize
        try detector?.noteUsed(major: output.account, minor: output.addressIndex, margin: growthMargin)
        return detector?.tableSize != before
    }

    /// Change: the payment id was encrypted for the payee, so the wallet's reading is noise.
    public func asChange(_ output: ReceivedOutput) -> ReceivedOutput {
        var o = output
        o.memo = nil
        o.isChange = true
        return o
    }

    public func address(account: UInt32, index: UInt32) -> String? {
        try? keys.subaddress(major: account, minor: index, network).address
    }
}
