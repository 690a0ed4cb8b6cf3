import ArgumentParser
import WalletCore

/// Where a run's key comes from, chosen once for every tool that takes a key: the key in
/// each record (no option), a key record (--key-file or --key-fd), a key-store entry
/// (--wallet), or, in the tools that have one, a Keycard (--card, `CardKeySourceOptions`).
/// At most one is given; `checkOne` is the only place that says so.
public struct KeySourceOptions: ParsableArguments {
    @OptionGroup public var keyRecord: KeyOptions
    @OptionGroup public var walletEntry: WalletOptions

    public init() {}

    public func validate() throws {
        try Self.checkOne(
            keyFile: keyRecord.keyFile != nil, keyFd: keyRecord.keyFd != nil, wallets: walletEntry.wallet == nil ? 0 : 1, card: false)
    }

    /// The key-store options (for the entry, and for a card's pairing).
    public var keyStore: KeyStoreOptions { walletEntry.keyStore }

    /// The source chosen.
    public enum Choice: Equatable, Sendable {
        /// No option: each record carries its key.
        case records
        /// --key-file or --key-fd.
        case keyRecord
        /// --wallet NAME.
        case wallet(String)
        /// --card.
        case card
    }

    /// The choice, `card` saying whether --card was given (in a tool that has it).
    public func choice(card: Bool = false) -> Choice {
        if card { return .card }
        if let wallet = walletEntry.wallet { return .wallet(wallet) }
        return keyRecord.isGiven ? .keyRecord : .records
    }

    /// At most one of --key-file, --key-fd, --wallet (`wallets`: how many; scan-blocks takes
    /// several, which are one source) and --card (in the tools that offer it). Run by each
    /// group's validate, the plain group's first: its message holds for both.
    public static func checkOne(keyFile: Bool, keyFd: Bool, wallets: Int, card: Bool) throws(ValidationError) {
        let given = [(keyFile, "--key-file"), (keyFd, "--key-fd"), (wallets > 0, "--wallet"), (card, "--card")].filter(\.0).map(\.1)
        guard given.count <= 1 else {
            throw ValidationError(
                "give one key source, not \(given.joined(separator: " and ")) (with none, each record carries its own key)")
        }
    }
}
