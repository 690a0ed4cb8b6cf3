import KeySources
import WalletCore
import WalletRecords

/// What `derive` needs of a chain: which records it derives, and its account and address
/// records. Each chain has one conformer file in this module; `DeriveChains.all` is the table
/// the requests dispatch on, and no other file here names a chain.
protocol DeriveChain: Sendable {
    /// Whether it takes a record before any key is read from it: the options or the record's
    /// own fields name it (--pool, --purpose 352, a viewing key), or the run's key is its own.
    static func claims(_ record: JSONObject, keys: DeriveKeys, options: ChainOptions) -> Bool
    /// Whether a key read from a record is its own.
    static func owns(_ source: KeySource) -> Bool
    /// Whether `--label` applies to its addresses.
    static var takesLabels: Bool { get }
    /// Whether `derive account --ur` exports its accounts.
    static var hasAccountUR: Bool { get }
    /// The account record of `record`; `read` is the key read from it (nil when the chain
    /// claimed the record unread).
    static func account(_ request: AccountRequest, record: JSONObject, keys: DeriveKeys, read: ReadKey?) throws -> JSONObject
    /// The address records of `record`.
    static func addresses(
        _ request: AddressRequest, record: JSONObject, keys: DeriveKeys, read: ReadKey?,
        emit: (JSONObject) throws(CLIError) -> Void) throws
}

extension DeriveChain {
    static func claims(_ record: JSONObject, keys: DeriveKeys, options: ChainOptions) -> Bool { false }
    static func owns(_ source: KeySource) -> Bool { false }
    static var takesLabels: Bool { false }
    static var hasAccountUR: Bool { false }
}

/// A key read from a record, and the record without the fields that were read for it.
struct ReadKey {
    let source: KeySource
    let rest: JSONObject
}

enum DeriveChains {
    /// In the order they are asked: a chain that claims records before the keys that own them.
    static let all: [any DeriveChain.Type] = [SilentPaymentDerive.self, ZcashDerive.self, MoneroDerive.self, BIP32Derive.self]

    static func claiming(_ record: JSONObject, keys: DeriveKeys, options: ChainOptions) -> (any DeriveChain.Type)? {
        all.first { $0.claims(record, keys: keys, options: options) }
    }

    static func owner(of source: KeySource) -> (any DeriveChain.Type)? {
        all.first { $0.owns(source) }
    }
}
