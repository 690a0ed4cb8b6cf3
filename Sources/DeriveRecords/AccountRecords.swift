import Monero
import WalletUR
import WalletCore
import WalletKeyStore
import WalletKeys
import Zcash
import WalletRecords
import KeySources
import WalletCardCLI

/// `derive account`'s record for each key record: an account's extended public key,
/// fingerprints and descriptors (BIP32), primary address and keys (Monero), or viewing keys
/// and default addresses (Zcash Sapling and Orchard).
public struct AccountRequest {
    public var chainOptions: ChainOptions
    /// Monero: the private view key alone (a view-only wallet), not the spend key.
    public var viewOnly: Bool
    /// --ur: the account also as a UR text ("ur"), for a watch-only wallet to scan.
    public var ur: AccountURType?

    public init(chainOptions: ChainOptions, viewOnly: Bool = false, ur: AccountURType? = nil) {
        self.chainOptions = chainOptions
        self.viewOnly = viewOnly
        self.ur = ur
    }

    /// The account record of one input record, from its key or the key-store entry's
    /// (`keys.source`) that replaces it.
    public func account(_ record: JSONObject, keys: DeriveKeys) throws -> JSONObject {
        if SilentPaymentRequest.applies(chainOptions, record) {
            guard ur == nil else { throw DerivationError.unsupported("--ur has no silent payment account type") }
            return try SilentPaymentRequest(chainOptions: chainOptions).account(record, keys: keys, viewOnly: viewOnly)
        }
        if case .zcash(let material)? = keys.source { return try saplingAccount(record, keys.records, material: material) }
        if keys.source == nil, chainOptions.isSapling(record) { return try saplingAccount(record, keys.records) }
        if let pool = chainOptions.shieldedPool {
            throw DerivationError.unsupported(
                "--pool \(pool) needs a BIP39 phrase, a seed or a Zcash viewing key in the record, or a zec key-store entry")
        }
        var out = record
        let source = try keys.key(of: record, out: &out)
        out = PhraseFields.removed(from: SecretFields.removed(from: out))
        out["type"] = .string("account")
        if ur != nil {
            guard case .bip32 = source, chainOptions.multisigScript == nil else {
                throw DerivationError.unsupported(
                    "--ur exports a BIP32 account of a single-key script (Monero, Zcash and --purpose 48 have none)")
            }
        }
        switch source {
        case .monero(let wallet):
            if let coin = chainOptions.coin, coin != "xmr" {
                throw DerivationError.unsupported("the input is a Monero seed or keys; use --coin xmr")
            }
            let network = try chainOptions.moneroNetwork()
            out["coin"] = .string("xmr")
            out["network"] = .string(network.name)
            out["primary_address"] = .string(wallet.primaryAddress(network))
            out["public_spend_key"] = .string(Hex.encode(wallet.spendPublic))
            out["public_view_key"] = .string(Hex.encode(wallet.viewPublic))
            if viewOnly || chainOptions.private { out["private_view_key"] = .string(wallet.viewSecret.hex) }
            if chainOptions.private, let spend = wallet.spendSecret { out["private_spend_key"] = .string(spend.hex) }
        case .bip32(let key, _, let fromSeed) where chainOptions.multisigScript != nil:
            try multisigAccount(key, fromSeed: fromSeed, script: chainOptions.multisigScript!, into: &out)
        case .bip32(let key, let origin, let fromSeed):
            let plan = try chainOptions.plan(key, fromSeed: fromSeed, claims: KeyRecordClaims(record: record))
            let path = fromSeed ? plan.accountPath(chainOptions.account) : (origin ?? DerivationPath())
            let account = fromSeed ? try key.derive(path.components) : key
            let standard: ExtendedKeyVersion = plan.chain.testnet ? .tpub : .xpub
            let xpub = account.neutered.serialized(version: standard)
            out["coin"] = .string(plan.chain.coin)
            out["network"] = .string(plan.chain.network)
            out["script"] = .string(plan.script.rawValue)
            if fromSeed || origin != nil { out["path"] = .string(path.description) }
            out["xpub"] = .string(xpub)
            let slip = ExtendedKeyVersion.slip132(for: plan.script, testnet: plan.chain.testnet)
            if slip != standard { out[slip.publicPrefix] = .string(account.neutered.serialized(version: slip)) }
            if fromSeed { out["master_fingerprint"] = .string(Hex.encode(key.fingerprint)) }
            out["fingerprint"] = .string(Hex.encode(account.fingerprint))
            out["parent_fingerprint"] = .string(Hex.encode(account.parentFingerprint))
            out["depth"] = .number(String(account.depth))
            out["child_number"] = .string(DerivationPath.format(account.childNumber))
            if let ur {
                out["ur"] = .string(
                    try accountUR(
                        ur, master: fromSeed ? key : nil, account: account, path: path, plan: plan, placed: fromSeed || origin != nil))
            }
            if fromSeed,
                let receive = Descriptor.account(
                    script: plan.script, masterFingerprint: key.fingerprint, accountPath: path, accountXpub: xpub, change: 0),
                let change = Descriptor.account(
                    script: plan.script, masterFingerprint: key.fingerprint, accountPath: path, accountXpub: xpub, change: 1)
            {
                out["descriptor"] = .string(receive)
                out["change_descriptor"] = .string(change)
            }
            if chainOptions.private {
                guard account.isPrivate else {
                    throw DerivationError.unsupported("--private needs a private key, and the input is watch-only")
                }
                out["xprv"] = .string(account.serialized(version: standard))
            }
        case .single:
            throw DerivationError.unsupported("a lone private key has no account; give a seed or an extended key")
        case .zcash:
            throw DerivationError.unsupported("unreachable: Zcash entries take the Sapling branch")
        }
        return out
    }

    /// A BIP48 multisig account's key (m/48'/coin'/account'/script'), for the cosigners: its
    /// xpub, SLIP-132 form, and `key_origin` `[fingerprint/48'/…]xpub`, with `descriptor_key`
    /// (the same with `/<0;1>/*`) for a wsh(sortedmulti(…)) descriptor.
    func multisigAccount(_ key: ExtendedKey, fromSeed: Bool, script: MultisigScript, into out: inout JSONObject) throws {
        guard fromSeed else { throw DerivationError.unsupported("--purpose 48 derives from the seed (a phrase, a seed or a master xprv)") }
        let coin = chainOptions.coin ?? "btc", networkName = chainOptions.network ?? "main"
        guard let chain = CoinNetwork.find(coin: coin, network: NetworkName.canonical(networkName)),
            chain.scripts.contains(.p2wpkh)
        else {
            throw DerivationError.unsupported(
                "--purpose 48 is for a coin with segwit multisig (btc, ltc); \(coin) on \(networkName) has none")
        }
        let path = script.accountPath(coinType: chainOptions.coinType ?? chain.slip44, account: chainOptions.account)
        let account = try key.derive(path.components)
        let xpub = account.neutered.serialized(version: chain.testnet ? .tpub : .xpub)
        out["coin"] = .string(chain.coin)
        out["network"] = .string(chain.network)
        out["script"] = .string(script.rawValue)
        out["purpose"] = .number("48")
        out["path"] = .string(path.description)
        out["xpub"] = .string(xpub)
        let slip = script.slip132(testnet: chain.testnet)
        out[slip.publicPrefix] = .string(account.neutered.serialized(version: slip))
        out["master_fingerprint"] = .string(Hex.encode(key.fingerprint))
        out["fingerprint"] = .string(Hex.encode(account.fingerprint))
        out["parent_fingerprint"] = .string(Hex.encode(account.parentFingerprint))
        out["depth"] = .number(String(account.depth))
        out["child_number"] = .string(DerivationPath.format(account.childNumber))
        let origin = MultisigScript.keyOrigin(masterFingerprint: key.fingerprint, path: path, xpub: xpub)
        out["key_origin"] = .string(origin)
        out["descriptor_key"] = .string(origin + "/<0;1>/*")
        if chainOptions.private {
            out["xprv"] = .string(account.serialized(version: chain.testnet ? .tpub : .xpub))
        }
    }

    /// The account record: viewing keys (ZIP-32, zcashd and ZIP-316 forms), the default and
    /// unified addresses; with --private the extended spending key.
    func saplingAccount(_ record: JSONObject, _ keys: RecordKeys, material: ZcashKeyMaterial? = nil) throws -> JSONObject {
        var out = record
        let zcash = try chainOptions.zcashKeys(record, keys, material: material, out: &out)
        out = PhraseFields.removed(from: SecretFields.removed(from: out))
        out["type"] = .string("account")
        chainOptions.saplingFields(zcash, record: record, into: &out)
        if let xfvk = zcash.extendedViewing { out["extended_full_viewing_key"] = .string(xfvk.encoded(zcash.network)) }
        // An Orchard-only viewing key has no Sapling keys, and so no zs1 default address.
        if let ivk = zcash.incoming { out["incoming_viewing_key"] = .string(ivk.encodedIVK(zcash.network)) }
        if let ufvk = zcash.unifiedFullViewingKey { out["ufvk"] = .string(ufvk) }
        out["uivk"] = .string(zcash.unifiedIncomingViewingKey)
        let first = try zcash.address(from: DiversifierIndex(0))
        out["default_diversifier_index"] = .string(first.index.description)
        if let zs = first.sapling { out["default_address"] = .string(zs) }
        out["unified_address"] = .string(first.unified)
        if let t = first.transparent { out["transparent_address"] = .string(t) }
        if chainOptions.private {
            guard let xsk = zcash.spending else {
                throw DerivationError.unsupported("--private needs the seed, and the input is a viewing key")
            }
            out["extended_spending_key"] = .string(String(decoding: xsk.encoded(zcash.network).bytes, as: UTF8.self))
        }
        return out
    }
}

/// The fields `derive account` writes about an account, dropped from address records made
/// from it; a user's own fields (an id, a label) pass through.
public enum AccountFields {
    public static let names: Set<String> = Set(ExtendedKeyVersion.all.flatMap { [$0.publicPrefix, $0.privatePrefix] }).union([
        "extended_key", "descriptor", "change_descriptor", "key_origin", "descriptor_key", "master_fingerprint", "fingerprint",
        "parent_fingerprint",
        "depth", "child_number", "account_path", "primary_address", "public_spend_key", "public_view_key", "birthdays",
        "used_receive", "next_receive_index", "used_change", "next_change_index", "account",
        "ufvk", "uivk", "extended_full_viewing_key", "incoming_viewing_key", "default_diversifier_index", "default_address",
        "unified_address", "transparent_address",
    ])

    public static func removed(from record: JSONObject) -> JSONObject {
        var out = record
        for key in record.keys where names.contains(key) { out[key] = nil }
        return out
    }
}

extension AccountRequest {
    /// The account as a UR of `type`; `master` when the account was derived from the seed
    /// (its fingerprint is the origin's source), `placed` when its path is known at all.
    func accountUR(
        _ type: AccountURType, master: ExtendedKey?, account: ExtendedKey, path: DerivationPath, plan: AddressPlan, placed: Bool
    ) throws -> String {
        switch type {
        case .cryptoAccount:
            guard let master else {
                throw DerivationError.unsupported("--ur crypto-account derives every script type from the seed: give a phrase or a seed")
            }
            return try AccountUR.account(master: master, chain: plan.chain, coinType: plan.coinType, account: chainOptions.account).ur()
                .text
        case .cryptoHDKey, .cryptoOutput:
            let receive = KeyPath(components: [.index(0, hardened: false), .wildcard(hardened: false)])
            let children = type == .cryptoOutput || plan.script == .ethereum ? receive : nil
            let key = AccountUR.hdkey(
                account.neutered, path: placed ? path : DerivationPath(), master: master?.fingerprint, chain: plan.chain, children: children
            )
            if type == .cryptoHDKey { return try key.ur().text }
            guard let output = AccountUR.output(plan.script, .hd(key)) else {
                throw DerivationError.unsupported("\(plan.chain.coin) accounts have no output descriptor: use --ur crypto-hdkey")
            }
            return try output.ur().text
        }
    }
}
