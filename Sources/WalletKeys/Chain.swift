/// The chains Satchel knows, by the code users type (--coin, a record's "coin"). Code outside a
/// chain's own modules names a chain by this value, never by its string.
public enum Chain: String, Sendable, CaseIterable {
    case bitcoin = "btc", litecoin = "ltc", dogecoin = "doge", bitcoinCash = "bch", zcash = "zec", ethereum = "eth"
    case monero = "xmr"

    /// The chain of a code; nil for none or an unknown one.
    public init?(code: String?) {
        guard let code, let chain = Chain(rawValue: code) else { return nil }
        self = chain
    }

    /// The phrase scheme of its seeds: 25 words given for any other chain are a BIP39 phrase
    /// with a word too many, not a Monero seed.
    public var seedScheme: MnemonicScheme { self == .monero ? .monero : .bip39 }
}

/// Key material that is one chain's own, beside the secp256k1 forms every BIP32 coin shares:
/// Monero's keys, a Zcash key-store entry. Only its chain's code reads it; every other job
/// refuses it, in the words this gives.
public protocol ChainKey: Sendable {
    /// Why it signs no secp256k1 hash, and what to give instead.
    var notSecp256k1: String { get }
}
