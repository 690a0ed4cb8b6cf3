import WalletCore

/// The coin network, script and SLIP-44 coin type whose addresses a BIP32 key makes: what a
/// user asked for, checked against what the key itself says (its version bytes, its depth).
public struct AddressPlan: Sendable {
    public let chain: CoinNetwork
    public let script: ScriptKind
    public let coinType: UInt32

    /// `network` nil: main, except for a btc key whose version bytes say test.
    /// `fromSeed`: the key is a master key made from a seed, phrase or card, whose version
    /// bytes say nothing of a network; only an imported extended key is held to its network.
    /// `script` nil: the one the key's SLIP-132 version implies, else the coin's default at
    /// the master key; an account key that says neither is refused (its addresses are unknown).
    /// `coinType` nil: the coin's own.
    public init(
        coin: String, network given: String?, script requested: ScriptKind?, coinType: UInt32?,
        key: ExtendedKey, fromSeed: Bool
    ) throws(DerivationError) {
        var network = given.map(NetworkName.canonical) ?? "main"
        if given == nil, key.version.testnet, Chain(code: coin) == .bitcoin { network = "test" }
        guard let chain = CoinNetwork.find(coin: coin, network: network) else {
            throw .unsupported(CoinNetwork.noNetworkMessage(coin: coin, network: network))
        }
        if !fromSeed, key.version.testnet != chain.testnet, Chain(code: coin) != .ethereum {
            throw .unsupported("the extended key is for \(key.version.testnet ? "a test" : "the main") network, not \(coin) \(network)")
        }
        let implied = key.version.impliedScript
        if let requested, let implied, requested != implied {
            throw .unsupported("a \(key.version.publicPrefix) key is for \(implied.rawValue), not \(requested.rawValue)")
        }
        let chosen: ScriptKind
        if chain.scripts == [.ethereum] {
            chosen = .ethereum
        } else if let kind = requested ?? implied {
            chosen = kind
        } else if key.depth == 0 {
            chosen = chain.defaultScript
        } else {
            throw .unsupported("an \(key.version.publicPrefix) key does not say which addresses it makes: give --purpose 44, 49, 84 or 86")
        }
        guard chain.scripts.contains(chosen) else { throw .unsupported("\(coin) has no \(chosen.rawValue) addresses") }
        self.chain = chain
        self.script = chosen
        self.coinType = coinType ?? chain.slip44
    }

    /// m/purpose'/coin'/account'
    public func accountPath(_ account: UInt32) -> DerivationPath {
        DerivationPath([script.purpose + DerivationPath.hardened, coinType + DerivationPath.hardened, account + DerivationPath.hardened])
    }
}

extension CoinNetwork {
    /// "btc has no network 'stagenet' (btc networks: main, test, signet, regtest)".
    public static func noNetworkMessage(coin: String, network: String) -> String {
        let known = all.filter { $0.coin == coin }.map(\.network)
        return "\(coin) has no network '\(network)' (\(coin) networks: \(known.joined(separator: ", ")))"
    }
}

/// The one vocabulary of network names every tool's --network takes: main, test, regtest,
/// signet, and Monero's stagenet; "mainnet" and "testnet", which Monero and many wallets
/// write, are the same as main and test. Records keep each chain's own words.
public enum NetworkName {
    public static let aliases = ["mainnet": "main", "testnet": "test"]

    /// The name in this vocabulary: an alias becomes its name; anything else stays as given
    /// (the chain says whether it knows it).
    public static func canonical(_ name: String) -> String { aliases[name] ?? name }
}
