import Bitcoin
import KeySources
import WalletCardCLI
import WalletCore
import WalletCrypto
import WalletKeys
import WalletRecords
import WalletUR

/// The BIP32 coins' derivation (every chain of `CoinNetwork`: Bitcoin and its family,
/// Ethereum, Zcash's transparent pool): accounts with their xpubs and descriptors, BIP48
/// multisig accounts, and addresses from a seed, an extended key or a card.
enum BIP32Derive: DeriveChain {
    static func owns(_ source: KeySource) -> Bool {
        if case .bip32 = source { true } else { false }
    }

    static var hasAccountUR: Bool { true }

    static func account(_ request: AccountRequest, record: JSONObject, keys: DeriveKeys, read: ReadKey?) throws -> JSONObject {
        guard let read, case .bip32(let key, let origin, let fromSeed) = read.source else { preconditionFailure("not a BIP32 key") }
        var out = read.rest
        let chainOptions = request.chainOptions
        if let script = chainOptions.multisigScript {
            try request.multisigAccount(key, fromSeed: fromSeed, script: script, into: &out)
            return out
        }
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
        if let ur = request.ur {
            out["ur"] = .string(
                try request.accountUR(
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
        return out
    }

    static func addresses(
        _ request: AddressRequest, record: JSONObject, keys: DeriveKeys, read: ReadKey?,
        emit: (JSONObject) throws(CLIError) -> Void
    ) throws {
        guard let read, case .bip32(let key, let origin, let fromSeed) = read.source else { preconditionFailure("not a BIP32 key") }
        try request.bip32Addresses(
            key, origin: origin, fromSeed: fromSeed, claims: KeyRecordClaims(record: record), device: keys.device, base: read.rest,
            emit: emit)
    }
}

extension AccountRequest {
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
    /// The account as a UR of `type`; `master` when the account was derived from the seed
    /// (its fingerprint is the origin's source), `placed` when its path is known at all.
    func accountUR(
        _ type: AccountURType, master: ExtendedKey?, account: ExtendedKey, path: DerivationPath, plan: AddressPlan, placed: Bool
    ) throws -> String {
        switch type {
        case .zcashAccounts:
            throw DerivationError.unsupported("--ur zcash-accounts is a Zcash account's: give --coin zec --pool orchard or sapling")
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

extension AddressRequest {
    /// With a `device`, each address's public key comes from it (a card exports at the last
    /// hardened step); the addresses below it are derived here.
    func bip32Addresses(
        _ key: ExtendedKey, origin: DerivationPath?, fromSeed: Bool, claims: KeyRecordClaims,
        device: (any KeyDevice)?, base: JSONObject, emit: (JSONObject) throws(CLIError) -> Void
    ) throws {
        let plan = try chainOptions.plan(key, fromSeed: fromSeed, claims: claims)
        // Groups of (parent node, its path relative to `key`, the last steps to derive).
        var groups: [(relative: [UInt32], last: [UInt32])] = []
        if let path {
            let all = try DerivationPath.parseRange(path)
            groups = [(Array(all[0].components.dropLast()), all.compactMap(\.components.last))]
            if all[0].components.isEmpty { groups = [([], [])] }
        } else {
            let indexes = Array(index..<(index + count))
            let prefix = fromSeed ? plan.accountPath(chainOptions.account).components : []
            groups = chains.map { (prefix + [$0], indexes) }
        }
        for group in groups {
            // From a device each address's key comes from the device, which knows where it
            // may export; `key` is only a stand-in for its master.
            let parent = device == nil ? try key.derive(group.relative, base: origin ?? DerivationPath()) : key
            let steps: [UInt32?] = group.last.isEmpty ? [nil] : group.last.map { $0 }
            for step in steps {
                let relative = group.relative + (step.map { [$0] } ?? [])
                let shownPath =
                    origin.map { $0.appending(relative).description }
                    ?? relative.map(DerivationPath.format).joined(separator: "/")
                // The address needs the public key only (and the node's private key with --private).
                let node: ExtendedKey?
                let publicKey: Secp256k1.PublicKey
                if let device {
                    node = nil
                    publicKey = try device.publicKey(at: relative)
                } else if let step {
                    let result = Result { () throws(DerivationError) -> ExtendedKey in try parent.child(step, pathForErrors: shownPath) }
                    if case .failure(.invalidChild) = result, path == nil {
                        // In a preset range BIP32 says: skip to the next index. Say so in-stream.
                        try emit(
                            JSONObject([
                                "type": .string("skipped"), "path": .string(shownPath), "reason": .string("invalid child key (BIP32)"),
                            ]))
                        continue
                    }
                    node = try result.get()
                    publicKey = node!.publicKey
                } else {
                    node = parent
                    publicKey = parent.publicKey
                }
                var out = base
                out["type"] = .string("address")
                out["coin"] = .string(plan.chain.coin)
                out["network"] = .string(plan.chain.network)
                out["path"] = .string(shownPath)
                out["script"] = .string(plan.script.rawValue)
                let (address, outputKey) = try plan.chain.address(for: publicKey, script: plan.script)
                out["address"] = .string(address)
                if plan.chain.cashAddrPrefix != nil { out["legacy_address"] = .string(plan.chain.legacyAddress(for: publicKey)) }
                out["public_key"] = .string(Hex.encode(publicKey.compressed))
                if let outputKey { out["output_key"] = .string(Hex.encode(outputKey)) }
                if chainOptions.private {
                    // From a card: EXPORT KEY, which the card allows inside EIP-1581 only.
                    let secret = try device.map { try $0.privateKey(at: relative) } ?? node?.privateKey
                    guard let secret else {
                        throw DerivationError.unsupported("--private needs a private key, and the input is watch-only")
                    }
                    out["private_key"] = .string(secret.hex)
                    if plan.script != .ethereum { out["wif"] = .string(plan.chain.wif(secret)) }
                }
                try emit(out)
            }
        }
    }
}
