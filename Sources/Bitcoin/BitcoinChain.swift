import WalletCore
import WalletKeys
import WalletCrypto

/// A Bitcoin-family chain, as a type: the engine's chain name and parsing rules are static.
public protocol BitcoinFamily: Sendable {
    /// "bitcoin" or "litecoin", in records and state names.
    static var name: String { get }
    /// The coin's code in `CoinNetwork` ("btc", "ltc").
    static var coin: String { get }
    static var dialect: BitcoinDialect { get }
    /// The BIP44 purposes a seed is scanned under (86 where the chain has taproot wallets).
    static var purposes: [UInt32] { get }
    /// How a header proves its work.
    static var proofOfWork: ProofOfWork { get }
    /// The network magic before each block in blk*.dat files, per network.
    static func magic(network: String) -> [UInt8]?
    /// The node's JSON-RPC port and its data directory under $HOME (where its .cookie is), per network.
    static func node(network: String) -> (rpcPort: Int, directory: String)?
    /// Whether its main network has silent payments: BIP352 names Bitcoin's networks only, and
    /// Litecoin's test networks take tsp, for tests.
    static var silentPaymentsOnMain: Bool { get }
}

/// The Bitcoin-family chains, for code that picks one by its coin code.
public enum BitcoinFamilies {
    public static let all: [any BitcoinFamily.Type] = [BitcoinMainChain.self, LitecoinChain.self]
}

extension BitcoinFamily {
    /// Its network of that name (main, test, regtest, signet; mainnet and testnet too).
    public static func network(_ name: String) throws(DerivationError) -> BitcoinNetwork { try BitcoinNetwork(Self.self, network: name) }
}

public enum BitcoinMainChain: BitcoinFamily {
    public static let name = "bitcoin"
    public static let coin = "btc"
    public static let dialect = BitcoinDialect.bitcoin
    public static let purposes: [UInt32] = [44, 49, 84, 86]
    public static let proofOfWork = ProofOfWork.sha256d
    public static let silentPaymentsOnMain = true
    public static func magic(network: String) -> [UInt8]? {
        [
            "main": [0xF9, 0xBE, 0xB4, 0xD9], "test": [0x0B, 0x11, 0x09, 0x07], "signet": [0x0A, 0x03, 0xCF, 0x40],
            "regtest": [0xFA, 0xBF, 0xB5, 0xDA],
        ][network]
    }
    public static func node(network: String) -> (rpcPort: Int, directory: String)? {
        [
            "main": (8332, ".bitcoin"), "test": (18332, ".bitcoin/testnet3"), "signet": (38332, ".bitcoin/signet"),
            "regtest": (18443, ".bitcoin/regtest"),
        ][network]
    }
}

public enum LitecoinChain: BitcoinFamily {
    public static let name = "litecoin"
    public static let coin = "ltc"
    public static let dialect = BitcoinDialect.litecoin
    public static let purposes: [UInt32] = [44, 49, 84]
    public static let proofOfWork = ProofOfWork.scrypt
    public static let silentPaymentsOnMain = false
    public static func magic(network: String) -> [UInt8]? {
        ["main": [0xFB, 0xC0, 0xB6, 0xDB], "test": [0xFD, 0xD2, 0xC8, 0xF1], "regtest": [0xFA, 0xBF, 0xB5, 0xDA]][network]
    }
    public static func node(network: String) -> (rpcPort: Int, directory: String)? {
        ["main": (9332, ".litecoin"), "test": (19332, ".litecoin/testnet4"), "regtest": (19443, ".litecoin/regtest")][network]
    }
}

/// One network of a Bitcoin-family chain: address prefixes, coin type, blk*.dat magic.
public struct BitcoinNetwork: Sendable {
    public let chainName: String
    public let coin: CoinNetwork
    public let magic: [UInt8]
    public let purposes: [UInt32]
    public let proofOfWork: ProofOfWork
    /// How its blocks, transactions and undo data are serialized (Litecoin's MWEB).
    public let dialect: BitcoinDialect
    /// The node's default RPC port, and its data directory relative to $HOME.
    public let rpcPort: Int
    public let nodeDirectory: String

    /// `network`: main, test, regtest or signet (mainnet and testnet too).
    public init<C: BitcoinFamily>(_ chain: C.Type, network given: String) throws(DerivationError) {
        let network = NetworkName.canonical(given)
        guard let coin = CoinNetwork.find(coin: C.coin, network: network), let magic = C.magic(network: network),
            let node = C.node(network: network)
        else {
            throw .unsupported(CoinNetwork.noNetworkMessage(coin: C.coin, network: given))
        }
        dialect = C.dialect
        (chainName, self.coin, self.magic, purposes) = (
            C.name, coin, magic, C.purposes.filter { ScriptKind.forPurpose($0).map(coin.scripts.contains) ?? false }
        )
        (rpcPort, nodeDirectory) = node
        proofOfWork = C.proofOfWork
    }

    /// The scriptPubKey paying `key` in a script kind (P2TR: the BIP86-tweaked output key).
    public static func script(for key: Secp256k1.PublicKey, kind: ScriptKind) throws -> [UInt8] {
        switch kind {
        case .p2pkh: return ScriptTemplate.p2pkh(Hash.hash160(key.compressed))
        case .p2shP2wpkh: return ScriptTemplate.p2sh(ScriptTemplate.p2wpkh(key.compressed))
        case .p2wpkh: return ScriptTemplate.p2wpkh(key.compressed)
        case .p2tr: return [0x51, 0x20] + (try key.taprootOutputKey())
        case .ethereum: throw DerivationError.unsupported("not a Bitcoin script")
        }
    }

    /// The address a standard scriptPubKey pays, in this network's encoding; nil for others.
    public func address(of script: [UInt8]) -> String? {
        switch ScriptTemplate(script) {
        case .p2pkh(let hash): Base58.encodeCheck(coin.p2pkhPrefix + hash)
        case .p2sh(let hash): Base58.encodeCheck(coin.p2shPrefix + hash)
        case .p2wpkh(let program), .p2wsh(let program): coin.bech32HRP.map { SegwitAddress.encode(hrp: $0, version: 0, program: program) }
        case .p2tr(let key): coin.bech32HRP.map { SegwitAddress.encode(hrp: $0, version: 1, program: key) }
        case .other: nil
        }
    }
}

/// What a chain's serialization allows beyond Bitcoin's.
public struct BitcoinDialect: Sendable, Equatable {
    /// Litecoin's MWEB (LIP-0002/0003): transaction flag 0x08 with its mweb_tx_present byte,
    /// the HogEx, and the extension block after a block's transactions.
    public var mweb = false

    public static let bitcoin = BitcoinDialect()
    public static let litecoin = BitcoinDialect(mweb: true)
}
