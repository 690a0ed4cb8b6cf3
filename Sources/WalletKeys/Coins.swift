import WalletCore
import WalletCrypto

/// How an address pays to a key.
public enum ScriptKind: String, Sendable, CaseIterable {
    case p2pkh
    case p2shP2wpkh = "p2sh-p2wpkh"
    case p2wpkh
    case p2tr
    case ethereum

    /// BIP44/49/84/86 purpose → script.
    public static func forPurpose(_ purpose: UInt32) -> ScriptKind? {
        switch purpose {
        case 44: .p2pkh
        case 49: .p2shP2wpkh
        case 84: .p2wpkh
        case 86: .p2tr
        default: nil
        }
    }

    public var purpose: UInt32 {
        switch self {
        case .p2pkh, .ethereum: 44
        case .p2shP2wpkh: 49
        case .p2wpkh: 84
        case .p2tr: 86
        }
    }
}

/// One coin on one network: its SLIP-44 type, address prefixes and WIF byte.
public struct CoinNetwork: Sendable {
    public let coin: String
    public let network: String
    public let slip44: UInt32
    public let p2pkhPrefix: [UInt8]
    public let p2shPrefix: [UInt8]
    public let bech32HRP: String?
    public let cashAddrPrefix: String?
    public let wifPrefix: UInt8
    public let scripts: [ScriptKind]
    public let testnet: Bool

    /// The script used when only the coin is named.
    public var defaultScript: ScriptKind { scripts.contains(.p2wpkh) ? .p2wpkh : scripts[0] }

    public static let all: [CoinNetwork] = [
        .init(
            coin: "btc", network: "main", slip44: 0, p2pkhPrefix: [0x00], p2shPrefix: [0x05], bech32HRP: "bc", cashAddrPrefix: nil,
            wifPrefix: 0x80, scripts: [.p2pkh, .p2shP2wpkh, .p2wpkh, .p2tr], testnet: false),
        .init(
            coin: "btc", network: "test", slip44: 1, p2pkhPrefix: [0x6F], p2shPrefix: [0xC4], bech32HRP: "tb", cashAddrPrefix: nil,
            wifPrefix: 0xEF, scripts: [.p2pkh, .p2shP2wpkh, .p2wpkh, .p2tr], testnet: true),
        .init(
            coin: "btc", network: "signet", slip44: 1, p2pkhPrefix: [0x6F], p2shPrefix: [0xC4], bech32HRP: "tb", cashAddrPrefix: nil,
            wifPrefix: 0xEF, scripts: [.p2pkh, .p2shP2wpkh, .p2wpkh, .p2tr], testnet: true),
        .init(
            coin: "btc", network: "regtest", slip44: 1, p2pkhPrefix: [0x6F], p2shPrefix: [0xC4], bech32HRP: "bcrt", cashAddrPrefix: nil,
            wifPrefix: 0xEF, scripts: [.p2pkh, .p2shP2wpkh, .p2wpkh, .p2tr], testnet: true),
        .init(
            coin: "ltc", network: "main", slip44: 2, p2pkhPrefix: [0x30], p2shPrefix: [0x32], bech32HRP: "ltc", cashAddrPrefix: nil,
            wifPrefix: 0xB0, scripts: [.p2pkh, .p2shP2wpkh, .p2wpkh], testnet: false),
        .init(
            coin: "ltc", network: "test", slip44: 1, p2pkhPrefix: [0x6F], p2shPrefix: [0x3A], bech32HRP: "tltc", cashAddrPrefix: nil,
            wifPrefix: 0xEF, scripts: [.p2pkh, .p2shP2wpkh, .p2wpkh], testnet: true),
        .init(
            coin: "ltc", network: "regtest", slip44: 1, p2pkhPrefix: [0x6F], p2shPrefix: [0x3A], bech32HRP: "rltc", cashAddrPrefix: nil,
            wifPrefix: 0xEF, scripts: [.p2pkh, .p2shP2wpkh, .p2wpkh], testnet: true),
        .init(
            coin: "doge", network: "main", slip44: 3, p2pkhPrefix: [0x1E], p2shPrefix: [0x16], bech32HRP: nil, cashAddrPrefix: nil,
            wifPrefix: 0x9E, scripts: [.p2pkh], testnet: false),
        .init(
            coin: "bch", network: "main", slip44: 145, p2pkhPrefix: [0x00], p2shPrefix: [0x05], bech32HRP: nil,
            cashAddrPrefix: "bitcoincash",
            wifPrefix: 0x80, scripts: [.p2pkh], testnet: false),
        .init(
            coin: "zec", network: "main", slip44: 133, p2pkhPrefix: [0x1C, 0xB8], p2shPrefix: [0x1C, 0xBD], bech32HRP: nil,
            cashAddrPrefix: nil,
            wifPrefix: 0x80, scripts: [.p2pkh], testnet: false),
        .init(
            coin: "eth", network: "main", slip44: 60, p2pkhPrefix: [], p2shPrefix: [], bech32HRP: nil, cashAddrPrefix: nil,
            wifPrefix: 0x80, scripts: [.ethereum], testnet: false),
    ]

    public static func find(_ chain: Chain, network: String) -> CoinNetwork? { find(coin: chain.rawValue, network: network) }

    public static func find(coin: String, network: String) -> CoinNetwork? {
        all.first { $0.coin == coin && $0.network == network }
    }

    public static var coins: [String] { all.reduce(into: [String]()) { if !$0.contains($1.coin) { $0.append($1.coin) } } }

    /// The address of a public key in a script kind, and the key committed to (for P2TR the
    /// BIP86 output key; otherwise nil).
    public func address(for key: Secp256k1.PublicKey, script: ScriptKind) throws(DerivationError) -> (address: String, outputKey: [UInt8]?)
    {
        guard scripts.contains(script) else { throw .unsupported("\(coin) has no \(script.rawValue) addresses") }
        switch script {
        case .p2pkh:
            let hash = Hash.hash160(key.compressed)
            if let cashAddrPrefix { return (CashAddr.encode(prefix: cashAddrPrefix, type: 0, hash: hash), nil) }
            return (Base58.encodeCheck(p2pkhPrefix + hash), nil)
        case .p2shP2wpkh:
            let redeem = [0x00, 0x14] + Hash.hash160(key.compressed)
            return (Base58.encodeCheck(p2shPrefix + Hash.hash160(redeem)), nil)
        case .p2wpkh:
            return (SegwitAddress.encode(hrp: bech32HRP!, version: 0, program: Hash.hash160(key.compressed)), nil)
        case .p2tr:
            do {
                let output = try key.taprootOutputKey()
                return (SegwitAddress.encode(hrp: bech32HRP!, version: 1, program: output), output)
            } catch { throw .unsupported("taproot tweak failed") }
        case .ethereum:
            let hash = Keccak256.hash(key.uncompressed.dropFirst())
            return (EIP55.encode(Array(hash.suffix(20))), nil)
        }
    }

    /// The legacy (Base58) form of a CashAddr address, for Bitcoin Cash.
    public func legacyAddress(for key: Secp256k1.PublicKey) -> String {
        Base58.encodeCheck(p2pkhPrefix + Hash.hash160(key.compressed))
    }

    /// Wallet Import Format for a compressed-key private key.
    public func wif(_ privateKey: SecureBytes) -> String {
        var raw = [wifPrefix] + privateKey.bytes + [0x01]
        defer { SecureBytes.wipe(&raw) }
        return Base58.encodeCheck(raw)
    }
}

/// Bitcoin Core output descriptors (BIP380-386) and their checksum.
public enum Descriptor {
    private static let inputCharset = Array(
        "0123456789()[],'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#\"\\ ".utf8)
    private static let checksumCharset = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l".utf8)

    /// `text#checksum`; nil if the text has a character descriptors do not allow.
    public static func withChecksum(_ text: String) -> String? {
        let gen: [UInt64] = [0xF5_DEE5_1989, 0xA9_FDCA_3312, 0x1B_AB10_E32D, 0x37_06B1_677A, 0x64_4D62_6FFD]
        var symbols = [UInt64]()
        var groups = [UInt64]()
        for c in text.utf8 {
            guard let v = inputCharset.firstIndex(of: c) else { return nil }
            symbols.append(UInt64(v & 31))
            groups.append(UInt64(v >> 5))
            if groups.count == 3 { symbols.append(groups[0] * 9 + groups[1] * 3 + groups[2]); groups = [] }
        }
        if groups.count == 1 { symbols.append(groups[0]) } else if groups.count == 2 { symbols.append(groups[0] * 3 + groups[1]) }
        symbols += [UInt64](repeating: 0, count: 8)
        var chk: UInt64 = 1
        for value in symbols {
            let top = chk >> 35
            chk = (chk & 0x7_FFFF_FFFF) << 5 ^ value
            for i in 0..<5 where (top >> UInt64(i)) & 1 == 1 { chk ^= gen[i] }
        }
        chk ^= 1
        let sum = (0..<8).map { checksumCharset[Int((chk >> (5 * (7 - UInt64($0)))) & 31)] }
        return text + "#" + String(decoding: sum, as: UTF8.self)
    }

    /// A descriptor without its `#checksum`, trimmed; nil when it has one that is wrong.
    public static func strippingChecksum(_ given: String) -> String? {
        let text = given.trimmingCharacters(in: [" ", "\t", "\n", "\r"])
        guard let hash = text.lastIndex(of: "#") else { return text }
        let body = String(text[..<hash])
        return withChecksum(body) == text ? body : nil
    }

    /// A key expression's origin, `[fingerprint/path]`, and the text after it (nil when the
    /// expression has no origin). Throws the reason an origin is malformed.
    public static func origin(_ text: Substring) throws(OriginError) -> (fingerprint: [UInt8], path: DerivationPath, rest: Substring)? {
        guard text.first == "[" else { return nil }
        guard let close = text.firstIndex(of: "]") else { throw .noClose }
        let parts = text[text.index(after: text.startIndex)..<close].split(separator: "/", omittingEmptySubsequences: false)
        guard let fingerprint = try? Hex.decode(String(parts[0])), fingerprint.count == 4 else { throw .fingerprint }
        let path: DerivationPath
        do { path = try DerivationPath(parsing: (["m"] + parts.dropFirst().map(String.init)).joined(separator: "/")) } catch {
            throw .path(error)
        }
        return (fingerprint, path, text[text.index(after: close)...])
    }

    /// What is wrong with a key origin.
    public enum OriginError: Error {
        case noClose, fingerprint
        case path(DerivationError)
    }

    /// The descriptor of one chain (`change` 0 or 1) of an account, e.g.
    /// wpkh([d34db33f/84'/0'/0']xpub…/0/*)#checksum.
    public static func account(
        script: ScriptKind, masterFingerprint: [UInt8], accountPath: DerivationPath,
        accountXpub: String, change: UInt32
    ) -> String? {
        let origin = "[" + Hex.encode(masterFingerprint) + accountPath.description.dropFirst() + "]"
        let key = origin + accountXpub + "/\(change)/*"
        let body: String
        switch script {
        case .p2pkh: body = "pkh(\(key))"
        case .p2shP2wpkh: body = "sh(wpkh(\(key)))"
        case .p2wpkh: body = "wpkh(\(key))"
        case .p2tr: body = "tr(\(key))"
        case .ethereum: return nil
        }
        return withChecksum(body)
    }
}
