import WalletCore
import WalletCrypto

/// The Input Finalizer and Transaction Extractor of BIP174 for the scripts Satchel signs:
/// P2PKH, P2WPKH and P2SH-P2WPKH, bare multisig inside P2SH, P2WSH or P2SH-P2WSH, and taproot's
/// key path. A finalized input keeps only its UTXO fields and the fields Satchel does not know
/// (proprietary and unknown ones), as BIP174 says; a version 2 PSBT keeps the fields that make
/// up its transaction too.
public enum PSBTFinalizer {
    /// An input's final scriptSig and witness, when its signatures suffice.
    static func finalScripts(_ map: PSBT.Map, utxo: BitcoinTx.Output) -> (scriptSig: [UInt8], witness: [[UInt8]])? {
        let sigs = Dictionary(map.all(PSBTField.inPartialSig).map { ($0.keyData, $0.value) }, uniquingKeysWith: { a, _ in a })
        func keyHash(_ h: [UInt8], segwit: Bool) -> [[UInt8]]? {
            guard let (key, sig) = sigs.first(where: { Hash.hash160($0.key) == h && (!segwit || $0.key.count == 33) }) else { return nil }
            return [sig, key]
        }
        /// The signatures of a multisig, in its keys' order, as CHECKMULTISIG wants them.
        func multisig(_ script: [UInt8]) -> [[UInt8]]? {
            guard let (m, keys) = Script.multisig(script) else { return nil }
            let found = keys.compactMap { sigs[$0] }
            return found.count >= m ? Array(found.prefix(m)) : nil
        }
        let redeem = map.value(PSBTField.inRedeemScript), ws = map.value(PSBTField.inWitnessScript)
        func wsh(_ h: [UInt8]) -> [[UInt8]]? {
            guard let ws, Hash.sha256(ws) == h, let s = multisig(ws) else { return nil }
            return [[]] + s + [ws]
        }
        switch ScriptTemplate(utxo.script) {
        case .p2pkh(let h): return keyHash(h, segwit: false).map { (Script.push($0[0]) + Script.push($0[1]), []) }
        case .p2wpkh(let h): return keyHash(h, segwit: true).map { ([], $0) }
        case .p2wsh(let h): return wsh(h).map { ([], $0) }
        case .p2tr:
            return map.value(PSBTField.inTapKeySig).map { ([], [$0]) }
        case .p2sh(let h):
            guard let redeem, Hash.hash160(redeem) == h else { return nil }
            let pushRedeem = Script.push(redeem)
            switch ScriptTemplate(redeem) {
            case .p2wpkh(let kh): return keyHash(kh, segwit: true).map { (pushRedeem, $0) }
            case .p2wsh(let sh): return wsh(sh).map { (pushRedeem, $0) }
            default: return multisig(redeem).map { ([0x00] + $0.flatMap(Script.push) + pushRedeem, []) }
            }
        case .other: return nil
        }
    }

    static func isFinal(_ map: PSBT.Map) -> Bool {
        map.value(PSBTField.inFinalScriptSig) != nil || map.value(PSBTField.inFinalScriptWitness) != nil
    }

    /// Whether an input is finalized, or its signatures suffice to finalize it.
    public static func isComplete(_ map: PSBT.Map, utxo: BitcoinTx.Output) -> Bool { isFinal(map) || finalScripts(map, utxo: utxo) != nil }

    /// Every input finalized; an input that cannot be is named in the error.
    public static func finalized(_ psbt: PSBT) throws(PSBTSignError) -> PSBT {
        let utxos = try PSBTSigner().spentOutputs(psbt)
        var out = psbt
        var missing = [Int]()
        for (i, map) in psbt.inputs.enumerated() where !isFinal(map) {
            guard let (scriptSig, witness) = finalScripts(map, utxo: utxos[i]) else { missing.append(i); continue }
            out.inputs[i].remove { !keptWhenFinal($0.type, version: psbt.version) }
            if !scriptSig.isEmpty { out.inputs[i].insertInOrder(PSBT.Pair(type: PSBTField.inFinalScriptSig, value: scriptSig)) }
            if !witness.isEmpty {
                var w = SerialWriter()
                w.compactSize(witness.count)
                for item in witness { w.varBytes(item) }
                out.inputs[i].insertInOrder(PSBT.Pair(type: PSBTField.inFinalScriptWitness, value: w.out))
            }
        }
        guard missing.isEmpty else { throw .notComplete(inputs: missing) }
        return out
    }

    /// The fields a finalized input keeps: its UTXO, what Satchel does not know, and in version
    /// 2 what describes the input itself.
    static func keptWhenFinal(_ type: UInt64, version: UInt32) -> Bool {
        if type == PSBTField.inNonWitnessUtxo || type == PSBTField.inWitnessUtxo || type == PSBTField.proprietary { return true }
        if version == 2 && (PSBTField.inPreviousTxid...PSBTField.inRequiredHeightLocktime).contains(type) { return true }
        return PSBTField.rule(type, .input) == nil
    }

    /// The network transaction, its inputs finalized here where the PSBT has not (nil when one
    /// cannot be).
    /// `report`'s inputs are marked complete or not on the way.
    static func networkTransaction(_ psbt: PSBT, utxos: [BitcoinTx.Output], completing report: inout PSBTReport) -> BitcoinTx? {
        var tx = psbt.transaction
        var all = true
        for (i, map) in psbt.inputs.enumerated() {
            var done = true
            if isFinal(map) {
                (tx.inputs[i].scriptSig, tx.inputs[i].witness) = finalFields(map)
            } else if let (scriptSig, witness) = finalScripts(map, utxo: utxos[i]) {
                (tx.inputs[i].scriptSig, tx.inputs[i].witness) = (scriptSig, witness)
            } else {
                done = false
            }
            report.inputs[i].complete = done
            all = all && done
        }
        return all ? tx : nil
    }

    /// A finalized input's scriptSig and witness stack (whose shape was checked as the PSBT was read).
    static func finalFields(_ map: PSBT.Map) -> (scriptSig: [UInt8], witness: [[UInt8]]) {
        var witness = [[UInt8]]()
        if let w = map.value(PSBTField.inFinalScriptWitness) {
            var r = SerialReader(w)
            let n = (try? r.compactSize(maximum: r.remaining)) ?? 0
            witness = (0..<n).compactMap { _ in try? r.varBytes() }
        }
        return (map.value(PSBTField.inFinalScriptSig) ?? [], witness)
    }

    /// The network transaction of a finalized PSBT.
    public static func extract(_ psbt: PSBT) throws(PSBTSignError) -> BitcoinTx {
        var tx = psbt.transaction
        var missing = [Int]()
        for (i, map) in psbt.inputs.enumerated() {
            guard isFinal(map) else { missing.append(i); continue }
            (tx.inputs[i].scriptSig, tx.inputs[i].witness) = finalFields(map)
        }
        guard missing.isEmpty else { throw .notComplete(inputs: missing) }
        return tx
    }

    /// BIP141's virtual size: weight (non-witness bytes × 4 + witness bytes) / 4, rounded up.
    public static func vsize(_ tx: BitcoinTx) -> Int {
        let base = tx.serialized(witness: false).count, total = tx.serialized().count
        return (base * 3 + total + 3) / 4
    }

    /// The virtual size the transaction will have, from each input's script with signatures of
    /// the largest size (72-byte ECDSA, 64 or 65-byte Schnorr); nil when an input's script is
    /// not one this can size.
    public static func estimatedVsize(_ psbt: PSBT, utxos: [BitcoinTx.Output]) -> Int? {
        var tx = psbt.transaction
        for (i, map) in psbt.inputs.enumerated() {
            if isFinal(map) {
                (tx.inputs[i].scriptSig, tx.inputs[i].witness) = finalFields(map)
                continue
            }
            let ecdsa = [UInt8](repeating: 0, count: 73), key = [UInt8](repeating: 0, count: 33)
            let redeem = map.value(PSBTField.inRedeemScript), ws = map.value(PSBTField.inWitnessScript)
            func multisig(_ s: [UInt8]?) -> [[UInt8]]? {
                s.flatMap(Script.multisig).map { [[UInt8]](repeating: ecdsa, count: $0.required) }
            }
            switch ScriptTemplate(utxos[i].script) {
            case .p2pkh(let h):
                // The key the hash names, if the PSBT shows it; else an uncompressed key's 65
                // bytes (the largest), so that the fee rate is never overstated.
                let known = (map.all(PSBTField.inBIP32Derivation) + map.all(PSBTField.inPartialSig)).map(\.keyData).first {
                    Hash.hash160($0) == h
                }
                tx.inputs[i].scriptSig =
                    Script.push(ecdsa)
                    + Script.push(known.map { [UInt8](repeating: 0, count: $0.count) } ?? [UInt8](repeating: 0, count: 65))
            case .p2wpkh: tx.inputs[i].witness = [ecdsa, key]
            case .p2wsh:
                guard let ws, let sigs = multisig(ws) else { return nil }
                tx.inputs[i].witness = [[]] + sigs + [ws]
            case .p2tr:
                let type = map.value(PSBTField.inSighashType)?.littleEndianUInt32 ?? 0
                tx.inputs[i].witness = [[UInt8](repeating: 0, count: type == 0 ? 64 : 65)]
            case .p2sh:
                guard let redeem else { return nil }
                switch ScriptTemplate(redeem) {
                case .p2wpkh: tx.inputs[i].witness = [ecdsa, key]
                case .p2wsh:
                    guard let ws, let sigs = multisig(ws) else { return nil }
                    tx.inputs[i].witness = [[]] + sigs + [ws]
                default:
                    guard let sigs = multisig(redeem) else { return nil }
                    tx.inputs[i].scriptSig = [0x00] + sigs.flatMap(Script.push) + Script.push(redeem)
                    continue
                }
                tx.inputs[i].scriptSig = Script.push(redeem)
            case .other: return nil
            }
        }
        return vsize(tx)
    }
}

extension PSBT.Map {
    /// Adds a field after the last one of its type or a lower one, so that a map in type order
    /// (as every wallet writes them) stays so, and fields of one type keep the order they came
    /// in, as BIP174's examples do; a field with the same key is replaced where it is.
    public mutating func insertInOrder(_ pair: PSBT.Pair) {
        if let i = pairs.firstIndex(where: { $0.key == pair.key }) { pairs[i] = pair; return }
        let at = pairs.lastIndex { $0.type <= pair.type }.map { $0 + 1 } ?? 0
        pairs.insert(pair, at: at)
    }
}
