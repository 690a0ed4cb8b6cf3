import Monero
import WalletCore
import WalletKeyStore
import WalletKeys
import Zcash
import WalletRecords
import KeySources
import WalletCardCLI
import WalletCrypto

/// `derive`'s address records: for each key record, the addresses the options ask for — BIP32
/// (from a seed, an extended key or a device), Monero subaddresses, Zcash Sapling and Orchard.
public struct AddressRequest {
    public var chainOptions: ChainOptions
    /// 0 receive, 1 change.
    public var chains: [UInt32]
    public var index: UInt32
    public var count: UInt32
    /// A BIP32 path instead of the presets; its last step may be a range.
    public var path: String?
    /// Monero: the integrated address's payment id (hex).
    public var paymentId: String?
    /// Silent payments: the labels to write addresses for.
    public var labels: [UInt32]

    public init(
        chainOptions: ChainOptions, chains: [UInt32] = [0], index: UInt32 = 0, count: UInt32 = 1, path: String? = nil,
        paymentId: String? = nil, labels: [UInt32] = []
    ) {
        self.chainOptions = chainOptions
        self.chains = chains
        self.index = index
        self.count = count
        self.path = path
        self.paymentId = paymentId
        self.labels = labels
    }

    /// The address records of one input record, from its key or the run's (`keys.source`: a
    /// key-store entry's, or a card's stand-in master, with the card as `keys.card`).
    public func addresses(_ record: JSONObject, keys: DeriveKeys, emit: (JSONObject) throws(CLIError) -> Void) throws {
        if SilentPaymentRequest.applies(chainOptions, record) {
            return try SilentPaymentRequest(chainOptions: chainOptions, labels: labels).addresses(record, keys: keys, emit: emit)
        }
        guard labels.isEmpty else { throw DerivationError.unsupported("--label is for silent payment addresses (--purpose 352)") }
        let device = keys.device
        if device == nil, case .zcash(let material)? = keys.source {
            return try saplingAddresses(record, keys.records, material: material, emit: emit)
        }
        if keys.source == nil, device == nil, chainOptions.isSapling(record) {
            return try saplingAddresses(record, keys.records, emit: emit)
        }
        if let pool = chainOptions.shieldedPool {
            throw DerivationError.unsupported(
                "--pool \(pool) needs a BIP39 phrase, a seed or a Zcash viewing key in the record, or a zec key-store entry (not a card)")
        }
        var base = record
        let source = try keys.key(of: record, out: &base)
        // An address record carries its own path and keys, not the account record it
        // came from (its xpubs, descriptors, fingerprints, …): those fields go.
        base = AccountFields.removed(from: PhraseFields.removed(from: SecretFields.removed(from: base)))
        switch source {
        case .monero(let wallet):
            try moneroAddresses(wallet, base: base, record: record, emit: emit)
        case .bip32(let key, let origin, let fromSeed):
            try bip32Addresses(
                key, origin: origin, fromSeed: fromSeed, claims: KeyRecordClaims(record: record), device: device, base: base, emit: emit)
        case .single:
            throw DerivationError.unsupported("a lone private key has no addresses to derive; give a seed or an extended key")
        case .zcash:
            throw DerivationError.unsupported("Zcash keys from a card are not supported")
        }
    }

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

    func moneroAddresses(
        _ wallet: MoneroKeys, base: JSONObject, record: JSONObject,
        emit: (JSONObject) throws(CLIError) -> Void
    ) throws {
        if let coin = chainOptions.coin, coin != "xmr" {
            throw DerivationError.unsupported("the input is a Monero seed or keys; use --coin xmr")
        }
        guard path == nil else {
            throw DerivationError.unsupported("Monero has no BIP32 paths; use --account (major) and --index/--count (minor)")
        }
        let network = try chainOptions.moneroNetwork()
        let paymentID = try paymentId ?? base.optionalString("payment_id")
        for minor in index..<(index + count) {
            let sub = try wallet.subaddress(major: chainOptions.account, minor: minor, network)
            var out = base
            out["type"] = .string("address")
            out["coin"] = .string("xmr")
            out["network"] = .string(network.name)
            out["major"] = .number(String(chainOptions.account))
            out["minor"] = .number(String(minor))
            out["address"] = .string(sub.address)
            out["public_spend_key"] = .string(Hex.encode(sub.spendPublic))
            out["public_view_key"] = .string(Hex.encode(sub.viewPublic))
            if let paymentID, chainOptions.account == 0, minor == 0 {
                out["payment_id"] = .string(paymentID)
                out["integrated_address"] = .string(try wallet.integratedAddress(network, paymentID: try Hex.decode(paymentID)))
            }
            try emit(out)
        }
    }

    // MARK: Zcash

    /// Receive addresses at the first `count` valid diversifier indexes from --index (or the
    /// record's "diversifier_index", up to 2^88 − 1); with --change 1 or both, the change address.
    func saplingAddresses(
        _ record: JSONObject, _ keys: RecordKeys, material: ZcashKeyMaterial? = nil, emit: (JSONObject) throws(CLIError) -> Void
    ) throws {
        guard path == nil else {
            throw DerivationError.unsupported("Sapling addresses have no BIP32 path; use --account and --index/--count")
        }
        var base = record
        let zcash = try chainOptions.zcashKeys(record, keys, material: material, out: &base)
        base = AccountFields.removed(from: PhraseFields.removed(from: SecretFields.removed(from: base)))
        var start = DiversifierIndex(UInt64(index))
        if let text = try record.optionalString("diversifier_index") {
            guard let given = DiversifierIndex(decimal: text) else { throw ZcashKeyError.diversifierIndexOutOfRange(text) }
            start = given
        }
        if chainOptions.pool == "orchard" { return try orchardAddresses(zcash, record: record, base: base, start: start, emit: emit) }
        for chain in chains {
            if chain == 1 {
                let (j, address) = try zcash.changeAddress()
                var out = base
                chainOptions.saplingFields(zcash, record: record, into: &out)
                out["type"] = .string("address")
                out["change"] = .number("1")
                out["diversifier_index"] = .string(j.description)
                out["address"] = .string(address)
                try emit(out)
                continue
            }
            var next: DiversifierIndex? = start
            for _ in 0..<count {
                guard let from = next else { throw ZcashKeyError.noValidDiversifier }
                let found = try zcash.address(from: from)
                // An Orchard-only viewing key has no zs1 addresses (its change chain says so too).
                guard let sapling = found.sapling else { throw ZcashKeyError.missingSaplingItem("the viewing key") }
                var out = base
                chainOptions.saplingFields(zcash, record: record, into: &out)
                out["type"] = .string("address")
                out["change"] = .number("0")
                out["diversifier_index"] = .string(found.index.description)
                out["address"] = .string(sapling)
                out["unified_address"] = .string(found.unified)
                if let t = found.transparent { out["transparent_address"] = .string(t) }
                try emit(out)
                next = found.index.next()
            }
        }
    }

    /// --pool orchard: `count` addresses from the start index on each chain (every Orchard
    /// index is valid), each as a unified address with the Orchard receiver alone.
    func orchardAddresses(
        _ zcash: ZcashAccountKeys, record: JSONObject, base: JSONObject, start: DiversifierIndex,
        emit: (JSONObject) throws(CLIError) -> Void
    ) throws {
        for chain in chains {
            var next: DiversifierIndex? = start
            for _ in 0..<count {
                guard let j = next else { throw ZcashKeyError.diversifierIndexOutOfRange("2^88") }
                let found = try zcash.orchardAddress(at: j, change: chain == 1)
                var out = base
                chainOptions.saplingFields(zcash, record: record, into: &out)
                out["type"] = .string("address")
                out["change"] = .number(String(chain))
                out["diversifier_index"] = .string(j.description)
                out["address"] = .string(found.unified)
                out["orchard_receiver"] = .string(Hex.encode(found.receiver))
                try emit(out)
                next = j.next()
            }
        }
    }
}
