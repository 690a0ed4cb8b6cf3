import ArgumentParser
import KeySources
import WalletCore
import WalletKeyStore
import WalletKeys
import WalletRecords
import WalletUR
import Zcash

/// Zcash's shielded derivation (ZIP 32 Sapling and Orchard keys, ZIP 316 unified addresses):
/// from a BIP39 phrase or seed with --pool sapling or orchard, from a viewing key in the
/// record, or from a zec key-store entry. Zcash's transparent pool is a BIP32 coin.
enum ZcashDerive: DeriveChain {
    static func claims(_ record: JSONObject, keys: DeriveKeys, options: ChainOptions) -> Bool {
        material(keys) != nil || options.shieldedPool != nil || (keys.source == nil && options.isSapling(record))
    }

    /// The run's key when it is a zec key-store entry's.
    static func material(_ keys: DeriveKeys) -> ZcashKeyMaterial? { keys.source?.chainKey(ZcashKeyMaterial.self) }

    static func account(_ request: AccountRequest, record: JSONObject, keys: DeriveKeys, read: ReadKey?) throws -> JSONObject {
        if let ur = request.ur, ur != .zcashAccounts {
            throw DerivationError.unsupported("--ur \(ur.rawValue) exports a BIP32 account; a Zcash account's is --ur zcash-accounts")
        }
        if let material = material(keys) { return try request.saplingAccount(record, keys.records, material: material) }
        if keys.source == nil { return try request.saplingAccount(record, keys.records) }
        throw DerivationError.unsupported(
            "--pool \(request.chainOptions.shieldedPool ?? "") needs a BIP39 phrase, a seed or a Zcash viewing key in the record, or a zec key-store entry"
        )
    }

    static func addresses(
        _ request: AddressRequest, record: JSONObject, keys: DeriveKeys, read: ReadKey?,
        emit: (JSONObject) throws(CLIError) -> Void
    ) throws {
        if let material = material(keys) { return try request.saplingAddresses(record, keys.records, material: material, emit: emit) }
        if keys.source == nil { return try request.saplingAddresses(record, keys.records, emit: emit) }
        throw DerivationError.unsupported(
            "--pool \(request.chainOptions.shieldedPool ?? "") needs a BIP39 phrase, a seed or a Zcash viewing key in the record, or a zec key-store entry (not a card)"
        )
    }
}

extension AccountRequest {
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
        if ur == .zcashAccounts {
            guard let fingerprint = zcash.seedFingerprint, let ufvk = zcash.unifiedFullViewingKey, let account = zcash.account else {
                throw DerivationError.unsupported(
                    "--ur zcash-accounts names the seed by its ZIP 32 fingerprint: give the phrase or seed (or a zec key-store entry with it), not a viewing key"
                )
            }
            out["seed_fingerprint"] = .string(Hex.encode(fingerprint))
            out["ur"] = .string(try ZcashUR.accounts(seedFingerprint: fingerprint, [ZcashUR.Account(ufvk: ufvk, index: account)]).text)
        }
        return out
    }
}

extension AddressRequest {
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

/// "pool" is Zcash's own word for where value lives (transparent, Sapling, Orchard), so the
/// flag names what the user picks without overloading --script, whose values are Bitcoin
/// script kinds.
extension ChainOptions {
    /// Checks --pool and --use-qsk, Zcash's; true when the shielded pool's checks are all
    /// there is (its keys take no other option).
    func validateZcashPool() throws -> Bool {
        if let pool {
            guard ["transparent", "sapling", "orchard"].contains(pool) else {
                throw ValidationError("--pool must be transparent, sapling or orchard")
            }
            guard Chain(code: coin) == .zcash else { throw ValidationError("--pool is for --coin zec") }
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
                return true
            }
        }
        if useQsk, pool == nil {
            throw ValidationError("--use-qsk picks the Orchard keys: give it with --coin zec --pool orchard or sapling")
        }
        return false
    }

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
        if let coin, Chain(code: coin) != .zcash { throw DerivationError.unsupported("Zcash Sapling keys are for --coin zec, not \(coin)") }
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
        out["coin"] = .string(Chain.zcash.rawValue)
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
