import ArgumentParser
import WalletCore

/// Where a run's key comes from, chosen once for every tool that takes a key: the key in
/// each record (no option), a key record (--key-file or --key-fd), a key-store entry
/// (--wallet), or, in the tools that have one, a Keycard (--card, `CardKeySourceOptions`).
/// At most one is given; `checkOne` is the only place that says so.
///
/// The groups inside are one level deep on purpose: a debug build's ArgumentParser checks each
/// group again inside every enclosing one (five times a level), and a tool run in the tests
/// spent a second of CPU on that at four levels.
public struct KeySourceOptions: ParsableArguments {
    @OptionGroup public var keyRecord: KeyOptions

    /// --wallet NAME: a key-store entry as the key of a run.
    public static let walletHelp = ArgumentHelp("Use this key-store entry as the key for every record.", valueName: "name")
    @Option(help: walletHelp) public var wallet: String?

    /// The key-store options (for the entry, and for a card's pairing).
    @OptionGroup public var keyStore: KeyStoreOptions

    public init() {}

    public func validate() throws {
        try Self.checkOne(
            keyFile: keyRecord.keyFile != nil, keyFd: keyRecord.keyFd != nil, wallets: wallet == nil ? 0 : 1, card: false)
    }

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
        if let wallet { return .wallet(wallet) }
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
