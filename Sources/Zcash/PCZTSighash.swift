/// The signature hashes of a PCZT's transaction, from its effecting data alone: ZIP 244's for
/// v5 transactions, and NU6.3's v6 layout (the Ironwood bundle's digest added; the Orchard,
/// Ironwood and Sapling anchors moved to the authorizing data, so a v6 signature commits to no
/// anchor). The nodes are `ZcashTransactionID`'s, which the txid tests hold to zcash-test-vectors.
///
/// Keystone's firmware (`rust/zcash_vendor/src/pczt_ext.rs`) hashes v6 Sapling spends with the
/// v5 node and its anchor; the v6 format (and this code) uses `ZTxIdSSpendNH_v6`, without it.
/// The two differ only for v6 transactions with Sapling spends.
extension PCZT {
    /// ZIP 244's hash types for transparent inputs.
    public enum SighashType {
        public static let all: UInt8 = 0x01
        public static let none: UInt8 = 0x02
        public static let single: UInt8 = 0x03
        public static let anyoneCanPay: UInt8 = 0x80
    }

    /// The digests a signature hash is made of, each a BLAKE2b-256 node of ZIP 244.
    public struct Digests: Sendable, Equatable {
        public let header, prevouts, sequence, outputs, sapling, orchard: [UInt8]
        /// v6 only.
        public let ironwood: [UInt8]?
    }

    /// The transaction's lock time, as the crate's `determine_lock_time` (after BIP 370) picks
    /// it, which the Transaction Extractor uses too: the largest height lock the inputs require,
    /// or the largest time lock, else the fallback, else 0. nil when the inputs name both kinds
    /// (the crate counts an input naming both as needing each).
    public var lockTime: UInt32? {
        let inputs = transparent?.inputs ?? []
        let required = inputs.contains { $0.requiredTimeLockTime != nil || $0.requiredHeightLockTime != nil }
        guard required else { return global.fallbackLockTime ?? 0 }
        let timeUnsupported = inputs.contains { $0.requiredHeightLockTime != nil }
        let heightUnsupported = inputs.contains { $0.requiredTimeLockTime != nil }
        if !heightUnsupported { return inputs.compactMap(\.requiredHeightLockTime).max() }
        if !timeUnsupported { return inputs.compactMap(\.requiredTimeLockTime).max() }
        return nil
    }

    /// Whether the transaction is a v6 one (NU6.3's format, Ironwood's).
    public var isV6: Bool { global.txVersion == 6 }

    /// Every node but the transparent signature digest, which depends on the input signed.
    public func digests() throws(PCZTError) -> Digests {
        guard
            global.txVersion == 5 && global.versionGroupID == ZcashFullTransaction.v5VersionGroup
                || global.txVersion == 6 && global.versionGroupID == ZcashFullTransaction.v6VersionGroup
        else {
            throw .unsupported(
                "transaction version \(global.txVersion) (version group \(String(global.versionGroupID, radix: 16))); v5 and v6 are signed")
        }
        guard let lockTime else { throw .unsupported("inputs that require both a height and a time lock") }
        let H = ZcashTransactionID.H
        let header = H(
            "ZTxIdHeadersHash", le32(global.txVersion | 1 << 31), le32(global.versionGroupID), le32(global.consensusBranchID),
            le32(lockTime), le32(global.expiryHeight))
        let inputs = transparent?.inputs ?? [], outputs = transparent?.outputs ?? []
        return Digests(
            header: header,
            prevouts: H("ZTxIdPrevoutHash", inputs.flatMap { $0.prevoutTxid + le32($0.prevoutIndex) }),
            sequence: H("ZTxIdSequencHash", inputs.flatMap { le32($0.sequence ?? 0xFFFF_FFFF) }),
            outputs: H("ZTxIdOutputsHash", outputs.flatMap(Self.output)),
            sapling: try saplingDigest(),
            orchard: try Self.bundleDigest(orchard, isV6 ? ZcashTransactionID.orchardV6 : ZcashTransactionID.orchardV5, "orchard"),
            ironwood: isV6 ? try Self.bundleDigest(ironwood, ZcashTransactionID.ironwood, "ironwood") : nil)
    }

    /// The hash every shielded spend authorization (and the binding signature) signs.
    public func shieldedSighash() throws(PCZTError) -> [UInt8] { try sighash(try digests(), input: nil) }

    /// The hash transparent input `index` signs with its `sighash_type`.
    public func transparentSighash(input index: Int) throws(PCZTError) -> [UInt8] {
        guard let inputs = transparent?.inputs, inputs.indices.contains(index) else {
            throw .unsupported("there is no transparent input \(index)")
        }
        return try sighash(try digests(), input: index)
    }

    func sighash(_ d: Digests, input: Int?) throws(PCZTError) -> [UInt8] {
        Blake2.b(
            32, personal: Array("ZcashTxHash_".utf8) + le32(global.consensusBranchID),
            d.header + (try transparentSigDigest(d, input: input)) + d.sapling + d.orchard + (d.ironwood ?? []))
    }

    /// ZIP 244's S.2: the txid's transparent digest when there is no transparent input (or for
    /// a coinbase), else the input's view of the inputs and outputs by its hash type.
    func transparentSigDigest(_ d: Digests, input: Int?) throws(PCZTError) -> [UInt8] {
        let H = ZcashTransactionID.H
        let inputs = transparent?.inputs ?? [], outputs = transparent?.outputs ?? []
        if inputs.isEmpty && outputs.isEmpty { return H("ZTxIdTranspaHash") }
        let coinbase = inputs.count == 1 && inputs[0].prevoutIndex == .max && inputs[0].prevoutTxid == [UInt8](repeating: 0, count: 32)
        if inputs.isEmpty || coinbase { return H("ZTxIdTranspaHash", d.prevouts, d.sequence, d.outputs) }
        let hashType = input.map { inputs[$0].sighashType } ?? SighashType.all
        let base = hashType & 0x1F
        guard [SighashType.all, SighashType.none, SighashType.single].contains(base), hashType & 0x60 == 0 else {
            throw .unsupported("sighash type \(hashType)")
        }
        let anyoneCanPay = hashType & SighashType.anyoneCanPay != 0
        let prevouts = anyoneCanPay ? H("ZTxIdPrevoutHash") : d.prevouts
        let amounts = H("ZTxTrAmountsHash", anyoneCanPay ? [] : inputs.flatMap { le64($0.value) })
        let scripts = H("ZTxTrScriptsHash", anyoneCanPay ? [] : inputs.flatMap { Self.script($0.scriptPubKey) })
        let sequence = anyoneCanPay ? H("ZTxIdSequencHash") : d.sequence
        let outputsDigest: [UInt8]
        if base == SighashType.single {
            outputsDigest = H("ZTxIdOutputsHash", input.flatMap { outputs.indices.contains($0) ? Self.output(outputs[$0]) : nil } ?? [])
        } else {
            outputsDigest = base == SighashType.none ? H("ZTxIdOutputsHash") : d.outputs
        }
        let txin = H(
            "Zcash___TxInHash",
            input.map { inputs[$0] }.map {
                $0.prevoutTxid + le32($0.prevoutIndex) + le64($0.value) + Self.script($0.scriptPubKey) + le32($0.sequence ?? 0xFFFF_FFFF)
            } ?? [])
        return H("ZTxIdTranspaHash", [hashType], prevouts, amounts, scripts, sequence, outputsDigest, txin)
    }

    func saplingDigest() throws(PCZTError) -> [UInt8] {
        guard let sapling, !sapling.spends.isEmpty || !sapling.outputs.isEmpty else { return ZcashTransactionID.H("ZTxIdSaplingHash") }
        guard let balance = Int64(exactly: sapling.valueSum) else {
            throw .unsupported("a Sapling value sum of \(sapling.valueSum), beyond a 64-bit balance")
        }
        for (index, output) in sapling.outputs.enumerated() where output.encCiphertext.count < 564 {
            throw .malformed(
                field: "sapling.outputs[\(index)].enc_ciphertext", offset: 0, reason: "\(output.encCiphertext.count) bytes, fewer than 564")
        }
        let tx = ZcashFullTransaction(
            version: global.txVersion, spends: sapling.spends.map { .init(cv: $0.cv, nullifier: $0.nullifier, rk: $0.rk) },
            saplingOutputs: sapling.outputs.map {
                .init(
                    cv: $0.cv, cmu: $0.cmu, ephemeralKey: $0.ephemeralKey, encCiphertext: $0.encCiphertext, outCiphertext: $0.outCiphertext)
            },
            saplingValueBalance: le64(UInt64(bitPattern: balance)), saplingAnchor: sapling.anchor)
        return ZcashTransactionID.sapling(tx)
    }

    static func bundleDigest(
        _ bundle: PCZTOrchardBundle?, _ nodes: ZcashTransactionID.BundleNodes, _ name: String
    ) throws(PCZTError)
        -> [UInt8]
    {
        guard let bundle, !bundle.actions.isEmpty else { return ZcashTransactionID.H(nodes.bundle) }
        guard bundle.valueSumMagnitude <= UInt64(Int64.max) else {
            throw .unsupported("an \(name) value sum of \(bundle.valueSumMagnitude), beyond a 64-bit balance")
        }
        let balance = bundle.valueSumNegative ? -Int64(bundle.valueSumMagnitude) : Int64(bundle.valueSumMagnitude)
        var actions = [ZcashFullTransaction.Action]()
        for (index, action) in bundle.actions.enumerated() {
            // Version 2 may leave derived fields out; they are computed again before signing.
            func field(_ value: [UInt8]?, _ path: String) throws(PCZTError) -> [UInt8] {
                guard let value else { throw .unsupported("\(name).actions[\(index)].\(path) is left out; fill it in before signing") }
                return value
            }
            guard case .encrypted(let ciphertext) = action.output.encCiphertext, ciphertext.count >= 564 else {
                throw .unsupported("\(name).actions[\(index)].output.enc_ciphertext is not a full note ciphertext")
            }
            actions.append(
                .init(
                    cv: try field(action.cvNet, "cv_net"), nullifier: try field(action.spend.nullifier, "spend.nullifier"),
                    rk: try field(action.spend.rk, "spend.rk"), cmx: try field(action.output.cmx, "output.cmx"),
                    ephemeralKey: action.output.ephemeralKey, encCiphertext: ciphertext, outCiphertext: action.output.outCiphertext))
        }
        guard !nodes.anchor || bundle.anchor != nil else {
            throw .unsupported("the \(name) anchor is left out; a v5 signature commits to it")
        }
        return ZcashTransactionID.bundle(
            .init(actions: actions, flags: bundle.flags, valueBalance: le64(UInt64(bitPattern: balance)), anchor: bundle.anchor ?? []),
            nodes)
    }

    static func output(_ output: PCZTTransparentOutput) -> [UInt8] { le64(output.value) + script(output.scriptPubKey) }
    static func script(_ script: [UInt8]) -> [UInt8] { ZcashTransactionID.compactSize(script.count) + script }
}

func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
func le64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

extension ZcashFullTransaction {
    /// The Sapling part of a transaction, for its digest alone.
    init(version: UInt32, spends: [SaplingSpend], saplingOutputs: [SaplingOutput], saplingValueBalance: [UInt8], saplingAnchor: [UInt8]) {
        self.version = version
        header = []
        branchID = []
        inputs = []
        outputs = []
        self.spends = spends
        self.saplingOutputs = saplingOutputs
        self.saplingValueBalance = saplingValueBalance
        self.saplingAnchor = saplingAnchor
        saplingAuthorization = []
        orchard = Bundle()
        ironwood = nil
    }
}
