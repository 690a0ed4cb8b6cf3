import ArgumentParser
import Bitcoin
import KeySources
import WalletCardCLI
import WalletCore
import WalletKeys
import WalletRecords

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
        if try validateZcashPool() { return }
        if let coin, Chain(code: coin) == nil {
            throw ValidationError("unknown coin '\(coin)'; known: \(CoinNetwork.coins.joined(separator: ", ")), xmr")
        }
        if purpose == 352 {
            guard script == nil, pool == nil, accountPath == nil else {
                throw ValidationError("--purpose 352 (silent payments) takes no --script, --pool or --account-path")
            }
            guard coin == nil || BitcoinFamilies.all.contains(where: { $0.coin == coin }) else {
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
            if let script, ScriptKind(rawValue: script).map({ $0 == .ethereum }) ?? true {
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
        if let network, coin == nil || Chain(code: coin) == .monero {
            let known = Set(CoinNetwork.all.map(\.network)).union(["stagenet"])
            guard known.contains(NetworkName.canonical(network)) else { throw ValidationError("unknown network '\(network)'") }
        }
        if coin == nil || Chain(code: coin) == .monero { return }
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
        if Chain(code: coin) == .monero {
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
}
