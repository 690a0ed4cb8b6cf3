import WalletCore

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

    public init(
        account: String, addressIndex: String, spendTag: String?, memo: String,
        index: String = "index", amount: String = "amount", input: String? = nil
    ) {
        self.account = account
        self.addressIndex = addressIndex
        self.spendTag = spendTag
        self.memo = memo
        self.index = index
        self.amount = amount
        self.input = input
    }
}
