import WalletCore
import WalletScan

/// How a chain's findings read in records: the words, encodings and extra fields that
/// scan-blocks' events and balances write. Here, beside the records, not in the engine, which
/// never calls it; a chain's scanner has the members, and its file here declares the
/// conformance (`extension MoneroScanner: ChainRecords {}`).
public protocol ChainRecords {
    static var chainName: String { get }
    static var fieldNames: OutputFieldNames { get }
    /// The address text of (account, index), for records.
    func address(account: UInt32, index: UInt32) -> String?
    /// The address an output was paid to when the output itself tells (Zcash: its
    /// diversifier and transmission key, whichever key scope found it); nil to look it up by
    /// (account, index).
    func addressPaid(_ output: ReceivedOutput) -> String?
    /// A memo's record fields; by default its hex under `fieldNames.memo`.
    static func memoFields(_ memo: [UInt8]) -> [(key: String, value: String)]
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

extension ChainRecords {
    public static func reportedHeight(walletHeight: Int) -> Int { walletHeight }
    public func addressPaid(_ output: ReceivedOutput) -> String? { nil }
    public static func memoFields(_ memo: [UInt8]) -> [(key: String, value: String)] { [(fieldNames.memo, Hex.encode(memo))] }
    public static func transactionID(_ id: [UInt8]) -> String { Hex.encode(id) }
    public static func spendTagText(_ tag: [UInt8]) -> String { Hex.encode(tag) }

    public func placeFields(account: UInt32, addressIndex: UInt32?) -> [(key: String, value: JSONValue)] {
        [(Self.fieldNames.account, .number(String(account)))]
            + (addressIndex.map { [(Self.fieldNames.addressIndex, .number(String($0)))] } ?? [])
    }

    public static func outputFields(_ output: ReceivedOutput) -> [(key: String, value: JSONValue)] {
        output.unlockTime == 0 ? [] : [("unlock_time", .string(String(output.unlockTime)))]
    }

    public static func sumFields(total: UInt64, unlocked: UInt64, pending: UInt64) -> [(key: String, value: JSONValue)] {
        [("total", .string(String(total))), ("unlocked", .string(String(unlocked)))]
    }
}
