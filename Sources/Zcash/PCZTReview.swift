import WalletCore
import WalletCrypto
import WalletKeys

extension ZcashNetwork {
    /// The network a PCZT's coin_type names (SLIP-44: 133, or 1 for every test network).
    public init?(coinType: UInt32) {
        switch coinType {
        case 133: self = .main
        case 1: self = .test
        default: return nil
        }
    }

    /// The t-address a transparent script pays (P2PKH or P2SH), nil for any other script.
    public func transparentAddress(script: [UInt8]) -> String? {
        if script.count == 25, script.starts(with: [0x76, 0xA9, 0x14]), script[23] == 0x88, script[24] == 0xAC {
            return Base58.encodeCheck((self == .main ? [0x1C, 0xB8] : [0x1D, 0x25]) + script[3..<23])
        }
        if script.count == 23, script.starts(with: [0xA9, 0x14]), script[22] == 0x87 {
            return Base58.encodeCheck((self == .main ? [0x1C, 0xBD] : [0x1C, 0xBA]) + script[2..<22])
        }
        return nil
    }
}

/// What a PCZT does, as the signer verified it with its own keys (nothing here is taken from
/// the PCZT on its word where a key can check it): the spends, where each output goes, the fee,
/// and how many signatures the seed adds.
public struct PCZTReport: Sendable, Equatable {
    public struct Spend: Sendable, Equatable {
        /// transparent, sapling, orchard or ironwood.
        public let pool: String
        /// The input's or action's index in its bundle.
        public let index: Int
        /// nil where a spend that is not ours leaves it out.
        public let value: UInt64?
        /// Ours: the path our key was found at (ZIP 32's or, transparent, BIP 44's); nil: not ours.
        public let path: [UInt32]?
        /// Transparent: the output spent (txid in display order) and the address it paid.
        public let txid: [UInt8]?
        public let vout: UInt32?
        public let address: String?
        /// A transparent input we sign: its hash type (ZIP 244's, as the input asks for it).
        public var sighashType: UInt8? = nil
    }

    public struct Output: Sendable, Equatable {
        public enum Role: String, Sendable {
            /// Leaves the wallet: recovered with our outgoing keys, or transparent and not ours.
            case payment
            /// Back to the wallet's internal (change) keys.
            case change
            /// To one of the wallet's own external addresses.
            case ours
        }

        public let pool: String
        public let index: Int
        public let value: UInt64
        /// nil for a transparent script that is no address (then `script`).
        public let address: String?
        public let script: [UInt8]?
        public let role: Role
        /// The memo's 512 bytes, when the output carries one that is not empty.
        public let memo: [UInt8]?
    }

    public let network: ZcashNetwork
    public let spends: [Spend]
    public let outputs: [Output]
    /// Transparent inputs less transparent outputs plus each shielded bundle's value sum.
    public let fee: UInt64
    /// The signatures `sign(seed:)` will add.
    public let toSign: Int
}

extension PCZT {
    /// Checks this PCZT against `seed`'s keys and says what signing it does, or refuses it by
    /// name: a transaction version before 5, dummy keys left in it (ZIP 374), nothing of ours in
    /// it, a spend or input that names our seed but is not our key's (rk, nullifier, public
    /// key), a value commitment or value sum its values do not give, an output whose note says
    /// other than the PCZT (value, recipient) or whose recipient is not in its `user_address`,
    /// a non-zero output none of our keys decrypts, outputs worth more than the inputs.
    ///
    /// A transparent input of ours that asks for a hash type other than SIGHASH_ALL (which
    /// would let others change what its signature covers) is refused unless
    /// `allowOtherSighash`; SIGHASH_SINGLE without an output at the input's index always is.
    public func review(seed: SecureBytes, allowOtherSighash: Bool = false) throws(PCZTError) -> PCZTReport {
        var keys = try PCZTKeys(seed: seed, coinType: global.coinType)
        defer { keys.wipe() }
        return try review(&keys, allowOtherSighash: allowOtherSighash)
    }

    /// `review(seed:)` with the seed's keys made already (and kept for the signing).
    func review(_ keys: inout PCZTKeys, allowOtherSighash: Bool) throws(PCZTError) -> PCZTReport {
        _ = try digests()  // refuses transaction versions it cannot hash
        let network = keys.network
        try refuseDummies()
        try keys.findAccounts(self)
        if keys.accounts.isEmpty {
            throw .refused(
                "nothing in it is ours: no spend or input names our seed (ZIP 32 fingerprint \(Hex.encode(keys.fingerprint)))"
                    + (foreignFingerprints.isEmpty ? "" : "; it names \(foreignFingerprints.map(Hex.encode).joined(separator: ", "))"))
        }
        var spends = [PCZTReport.Spend](), outputs = [PCZTReport.Output]()
        var fee: Int128 = 0, toSign = 0
        let zeroValueIsReal = isV6 || global.consensusBranchID == Self.nu63BranchID

        for (index, input) in (transparent?.inputs ?? []).enumerated() {
            let name = "transparent.inputs[\(index)]"
            let ours = try keys.transparentKey(input.bip32Derivation, script: input.scriptPubKey, name)
            var spend = PCZTReport.Spend(
                pool: "transparent", index: index, value: input.value, path: ours?.path, txid: input.prevoutTxid.reversed(),
                vout: input.prevoutIndex, address: network.transparentAddress(script: input.scriptPubKey))
            if let ours, !input.partialSignatures.entries.contains(where: { $0.key == ours.publicKey }) {
                try checkSighashType(input: index, allowOther: allowOtherSighash)
                spend.sighashType = input.sighashType
                toSign += 1
            }
            spends.append(spend)
            fee += Int128(input.value)
        }
        for (index, output) in (transparent?.outputs ?? []).enumerated() {
            let name = "transparent.outputs[\(index)]"
            let address = network.transparentAddress(script: output.scriptPubKey)
            if let claimed = output.userAddress, claimed != address {
                throw .refused("\(name) pays \(address ?? "a script that is no address"), not its user_address \(claimed)")
            }
            // Change only where our own key, on a change path, gives its script; else a payment.
            let change = (try? keys.transparentKey(output.bip32Derivation, script: output.scriptPubKey, name))??.path[3] == 1
            outputs.append(
                .init(
                    pool: "transparent", index: index, value: output.value, address: address,
                    script: address == nil ? output.scriptPubKey : nil, role: change ? .change : .payment, memo: nil))
            fee -= Int128(output.value)
        }
        fee += try reviewSapling(&keys, spends: &spends, outputs: &outputs, toSign: &toSign)
        for (pool, bundle) in [("orchard", orchard), ("ironwood", ironwood)] {
            guard let bundle else { continue }
            let version: OrchardNoteVersion = bundle.noteVersion == 1 ? .v3 : .v2
            var net: Int128 = 0, allValuesKnown = true
            for (index, action) in bundle.actions.enumerated() {
                let name = "\(pool).actions[\(index)]"
                if action.valueCommitmentHolds == false {
                    throw .refused("\(name): cv_net is not the commitment of its values (changed after it was made?)")
                }
                let spend = action.spend
                if let (path, fvk) = try keys.orchardSpendKey(spend.derivation, name) {
                    guard spend.randomizedKeyHolds(fvk) else {
                        throw .refused(
                            "\(name) names our seed at \(DerivationPath(spend.derivation!.path)), but its rk is not our key's")
                    }
                    guard spend.nullifierHolds(fvk, version: version) else {
                        throw .refused("\(name) names our seed, but its nullifier is not of the note it describes under our key")
                    }
                    let value = spend.value!  // the nullifier check read it
                    if value != 0 {
                        spends.append(.init(pool: pool, index: index, value: value, path: path, txid: nil, vout: nil, address: nil))
                    }
                    if spend.spendAuthSig == nil && (value != 0 || zeroValueIsReal) { toSign += 1 }
                } else if spend.value != 0 {
                    spends.append(.init(pool: pool, index: index, value: spend.value, path: nil, txid: nil, vout: nil, address: nil))
                }
                outputs += try keys.orchardOutput(action, name: name, pool: pool, index: index, version: version)
                if let spent = spend.value, let created = action.output.value {
                    net += Int128(spent) - Int128(created)
                } else {
                    allValuesKnown = false
                }
            }
            let valueSum = bundle.valueSumNegative ? -Int128(bundle.valueSumMagnitude) : Int128(bundle.valueSumMagnitude)
            if allValuesKnown, net != valueSum {
                throw .refused("\(pool) value_sum is \(valueSum), but its actions' values give \(net)")
            }
            fee += valueSum
        }
        guard fee >= 0, let fee = UInt64(exactly: fee) else { throw .refused("its outputs are worth \(-fee) zatoshi more than its inputs") }
        return PCZTReport(network: network, spends: spends, outputs: outputs, fee: fee, toSign: toSign)
    }

    /// ZIP 374: a Signer refuses a PCZT that still carries a dummy spend's key.
    func refuseDummies() throws(PCZTError) {
        for (name, bundle) in [("orchard", orchard), ("ironwood", ironwood)] {
            for (index, action) in (bundle?.actions ?? []).enumerated() where action.spend.dummySk != nil {
                throw .refused("\(name).actions[\(index)] still carries dummy_sk (ZIP 374: a Signer refuses it)")
            }
        }
        for (index, spend) in (sapling?.spends ?? []).enumerated() where spend.dummyAsk != nil {
            throw .refused("sapling.spends[\(index)] still carries dummy_ask (ZIP 374: a Signer refuses it)")
        }
    }

    /// The seed fingerprints the PCZT's derivations name, for a refusal to show.
    var foreignFingerprints: [[UInt8]] {
        var all = [[UInt8]]()
        for input in transparent?.inputs ?? [] { all += input.bip32Derivation.entries.map(\.value.seedFingerprint) }
        for bundle in [orchard, ironwood] { all += (bundle?.actions ?? []).compactMap(\.spend.derivation?.seedFingerprint) }
        all += (sapling?.spends ?? []).compactMap(\.derivation?.seedFingerprint)
        return all.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }
}

/// A seed's keys as a PCZT names them: ZIP 32 accounts for shielded spends (their viewing keys
/// made once), BIP 44 keys for transparent inputs. Refuses a derivation that names our seed at
/// a path of another coin or shape.
struct PCZTKeys {
    let fingerprint: [UInt8]
    let coinType: UInt32
    let network: ZcashNetwork
    var seed: [UInt8]
    private var master: ExtendedKey?
    /// The accounts our seed's derivations name.
    private(set) var accounts: Set<UInt32> = []
    private var orchardAccounts: [OrchardRivkRule: [UInt32: OrchardFullViewingKey]] = [:]
    var saplingAccounts: [UInt32: (external: SaplingFullViewingKey, internal: SaplingFullViewingKey)] = [:]
    static let hardened: UInt32 = 1 << 31

    init(seed: SecureBytes, coinType: UInt32) throws(PCZTError) {
        guard let network = ZcashNetwork(coinType: coinType) else { throw .unsupported("coin type \(coinType) (Zcash's are 133 and 1)") }
        self.seed = seed.bytes
        // The fingerprint is what a PCZT names the seed by: public by design.
        guard let fingerprint = zip32SeedFingerprint(self.seed).map(ConstantTime.declassified) else {
            SecureBytes.wipe(&self.seed)
            throw .unsupported("a seed of \(seed.count) bytes (ZIP 32 takes 32 to 252)")
        }
        self.fingerprint = fingerprint
        self.coinType = coinType
        self.network = network
    }

    mutating func wipe() { SecureBytes.wipe(&seed) }

    /// Every account our seed's derivations name, so that each output is tried with each.
    mutating func findAccounts(_ pczt: PCZT) throws(PCZTError) {
        for (pool, bundle) in [("orchard", pczt.orchard), ("ironwood", pczt.ironwood)] {
            for (index, action) in (bundle?.actions ?? []).enumerated() {
                _ = try zip32Account(action.spend.derivation, "\(pool).actions[\(index)]")
            }
        }
        for (index, spend) in (pczt.sapling?.spends ?? []).enumerated() {
            _ = try zip32Account(spend.derivation, "sapling.spends[\(index)]")
        }
        for (index, input) in (pczt.transparent?.inputs ?? []).enumerated() {
            if let path = try transparentKey(input.bip32Derivation, script: input.scriptPubKey, "transparent.inputs[\(index)]")?.path {
                accounts.insert(path[2] - Self.hardened)
            }
        }
    }

    /// The account of a shielded spend whose derivation names our seed (nil when it names
    /// another or none); a path of another shape is refused.
    mutating func zip32Account(_ derivation: PCZTDerivation?, _ name: String) throws(PCZTError) -> UInt32? {
        guard let derivation, derivation.seedFingerprint == fingerprint else { return nil }
        let path = derivation.path
        guard path.count == 3, path[0] == 32 | Self.hardened, path[1] == coinType | Self.hardened, path[2] >= Self.hardened else {
            throw .refused("\(name) names our seed at \(DerivationPath(path)), not at ZIP 32's m/32'/\(coinType)'/account'")
        }
        accounts.insert(path[2] - Self.hardened)
        return path[2] - Self.hardened
    }

    /// The Orchard viewing key of `account` under `rule`, made once. ak and nk, which a spend's
    /// checks use, are the same under both rules; rivk, and so the incoming keys, are not.
    mutating func orchard(account: UInt32, rule: OrchardRivkRule = .standard) -> OrchardFullViewingKey? {
        if let fvk = orchardAccounts[rule]?[account] { return fvk }
        let fvk = try? OrchardExtendedSpendingKey.account(seed: seed, coinType: coinType, account: account).fullViewingKey(rivkRule: rule)
        orchardAccounts[rule, default: [:]][account] = fvk
        return fvk
    }

    /// An Orchard-protocol spend's path and viewing key when its derivation names our seed.
    mutating func orchardSpendKey(_ derivation: PCZTDerivation?, _ name: String) throws(PCZTError) -> ([UInt32], OrchardFullViewingKey)? {
        guard let account = try zip32Account(derivation, name) else { return nil }
        guard let fvk = orchard(account: account) else {
            throw .refused("\(name): our seed gives no Orchard key at \(DerivationPath(derivation!.path))")
        }
        return (derivation!.path, fvk)
    }

    /// An output as the report shows it: its role from the key that found it (change: the
    /// internal incoming key; ours: the external one; a payment: an outgoing key alone, so not
    /// to us); nothing for an output of ours worth nothing and saying nothing.
    static func output(
        pool: String, index: Int, value: UInt64, address: String, key: RecoveredOrchardOutput.Key, memo: [UInt8]?
    ) -> [PCZTReport.Output] {
        let role: PCZTReport.Output.Role =
            switch key {
            case .incoming(change: true): .change
            case .incoming(change: false): .ours
            case .outgoing: .payment
            }
        let memo = memo.flatMap { SaplingMemo.isEmpty($0) ? nil : $0 }
        if value == 0 && memo == nil && role != .payment { return [] }
        return [.init(pool: pool, index: index, value: value, address: address, script: nil, role: role, memo: memo)]
    }

    /// A transparent input's or output's key when one of its derivations names our seed: the
    /// BIP 44 key at that path must be the map's public key and pay `script` (P2PKH).
    mutating func transparentKey(
        _ derivations: PCZTMap<[UInt8], PCZTDerivation>, script: [UInt8], _ name: String
    ) throws(PCZTError) -> (path: [UInt32], publicKey: [UInt8])? {
        guard let entry = derivations.entries.first(where: { $0.value.seedFingerprint == fingerprint }) else { return nil }
        let path = entry.value.path
        guard path.count == 5, path[0] == 44 | Self.hardened, path[1] == coinType | Self.hardened, path[2] >= Self.hardened,
            path[3] < 2, path[4] < Self.hardened
        else {
            throw .refused("\(name) names our seed at \(DerivationPath(path)), not at BIP 44's m/44'/\(coinType)'/account'/0 or 1/index")
        }
        guard let key = try? privateKey(path) else { throw .refused("\(name): our seed gives no key at \(DerivationPath(path))") }
        let publicKey = key.publicKey.compressed
        guard publicKey == entry.key else {
            throw .refused("\(name) names our seed at \(DerivationPath(path)), but its public key is not the one our seed gives there")
        }
        guard script == [0x76, 0xA9, 0x14] + Hash.hash160(publicKey) + [0x88, 0xAC] else {
            throw .refused("\(name) names our key at \(DerivationPath(path)), but its script does not pay it")
        }
        return (path, publicKey)
    }

    /// The BIP 32 key at `path` of the seed (the master made once).
    mutating func privateKey(_ path: [UInt32]) throws -> ExtendedKey {
        if master == nil { master = try ExtendedKey.master(seed: SecureBytes(seed)) }
        return try master!.derive(path)
    }

    /// An action's output as the account keys recover it (checked against the PCZT's value,
    /// recipient and user_address), none for a zero-value output nobody decrypts.
    mutating func orchardOutput(
        _ action: PCZTAction, name: String, pool: String, index: Int, version: OrchardNoteVersion
    ) throws(PCZTError) -> [PCZTReport.Output] {
        let output = action.output
        // A zero-value output whose value commitment opens is worth nothing to show when the
        // usual keys do not open it (a builder's padding): use_qsk's keys are not made for it.
        let worthless = output.value == 0 && action.valueCommitmentHolds == true
        // Every wallet's rule first; then ZIP 2005's use_qsk, whose accounts (FROST wallets')
        // share ak and nk but not the incoming keys.
        let keys = (worthless ? [.standard] : [OrchardRivkRule.standard, .quantumSecure]).flatMap { rule in
            accounts.sorted().map { (rule, $0) }
        }
        for (rule, account) in keys {
            guard let fvk = orchard(account: account, rule: rule), let found = action.recoverOutput(fvk, version: version) else { continue }
            let note = found.note
            if let stated = output.value, stated != note.value {
                throw .refused("\(name): the output says \(stated) zatoshi, its note \(note.value)")
            }
            if let recipient = output.recipient, recipient != note.address.bytes {
                throw .refused("\(name): the output's recipient is not its note's")
            }
            var address = UnifiedEncoding.orchardAddress(note.address.bytes, network: network)
            if let claimed = output.userAddress {
                let items = try? UnifiedEncoding.decode(claimed, kind: .address, network: network)
                guard items?.first(where: { $0.typecode == UnifiedEncoding.Typecode.orchard })?.value == note.address.bytes else {
                    throw .refused("\(name): its recipient is not in its user_address \(claimed)")
                }
                address = claimed
            }
            return Self.output(pool: pool, index: index, value: note.value, address: address, key: found.key, memo: found.memo)
        }
        // Nothing of ours opens it: a dummy, if its value is 0 and the value commitment says so.
        guard worthless else {
            throw .refused(
                "\(name): an output of \(output.value.map { "\($0) zatoshi" } ?? "unknown value") that none of our keys decrypts (where it goes cannot be shown)"
            )
        }
        return []
    }
}

extension PCZT {
    /// Reviews the PCZT (`review(seed:allowOtherSighash:)`, which refuses what it must), then adds every
    /// signature `seed` owes it: its Orchard and Ironwood spends (RedPallas), and its
    /// transparent inputs (ECDSA).
    /// Returns the report the signing followed; its `toSign` signatures were added.
    /// `confirm` gets the report before anything is signed and may refuse by throwing.
    public mutating func sign(
        seed: SecureBytes, allowOtherSighash: Bool = false, confirm: (PCZTReport) throws -> Void = { _ in }
    ) throws -> PCZTReport {
        var keys = try PCZTKeys(seed: seed, coinType: global.coinType)
        defer { keys.wipe() }
        let report = try review(&keys, allowOtherSighash: allowOtherSighash)
        try confirm(report)
        for (index, input) in (transparent?.inputs ?? []).enumerated() {
            let name = "transparent.inputs[\(index)]"
            guard let ours = try keys.transparentKey(input.bip32Derivation, script: input.scriptPubKey, name),
                !input.partialSignatures.entries.contains(where: { $0.key == ours.publicKey })
            else { continue }
            guard let key = try? keys.privateKey(ours.path).privateKey else { throw PCZTError.refused("\(name): our seed gives no key") }
            try signTransparent(input: index, privateKey: key)
        }
        var raw = seed.bytes
        defer { SecureBytes.wipe(&raw) }
        _ = try signShielded(seed: raw, coinType: global.coinType)
        if try signSapling(&keys, sighash: try shieldedSighash()) > 0 { fixModifiable(transparentHashType: nil) }
        return report
    }
}

extension PCZT {
    /// ALL, NONE, SINGLE, each maybe |ANYONECANPAY.
    public static func sighashName(_ type: UInt8) -> String {
        let base = ["ALL", "NONE", "SINGLE"][Int(max(1, min(type & 0x1F, 3))) - 1]
        return type & SighashType.anyoneCanPay != 0 ? base + "|ANYONECANPAY" : base
    }

    /// Refuses a hash type ZIP 244 does not define, SIGHASH_SINGLE without an output at the
    /// input's index (ZIP 244 has no hash for it), and any type but ALL unless `allowOther`:
    /// NONE leaves the outputs, SINGLE the other outputs, ANYONECANPAY the other inputs free to
    /// change after we sign.
    func checkSighashType(input index: Int, allowOther: Bool) throws(PCZTError) {
        let type = transparent!.inputs[index].sighashType, name = "transparent.inputs[\(index)]"
        let base = type & ~SighashType.anyoneCanPay
        guard [SighashType.all, SighashType.none, SighashType.single].contains(base) else {
            throw .refused("\(name) asks for sighash type \(type), which ZIP 244 does not define")
        }
        guard type == SighashType.all || allowOther else {
            throw .refused(
                "\(name) asks for SIGHASH_\(Self.sighashName(type)), which lets others change what its signature covers: "
                    + "sign it only on purpose, with --allow-sighash")
        }
        if base == SighashType.single && index >= (transparent?.outputs.count ?? 0) {
            throw .refused("\(name) asks for SIGHASH_\(Self.sighashName(type)) and there is no output \(index) to pair it with")
        }
    }
}
