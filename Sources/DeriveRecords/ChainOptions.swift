import ArgumentParser
import Monero
import WalletCore
import WalletKeyStore
import WalletKeys
import Zcash
import WalletRecords
import KeySources
import WalletCardCLI

/// Coin, network, script and path choices: derive's subcommands share them.
public struct ChainOptions: ParsableArguments {
    @Option(
        help: "Coin: btc, ltc, doge, bch, zec, eth, xmr (default btc; xmr when the input is a Monero seed or keys).",
        completion: .list(["btc", "ltc", "doge", "bch", "zec", "eth", "xmr"]))
    public var coin: String?

    @Option(
        help: "Network: main (the default), test, regtest, signet (btc); stagenet (xmr). mainnet and testnet are main and test.",
        completion: .list(["main", "test", "regtest", "signet", "stagenet"]))
    public var network: String?

    @Option(
        help:
            "BIP43 purpose: 44 (P2PKH), 49 (P2SH-P2WPKH), 84 (P2WPKH) or 86 (P2TR); 48 (a multisig account's key, derive account only, with --script p2wsh or p2sh-p2wsh); 352 (BIP352 silent payments: sp1 addresses, from a seed).",
        completion: .list(["44", "49", "84", "86", "48", "352"]))
    public var purpose: UInt32?

    @Option(
        help:
            "Script kind instead of a purpose: p2pkh, p2sh-p2wpkh, p2wpkh, p2tr; with --purpose 48, p2wsh or p2sh-p2wsh (BIP48's script types 2' and 1').",
        completion: .list(["p2pkh", "p2sh-p2wpkh", "p2wpkh", "p2tr", "p2wsh", "p2sh-p2wsh"]))
    public var script: String?

    @Option(help: "SLIP-44 coin type to use in preset paths instead of the coin's own (e.g. another EVM chain).")
    public var coinType: UInt32?

    @Option(help: "Account number (Monero: the major subaddress index).")
    public var account: UInt32 = 0

    @Option(
        help: ArgumentHelp(
            "Which extended key's place in the tree an imported xpub/xprv has, e.g. m/84h/0h/0h (default: the record's account_path, else unknown).",
            valueName: "path"))
    public var accountPath: String?

    @Flag(
        help:
            "Also write private keys (hex, and WIF for Bitcoin-like coins; Monero: spend and view keys; Zcash Sapling: the extended spending key)."
    )
    public var `private` = false

    @Option(
        help: ArgumentHelp(
            "Zcash value pool: transparent (t1 addresses, the default), sapling (ZIP-32 keys, zs1 and unified addresses with Orchard, Sapling and transparent receivers) or orchard (unified addresses with the Orchard receiver alone).",
            valueName: "pool"), completion: .list(["transparent", "sapling", "orchard"]))
    public var pool: String?

    @Flag(
        name: .customLong("use-qsk"),
        help:
            "Zcash Orchard keys by ZIP 2005's use_qsk = true rule (a quantum-secure rivk, as FROST accounts use): other incoming viewing keys and addresses than the standard rule. From a seed only; a record's \"use_qsk\": true does the same."
    )
    public var useQsk = false

    public init() {}

    public func validate() throws {
        if let pool {
            guard ["transparent", "sapling", "orchard"].contains(pool) else {
                throw ValidationError("--pool must be transparent, sapling or orchard")
            }
            guard coin == "zec" else { throw ValidationError("--pool is for --coin zec") }
            if useQsk, pool == "transparent" {
                throw ValidationError("--use-qsk picks the Orchard keys: give it with --pool orchard or sapling")
            }
            if pool != "transparent" {
                guard purpose == nil, script == nil, coinType == nil, accountPath == nil else {
                    throw ValidationError(
                        "--pool \(pool) takes no --purpose, --script, --coin-type or --account-path (ZIP-32 uses m/32'/133'/account')")
                }
                guard ["main", "test"].contains(NetworkName.canonical(network ?? "main")) else {
                    throw ValidationError("Zcash networks are main and test")
                }
                return
            }
        }
        if useQsk, pool == nil {
            throw ValidationError("--use-qsk picks the Orchard keys: give it with --coin zec --pool orchard or sapling")
        }
        if let coin, coin != "xmr", !CoinNetwork.coins.contains(coin) {
            throw ValidationError("unknown coin '\(coin)'; known: \(CoinNetwork.coins.joined(separator: ", ")), xmr")
        }
        if purpose == 352 {
            guard script == nil, pool == nil, accountPath == nil else {
                throw ValidationError("--purpose 352 (silent payments) takes no --script, --pool or --account-path")
            }
            guard coin == nil || coin == "btc" || coin == "ltc" else {
                throw ValidationError("silent payments (BIP352) are Bitcoin's (--coin ltc on its test networks, for tests)")
            }
        } else if purpose == 48 {
            guard script.flatMap(MultisigScript.init(rawValue:)) != nil else {
                throw ValidationError("--purpose 48 (BIP48 multisig) takes --script p2wsh (script type 2') or p2sh-p2wsh (1')")
            }
        } else {
            if let purpose, ScriptKind.forPurpose(purpose) == nil {
                throw ValidationError("--purpose must be 44, 49, 84, 86, or 48 with --script p2wsh or p2sh-p2wsh")
            }
            if let script, ScriptKind(rawValue: script) == nil || script == "ethereum" {
                if MultisigScript(rawValue: script) != nil {
                    throw ValidationError("--script \(script) is a BIP48 multisig account's: give --purpose 48 with it")
                }
                throw ValidationError("--script must be p2pkh, p2sh-p2wpkh, p2wpkh or p2tr")
            }
            if purpose != nil && script != nil {
                throw ValidationError("give --purpose or --script, not both (both only for --purpose 48)")
            }
        }
        if let accountPath {
            do { _ = try DerivationPath(parsing: accountPath) } catch { throw ValidationError(error.message) }
        }
        guard account < DerivationPath.hardened else { throw ValidationError("--account must be below 2^31") }
        if let coinType, coinType >= DerivationPath.hardened { throw ValidationError("--coin-type must be below 2^31") }
        if let network, coin == nil || coin == "xmr" {
            let known = Set(CoinNetwork.all.map(\.network)).union(["stagenet"])
            guard known.contains(NetworkName.canonical(network)) else { throw ValidationError("unknown network '\(network)'") }
        }
        if coin == "xmr" || coin == nil { return }
        let network = NetworkName.canonical(self.network ?? "main")
        guard let chain = CoinNetwork.find(coin: coin!, network: network) else {
            throw ValidationError(CoinNetwork.noNetworkMessage(coin: coin!, network: network))
        }
        if let kind = requestedScript, !chain.scripts.contains(kind) {
            throw ValidationError(
                "\(coin!) has no \(kind.rawValue) addresses; it has \(chain.scripts.map(\.rawValue).joined(separator: ", "))")
        }
    }

    public var requestedScript: ScriptKind? {
        if purpose == 48 || purpose == 352 { return nil }
        if let script { return ScriptKind(rawValue: script) }
        return purpose.flatMap(ScriptKind.forPurpose)
    }

    /// --purpose 48's script: a BIP48 multisig account.
    public var multisigScript: MultisigScript? { purpose == 48 ? script.flatMap(MultisigScript.init(rawValue:)) : nil }

    /// The run's key inputs, the BIP39 passphrase read already: a reader for key records and,
    /// with --wallet or --key-file/--key-fd, the key that replaces them, and the record the run
    /// starts from (a key-store entry's birthdays).
    public func keyInputs(
        sharedPassphrase shared: SecureBytes?, _ keys: KeySourceOptions
    ) throws -> (records: RecordKeys, key: KeySource?, walletRecord: JSONObject) {
        let records = recordKeys(sharedPassphrase: shared)
        let run = try keys.runKey(reader: records, bip39Passphrase: shared, promptOnTerminal: false)
        var start = JSONObject()
        if !run.birthdays.isEmpty { start["birthdays"] = .object(KeyStoreRecords.birthdayObject(run.birthdays)) }
        return (records, run.source, start)
    }

    /// The reader of key records for these options.
    public func recordKeys(sharedPassphrase shared: SecureBytes?) -> RecordKeys {
        RecordKeys(coin: coin, accountPath: accountPath, sharedPassphrase: shared, moneroNetwork: try? moneroNetwork())
    }

    /// The plan for a BIP32 key. `claims`: what the record says of its extended key (coin,
    /// network, script), which options may repeat but not contradict.
    public func plan(_ key: ExtendedKey, fromSeed: Bool, claims: KeyRecordClaims = KeyRecordClaims()) throws -> AddressPlan {
        if purpose == 48 {
            throw DerivationError.unsupported(
                "--purpose 48 is a multisig account: derive account exports its key; its addresses need every cosigner's key")
        }
        if coin == "xmr" {
            throw DerivationError.unsupported("a BIP32 key gives no Monero keys; give a Monero seed or keys for --coin xmr")
        }
        let coin =
            try KeyRecordClaims.resolve("coin", record: claims.coin, option: coin, written: { "--coin \($0)" }, shown: { $0 }) ?? "btc"
        let network = try KeyRecordClaims.resolve(
            "network", record: claims.network.map(NetworkName.canonical), option: network.map(NetworkName.canonical),
            written: { "--network \($0)" }, shown: { $0 })
        let requested = try KeyRecordClaims.resolve(
            "script", record: claims.script, option: requestedScript,
            written: { purpose != nil ? "--purpose \($0.purpose)" : "--script \($0.rawValue)" },
            shown: \.rawValue)
        return try AddressPlan(coin: coin, network: network, script: requested, coinType: coinType, key: key, fromSeed: fromSeed)
    }

    public func moneroNetwork() throws -> MoneroNetwork {
        switch NetworkName.canonical(network ?? "main") {
        case "main": return .mainnet
        case "test": return .testnet
        case "stagenet": return .stagenet
        case let other: throw DerivationError.unsupported("Monero has no network '\(other)'; use main, test or stagenet")
        }
    }
}

/// "pool" is Zcash's own word for where value lives (transparent, Sapling, Orchard), so the
/// flag names what the user picks without overloading --script, whose values are Bitcoin
/// script kinds.
extension ChainOptions {
    /// Whether this record is handled by the ZIP-32 code: --pool sapling or orchard, or a Zcash viewing key in the record.
    public func isSapling(_ record: JSONObject) -> Bool {
        shieldedPool != nil || ZcashAccountKeys.hasViewingKey(record)
    }

    /// --pool sapling or orchard.
    public var shieldedPool: String? { pool == "sapling" || pool == "orchard" ? pool : nil }

    public func zcashNetwork() throws -> ZcashNetwork {
        switch NetworkName.canonical(network ?? "main") {
        case "main": return .main
        case "test": return .test
        case let other: throw DerivationError.unsupported("Zcash has no network '\(other)'; use main or test")
        }
    }

    /// The account's keys from a record: a BIP39 phrase or seed, or a viewing key.
    public func zcashKeys(
        _ record: JSONObject, _ keys: RecordKeys, material: ZcashKeyMaterial?, out: inout JSONObject
    ) throws -> ZcashAccountKeys {
        if let coin, coin != "zec" { throw DerivationError.unsupported("Zcash Sapling keys are for --coin zec, not \(coin)") }
        let network = try zcashNetwork()
        let fromRecord = try ZcashAccountKeys.rivkRule(record)
        if useQsk, record[ZcashAccountKeys.useQskField] != nil, fromRecord != .quantumSecure {
            throw DerivationError.unsupported("the record says \"use_qsk\": false and --use-qsk says true: drop one")
        }
        let rule = useQsk ? .quantumSecure : fromRecord
        if rule == .quantumSecure {
            let fromSeed = material.map { if case .seed = $0 { true } else { false } } ?? !ZcashAccountKeys.hasViewingKey(record)
            guard fromSeed else { throw ZcashAccountKeys.useQskWithViewingKey }
            out[ZcashAccountKeys.useQskField] = .bool(true)
        }
        if let material { return try ZcashAccountKeys(material: material, network: network, account: account, orchardRivk: rule) }
        if ZcashAccountKeys.hasViewingKey(record) { return try ZcashAccountKeys(viewingKeyOf: record, network: network) }
        let seed = try keys.seed(record, out: &out)
        return try ZcashAccountKeys(seed: seed, network: network, account: account, orchardRivk: rule)
    }

    /// The fields every Sapling record starts with.
    public func saplingFields(_ keys: ZcashAccountKeys, record: JSONObject, into out: inout JSONObject) {
        out["coin"] = .string("zec")
        out["network"] = .string(keys.network.rawValue)
        out["pool"] = .string(pool == "orchard" ? "orchard" : "sapling")
        if let account = keys.account {
            out["account"] = .number(String(account))
            out["path"] = .string(ZcashAccountKeys.path(keys.network, account: account))
        } else if let account = record["account"] {
            out["account"] = account  // as the viewing key's account record said
        }
    }
}
