import WalletCore
import WalletKeys
import WalletCrypto

/// The PSBT Signer (BIP174) with the checks a careful signer makes first: the spent outputs
/// proven (a previous transaction hashes to the outpoint, a witness UTXO agrees with it), every
/// derivation of our key giving the key it claims, the script using that key, a fee within the
/// limit, and only SIGHASH_ALL (or taproot's DEFAULT) unless others are allowed.
public struct PSBTSigner {
    public var allowOtherSighash = false
    /// The most fee to sign, in satoshis.
    public var maxFee: UInt64?
    /// The network's BIP44 coin type: a standard path (44/49/84/86) of ours with another is refused.
    public var coinType: UInt32?
    /// The multisig wallets this signer is a cosigner of (`--descriptor`): an output one of
    /// them derives at a change index is that wallet's change.
    public var wallets: [MultisigDescriptor] = []

    public init(allowOtherSighash: Bool = false, maxFee: UInt64? = nil, coinType: UInt32? = nil) {
        (self.allowOtherSighash, self.maxFee, self.coinType) = (allowOtherSighash, maxFee, coinType)
    }

    /// One signature to make.
    enum Task {
        case ecdsa(publicKey: [UInt8], path: [UInt32], sighash: Sighasher)
        case schnorr(path: [UInt32], key: OutputKey)
    }

    /// How a taproot key path's output key comes from the key at a path.
    enum OutputKey {
        /// BIP341's TapTweak (BIP86 when there is no script tree).
        case taproot(merkleRoot: [UInt8]?)
        /// A silent payment output: the key plus `tweak`, no TapTweak.
        case silentPayment(tweak: [UInt8])
    }

    /// What a segwit v0 or legacy signature hashes.
    enum Sighasher {
        case legacy(scriptCode: [UInt8])
        case segwitV0(scriptCode: [UInt8], amount: UInt64)
    }

    /// Checks `psbt`, hands the report to `confirm` (which may refuse by throwing), then signs
    /// every input of ours. Nothing is signed when a check fails.
    ///
    /// A PSBT paying silent payment addresses (BIP375) gets our ECDH shares first; while an
    /// output still lacks its script (another signer's share missing), nothing is signed.
    public func sign(_ given: PSBT, keys: PSBTKeyring, confirm: (PSBTReport) throws -> Void) throws -> (psbt: PSBT, report: PSBTReport) {
        let silentPayments = !SilentPaymentPSBT.outputs(given).isEmpty
        let psbt = silentPayments ? try contributeSilentPayments(given, keys: keys) : given
        let spOutputs = Dictionary(uniqueKeysWithValues: SilentPaymentPSBT.outputs(psbt).map { ($0.index, $0) })
        let pending = spOutputs.values.contains { $0.script == nil }
        let tx = psbt.transaction
        if psbt.version == 2 && tx.version < 2 { throw PSBTSignError.transactionVersion(tx.version) }
        var spends = [[UInt8]: Int]()
        for (i, input) in tx.inputs.enumerated() {
            let outpoint = input.previousTxID + withUnsafeBytes(of: input.previousIndex.littleEndian) { Array($0) }
            if let first = spends.updateValue(i, forKey: outpoint) { throw PSBTSignError.duplicateInput(first: first, second: i) }
        }
        let utxos = try spentOutputs(psbt)
        let shared = Sighash.Shared(tx)
        try verifyExistingSignatures(psbt, utxos: utxos, shared: shared)
        var report: PSBTReport
        var tasks = [[Task]]()
        var reportInputs = [PSBTReport.Input]()
        // The accounts this run signs for: (purpose, coin type, account[, script type]) of the
        // paths of ours in its inputs, as plan checked them.
        var accounts = Set<[UInt32]>()
        for (i, map) in psbt.inputs.enumerated() {
            let planned = try plan(input: i, map: map, utxo: utxos[i], outputCount: tx.outputs.count, keys: keys)
            tasks.append(planned.tasks)
            for path in planned.paths { if let account = Self.account(path) { accounts.insert(account) } }
            reportInputs.append(
                PSBTReport.Input(
                    index: i, previousTxID: tx.inputs[i].previousTxID, previousIndex: tx.inputs[i].previousIndex,
                    amount: utxos[i].value, script: utxos[i].script, kind: planned.kind,
                    paths: planned.paths.map { DerivationPath($0).description }, sighash: planned.sighashType))
        }
        guard reportInputs.contains(where: \.ours) else { throw PSBTSignError.nothingToSign }
        // Inputs are bounded by spentOutputs; outputs (a version 2 amount is any 8 bytes) are
        // added without overflow, a sum past every input's being refused as it is.
        let totalIn = utxos.reduce(UInt64(0)) { $0 + $1.value }
        let totalOut = tx.outputs.reduce(UInt64(0)) { sum, o in
            let (s, over) = sum.addingReportingOverflow(o.value); return over ? .max : s
        }
        guard totalOut <= totalIn else { throw PSBTSignError.negativeFee(inputs: totalIn, outputs: totalOut) }
        let fee = totalIn - totalOut
        if let maxFee, fee > maxFee { throw PSBTSignError.feeAboveLimit(fee: fee, limit: maxFee) }
        try checkWallets(keys: keys)
        let outputs = try psbt.outputs.enumerated().map { o, map in
            guard let sp = spOutputs[o] else {
                return try change(
                    output: o, map: map, script: tx.outputs[o].script, amount: tx.outputs[o].value, keys: keys, accounts: accounts)
            }
            let paths = try silentPaymentChange(sp, map: map, keys: keys)
            var output = PSBTReport.Output(
                index: o, amount: tx.outputs[o].value, script: sp.script ?? [], change: paths != nil, paths: paths ?? [], wallet: nil)
            output.silentPayment = sp
            return output
        }
        report = PSBTReport(version: psbt.version, inputs: reportInputs, outputs: outputs, fee: fee, vsize: nil)
        for i in report.inputs.indices { report.inputs[i].complete = PSBTFinalizer.isComplete(psbt.inputs[i], utxo: utxos[i]) }
        report.vsize = PSBTFinalizer.estimatedVsize(psbt, utxos: utxos)
        report.silentPaymentsPending = pending
        try confirm(report)

        var signed = psbt
        for (i, inputTasks) in tasks.enumerated() where !pending {
            for task in inputTasks {
                switch task {
                case .ecdsa(let publicKey, let path, let hasher):
                    let type = signed.inputs[i].value(PSBTField.inSighashType)?.littleEndianUInt32 ?? Sighash.all
                    let hash: [UInt8]
                    switch hasher {
                    case .legacy(let code): hash = try Sighash.legacy(tx, input: i, scriptCode: code, type: type)
                    case .segwitV0(let code, let amount):
                        hash = try Sighash.segwitV0(tx, input: i, scriptCode: code, amount: amount, type: type, shared: shared)
                    }
                    let signature = try keys.signECDSA(hash, at: path)
                    signed.inputs[i].insertInOrder(
                        PSBT.Pair(
                            type: PSBTField.inPartialSig, keyData: publicKey, value: signature.der + [UInt8(truncatingIfNeeded: type)]))
                case .schnorr(let path, let key):
                    let type = signed.inputs[i].value(PSBTField.inSighashType)?.littleEndianUInt32 ?? Sighash.taprootDefault
                    let hash = try Sighash.taprootKeyPath(tx, input: i, prevouts: utxos, type: type, shared: shared)
                    let signature =
                        switch key {
                        case .taproot(let merkleRoot): try keys.signSchnorr(hash, at: path, merkleRoot: merkleRoot)
                        case .silentPayment(let tweak): try keys.signSchnorr(hash, at: path, addingTweak: tweak)
                        }
                    signed.inputs[i].insertInOrder(
                        PSBT.Pair(type: PSBTField.inTapKeySig, value: signature + (type == Sighash.taprootDefault ? [] : [UInt8(type)])))
                }
                report.inputs[i].signed += 1
            }
        }
        // Complete inputs, and with all of them the exact size (the finalizer's scripts made once).
        if let final = PSBTFinalizer.networkTransaction(signed, utxos: utxos, completing: &report) {
            report.vsize = PSBTFinalizer.vsize(final)
            report.vsizeEstimated = false
        }
        return (signed, report)
    }

    /// The output each input spends, proven where the PSBT can prove it. The previous
    /// transaction was checked against the outpoint as the PSBT was read, and is again here: a
    /// PSBT's maps can be changed after it was read.
    func spentOutputs(_ psbt: PSBT) throws(PSBTSignError) -> [BitcoinTx.Output] {
        var out = [BitcoinTx.Output]()
        var total: UInt64 = 0
        for (i, map) in psbt.inputs.enumerated() {
            let spent = psbt.transaction.inputs[i]
            var full: BitcoinTx.Output?
            if let raw = map.value(PSBTField.inNonWitnessUtxo) {
                guard let previous = try? BitcoinTx(parsing: raw), previous.txid == spent.previousTxID,
                    Int(spent.previousIndex) < previous.outputs.count
                else {
                    throw .witnessUTXOMismatch(
                        input: i,
                        reason: "PSBT_IN_NON_WITNESS_UTXO is not the transaction whose output \(spent.previousIndex) the input spends")
                }
                full = previous.outputs[Int(spent.previousIndex)]
            }
            let witness = map.value(PSBTField.inWitnessUtxo).flatMap(Self.txOut)
            if let full, let witness, full != witness {
                throw .witnessUTXOMismatch(
                    input: i,
                    reason:
                        "PSBT_IN_WITNESS_UTXO (\(witness.value) satoshis to \(Hex.encode(witness.script))) is not output \(spent.previousIndex) of PSBT_IN_NON_WITNESS_UTXO (\(full.value) satoshis to \(Hex.encode(full.script)))"
                )
            }
            guard let utxo = full ?? witness else { throw .missingUTXO(input: i) }
            // Each amount at most 21 million coins, so that no sum of them overflows.
            guard utxo.value <= PSBTField.maxMoney else {
                throw .witnessUTXOMismatch(input: i, reason: "an amount of \(utxo.value) satoshis, more than 21 million coins")
            }
            total += utxo.value
            guard total <= UInt64.max / 2 else {
                throw .witnessUTXOMismatch(input: i, reason: "the inputs add up to more than there will ever be")
            }
            out.append(utxo)
        }
        return out
    }

    /// Every signature already in the PSBT (PSBT_IN_PARTIAL_SIG, PSBT_IN_TAP_KEY_SIG) checked
    /// against its input's sighash before it counts toward a complete input: a garbage one
    /// under our key was taken as our own signature, and finalized into an invalid
    /// transaction. Inputs whose script Satchel does not know are left to their own signers.
    func verifyExistingSignatures(_ psbt: PSBT, utxos: [BitcoinTx.Output], shared: Sighash.Shared) throws {
        let tx = psbt.transaction
        for (i, map) in psbt.inputs.enumerated() where !PSBTFinalizer.isFinal(map) {
            let utxo = utxos[i]
            if let signature = map.value(PSBTField.inTapKeySig), case .p2tr(let outputKey) = ScriptTemplate(utxo.script) {
                let type: UInt32 = signature.count == 65 ? UInt32(signature[64]) : Sighash.taprootDefault
                let hash =
                    (signature.count == 64 || signature.count == 65) && (signature.count == 64 || signature[64] != 0)
                    ? try? Sighash.taprootKeyPath(tx, input: i, prevouts: utxos, type: type, shared: shared) : nil
                guard let hash, Secp256k1.verifySchnorr(message: hash, signature: Array(signature.prefix(64)), xOnlyPublicKey: outputKey)
                else {
                    throw PSBTSignError.badSignature(input: i, field: "PSBT_IN_TAP_KEY_SIG", key: Hex.encode(outputKey))
                }
            }
            let partial = map.all(PSBTField.inPartialSig)
            guard !partial.isEmpty, let (code, segwit) = Self.scriptCode(utxo.script, map: map) else { continue }
            for pair in partial {
                let key = try? Secp256k1.PublicKey(parsing: pair.keyData)
                // P2PKH and P2WPKH name the key in their hash: a signature of another key is none.
                let code = code ?? ScriptTemplate.p2pkh(Hash.hash160(pair.keyData))
                var valid = false
                if let key, let type = pair.value.last, pair.value.count > 1 {
                    let hash =
                        segwit
                        ? try? Sighash.segwitV0(tx, input: i, scriptCode: code, amount: utxo.value, type: UInt32(type), shared: shared)
                        : try? Sighash.legacy(tx, input: i, scriptCode: code, type: UInt32(type))
                    valid = hash.map { Secp256k1.verifyECDSA(hash: $0, der: Array(pair.value.dropLast()), publicKey: key) } ?? false
                    if valid, let h = Self.keyHash(utxo.script, map: map) { valid = Hash.hash160(pair.keyData) == h }
                }
                guard valid else { throw PSBTSignError.badSignature(input: i, field: "PSBT_IN_PARTIAL_SIG", key: Hex.encode(pair.keyData)) }
            }
        }
    }

    /// The script code an input's ECDSA signatures commit to, and whether they are segwit's;
    /// a nil code: the key's own P2PKH script (a key-hash input). nil for a script Satchel does
    /// not know, or whose scripts the PSBT does not prove.
    static func scriptCode(_ script: [UInt8], map: PSBT.Map) -> (code: [UInt8]?, segwit: Bool)? {
        let redeem = map.value(PSBTField.inRedeemScript), ws = map.value(PSBTField.inWitnessScript)
        func witness(_ h: [UInt8]) -> (code: [UInt8]?, segwit: Bool)? { ws.flatMap { Hash.sha256($0) == h ? ($0, true) : nil } }
        switch ScriptTemplate(script) {
        case .p2pkh: return (nil, false)
        case .p2wpkh: return (nil, true)
        case .p2wsh(let h): return witness(h)
        case .p2sh(let h):
            guard let redeem, Hash.hash160(redeem) == h else { return nil }
            switch ScriptTemplate(redeem) {
            case .p2wpkh: return (nil, true)
            case .p2wsh(let sh): return witness(sh)
            case .p2sh, .p2tr: return nil
            case .p2pkh, .other: return (redeem, false)
            }
        case .p2tr, .other: return nil
        }
    }

    /// The key hash a key-hash input pays (P2PKH, P2WPKH, P2SH-P2WPKH); nil for another kind.
    static func keyHash(_ script: [UInt8], map: PSBT.Map) -> [UInt8]? {
        switch ScriptTemplate(script) {
        case .p2pkh(let h), .p2wpkh(let h): return h
        case .p2sh:
            if let redeem = map.value(PSBTField.inRedeemScript), case .p2wpkh(let h) = ScriptTemplate(redeem) { return h }
            return nil
        default: return nil
        }
    }

    static func txOut(_ v: [UInt8]) -> BitcoinTx.Output? {
        var r = SerialReader(v)
        guard let amount = try? r.uint64(), let script = try? r.varBytes() else { return nil }
        return BitcoinTx.Output(value: amount, script: script)
    }
}
