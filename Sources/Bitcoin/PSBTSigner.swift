import WalletCore
import WalletKeys

/// Why a PSBT was not signed. Each is found before any signature is made.
public enum PSBTSignError: WalletError, Equatable {
    /// An input without the output it spends: its amount, and so the fee, is unknown.
    case missingUTXO(input: Int)
    /// PSBT_IN_WITNESS_UTXO is not the output PSBT_IN_NON_WITNESS_UTXO says is spent.
    case witnessUTXOMismatch(input: Int, reason: String)
    /// A legacy input of ours with only PSBT_IN_WITNESS_UTXO: its amount is not signed, so unproven.
    case legacyNeedsPreviousTransaction(input: Int)
    /// A derivation field of our key whose path gives another public key.
    case wrongDerivation(map: String, path: String, claimed: String, derived: String)
    /// Our key, and a script that does not use it (or is not what the PSBT's scripts say).
    case scriptMismatch(input: Int, reason: String)
    case unsupportedScript(input: Int, reason: String)
    case sighashNotAllowed(input: Int, type: String)
    case negativeFee(inputs: UInt64, outputs: UInt64)
    case feeAboveLimit(fee: UInt64, limit: UInt64)
    /// A BIP44-style path whose coin type is another network's.
    case wrongNetwork(path: String, expected: UInt32)
    case nothingToSign
    case notComplete(inputs: [Int])
    /// A signature already in the PSBT that does not verify against its input's sighash.
    case badSignature(input: Int, field: String, key: String)
    /// Two inputs spend the same output: no valid transaction.
    case duplicateInput(first: Int, second: Int)
    /// A version 2 PSBT whose transaction version is below 2 (BIP370's Creator sets at least 2).
    case transactionVersion(Int32)
    /// A wallet descriptor whose key under our fingerprint is not ours, or with no key of ours.
    case notOurWallet(String)

    public var code: String {
        switch self {
        case .missingUTXO: "psbt.missing_utxo"
        case .witnessUTXOMismatch: "psbt.utxo_mismatch"
        case .legacyNeedsPreviousTransaction: "psbt.missing_utxo"
        case .wrongDerivation: "psbt.wrong_derivation"
        case .scriptMismatch: "psbt.script_mismatch"
        case .unsupportedScript: "psbt.unsupported_script"
        case .sighashNotAllowed: "psbt.sighash_not_allowed"
        case .negativeFee: "psbt.negative_fee"
        case .feeAboveLimit: "psbt.fee_above_limit"
        case .wrongNetwork: "psbt.wrong_network"
        case .nothingToSign: "psbt.nothing_to_sign"
        case .notComplete: "psbt.not_complete"
        case .badSignature: "psbt.bad_signature"
        case .duplicateInput: "psbt.duplicate_input"
        case .transactionVersion: "psbt.tx_version"
        case .notOurWallet: "psbt.not_our_wallet"
        }
    }

    public var message: String {
        switch self {
        case .missingUTXO(let i):
            "input \(i) has neither PSBT_IN_NON_WITNESS_UTXO nor PSBT_IN_WITNESS_UTXO: its amount, and so the fee, cannot be known (have the wallet that made the PSBT add them, e.g. Bitcoin Core's utxoupdatepsbt)"
        case .witnessUTXOMismatch(let i, let reason):
            "input \(i): \(reason) (a PSBT that lies about an amount can hide its fee: not signed)"
        case .legacyNeedsPreviousTransaction(let i):
            "input \(i) is not segwit, and a legacy signature does not commit to the amount: the PSBT must carry the previous transaction (PSBT_IN_NON_WITNESS_UTXO) to prove it"
        case .wrongDerivation(let map, let path, let claimed, let derived):
            "\(map): the derivation names our key at \(path) as \(claimed), and that path gives \(derived) (a wrong or forged PSBT: not signed)"
        case .scriptMismatch(let i, let reason): "input \(i): \(reason) (not signed)"
        case .unsupportedScript(let i, let reason): "input \(i): \(reason)"
        case .sighashNotAllowed(let i, let type):
            "input \(i) asks for SIGHASH_\(type), which lets others change what this signature covers: sign it only on purpose, with --allow-sighash"
        case .negativeFee(let inputs, let outputs):
            "the outputs (\(outputs) satoshis) are more than the inputs (\(inputs)): not a valid transaction"
        case .feeAboveLimit(let fee, let limit): "the fee is \(fee) satoshis, more than the limit of \(limit) (--max-fee): not signed"
        case .wrongNetwork(let path, let expected):
            "our key's path \(path) has another network's coin type (this network's is \(expected)'): give the PSBT's network (--coin, --network)"
        case .nothingToSign:
            "none of this PSBT's inputs names a key of ours (no PSBT_IN_BIP32_DERIVATION or PSBT_IN_TAP_BIP32_DERIVATION with our master fingerprint)"
        case .badSignature(let i, let field, let key):
            "input \(i): the \(field) already in the PSBT for key \(key) does not verify against the input's sighash (a corrupted or forged PSBT; a signature that does not verify cannot make the input complete): not signed"
        case .duplicateInput(let first, let second):
            "inputs \(first) and \(second) spend the same output: no valid transaction does, and its amount would be counted twice in the fee"
        case .transactionVersion(let v):
            "a version 2 PSBT with transaction version \(v): BIP370's Creator sets at least 2, so this PSBT was not made by one (policy: not signed)"
        case .notOurWallet(let why): "the wallet descriptor \(why): its change would not be ours"
        case .notComplete(let inputs):
            "--finalize: input\(inputs.count == 1 ? "" : "s") \(inputs.map(String.init).joined(separator: ", ")) still lack\(inputs.count == 1 ? "s" : "") signatures; the signed PSBT goes on to the other signers"
        }
    }
}

/// What a signer saw in a PSBT, for a person (or a script) to check before anything is signed:
/// every input (ours or not, amount, our keys' paths), every output (amount, script, whether our
/// own keys alone can spend it), the fee and the transaction's size.
public struct PSBTReport: Sendable {
    public struct Input: Sendable {
        public let index: Int
        public let previousTxID: [UInt8]
        public let previousIndex: UInt32
        public let amount: UInt64
        public let script: [UInt8]
        /// p2pkh, p2sh, p2sh-p2wpkh, p2sh-p2wsh, p2wpkh, p2wsh, p2tr or unknown.
        public let kind: String
        /// Our keys' paths in this input.
        public let paths: [String]
        /// The sighash type our signatures will use (nil: not ours).
        public let sighash: UInt32?
        /// Signatures added by this signer.
        public internal(set) var signed = 0
        /// Whether the input has every signature it needs (or was finalized already).
        public internal(set) var complete = false
        public var ours: Bool { !paths.isEmpty }
    }

    public struct Output: Sendable {
        public let index: Int
        public let amount: UInt64
        public let script: [UInt8]
        /// Our keys alone can spend it: the script was built again from keys derived here, never
        /// taken on the PSBT's word.
        public let change: Bool
        public let paths: [String]
        /// The wallet (a `PSBTSigner.wallets` index) whose change it is, for a multisig output.
        public var wallet: Int?
    }

    public let version: UInt32
    public internal(set) var inputs: [Input]
    public let outputs: [Output]
    public let fee: UInt64
    /// The virtual size: exact once every input is complete, otherwise estimated from each
    /// input's script (nil when one cannot be estimated).
    public internal(set) var vsize: Int?
    public internal(set) var vsizeEstimated = true

    public var complete: Bool { inputs.allSatisfy(\.complete) }
}

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
    public func sign(_ psbt: PSBT, keys: PSBTKeyring, confirm: (PSBTReport) throws -> Void) throws -> (psbt: PSBT, report: PSBTReport) {
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
            let (kind, inputTasks, paths, sighash) = try plan(input: i, map: map, utxo: utxos[i], outputCount: tx.outputs.count, keys: keys)
            tasks.append(inputTasks)
            for path in paths { if let account = Self.account(path) { accounts.insert(account) } }
            reportInputs.append(
                PSBTReport.Input(
                    index: i, previousTxID: tx.inputs[i].previousTxID, previousIndex: tx.inputs[i].previousIndex,
                    amount: utxos[i].value, script: utxos[i].script, kind: kind,
                    paths: paths.map { DerivationPath($0).description }, sighash: sighash))
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
        let outputs = try psbt.outputs.enumerated().map {
            try change(
                output: $0.offset, map: $0.element, script: tx.outputs[$0.offset].script, amount: tx.outputs[$0.offset].value, keys: keys,
                accounts: accounts)
        }
        report = PSBTReport(version: psbt.version, inputs: reportInputs, outputs: outputs, fee: fee, vsize: nil)
        for i in report.inputs.indices { report.inputs[i].complete = PSBTFinalizer.isComplete(psbt.inputs[i], utxo: utxos[i]) }
        report.vsize = PSBTFinalizer.estimatedVsize(psbt, utxos: utxos)
        try confirm(report)

        var signed = psbt
        for (i, inputTasks) in tasks.enumerated() {
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

    /// Our derivations in a map: (public key bytes as the field gives them, path), each checked
    /// against the key its path gives.
    static func ourKeys(
        _ map: PSBT.Map, type: UInt64, tapType: UInt64, name: String, keys: PSBTKeyring
    ) throws -> (ecdsa: [([UInt8], [UInt32])], taproot: [(xOnly: [UInt8], leaves: Int, path: [UInt32])]) {
        var ecdsa = [([UInt8], [UInt32])](), taproot = [([UInt8], Int, [UInt32])]()
        for pair in map.pairs where pair.type == type || pair.type == tapType {
            var origin = pair.value, leaves = 0
            if pair.type == tapType {
                var r = SerialReader(pair.value)
                leaves = (try? r.compactSize(maximum: r.remaining / 32)) ?? 0
                origin = Array(pair.value[(r.at + 32 * leaves)...])
            }
            let fingerprint = Array(origin.prefix(4))
            let path = stride(from: 4, to: origin.count, by: 4).map { Array(origin[$0..<$0 + 4]).littleEndianUInt32 }
            guard keys.owns(fingerprint: fingerprint, path: path) else { continue }
            let derived = try keys.publicKey(at: path)
            if pair.type == type {
                let given = pair.keyData.count == 65 ? derived.uncompressed : derived.compressed
                guard given == pair.keyData else {
                    throw PSBTSignError.wrongDerivation(
                        map: name, path: DerivationPath(path).description, claimed: Hex.encode(pair.keyData), derived: Hex.encode(given))
                }
                ecdsa.append((pair.keyData, path))
            } else {
                let xOnly = Array(derived.compressed.dropFirst())
                guard xOnly == pair.keyData else {
                    throw PSBTSignError.wrongDerivation(
                        map: name, path: DerivationPath(path).description, claimed: Hex.encode(pair.keyData), derived: Hex.encode(xOnly))
                }
                taproot.append((pair.keyData, leaves, path))
            }
        }
        return (ecdsa, taproot)
    }

    func checkNetwork(_ path: [UInt32]) throws(PSBTSignError) {
        let h = DerivationPath.hardened
        guard let coinType, path.count >= 2, [44, 49, 84, 86, 48, 352].map({ $0 + h }).contains(path[0]), path[1] >= h else { return }
        if path[1] - h != coinType { throw .wrongNetwork(path: DerivationPath(path).description, expected: coinType) }
    }

    /// An input's kind, the signatures to make, our paths and the sighash type.
    func plan(
        input i: Int, map: PSBT.Map, utxo: BitcoinTx.Output, outputCount: Int, keys: PSBTKeyring
    ) throws -> (String, [Task], [[UInt32]], UInt32?) {
        if let tweak = map.value(PSBTField.inSPTweak) {
            return try silentPaymentPlan(input: i, map: map, utxo: utxo, outputCount: outputCount, tweak: tweak, keys: keys)
        }
        let (ecdsa, taproot) = try Self.ourKeys(
            map, type: PSBTField.inBIP32Derivation, tapType: PSBTField.inTapBIP32Derivation, name: "input \(i)", keys: keys)
        let redeem = map.value(PSBTField.inRedeemScript), witnessScript = map.value(PSBTField.inWitnessScript)
        let kind = Self.kind(utxo.script, redeem: redeem)
        let paths = ecdsa.map(\.1) + taproot.map(\.path)
        for p in paths { try checkNetwork(p) }
        let finalized = map.value(PSBTField.inFinalScriptSig) != nil || map.value(PSBTField.inFinalScriptWitness) != nil
        if paths.isEmpty || finalized { return (kind, [], paths, nil) }

        let isTaproot = if case .p2tr = ScriptTemplate(utxo.script) { true } else { false }
        let type = try sighashType(input: i, map: map, taproot: isTaproot, outputCount: outputCount)

        var tasks = [Task]()
        let existing = Set(map.all(PSBTField.inPartialSig).map(\.keyData))
        func mismatch(_ reason: String) -> PSBTSignError { .scriptMismatch(input: i, reason: reason) }
        /// ECDSA tasks for our keys that `script` (a multisig or other script) pushes.
        func scriptTasks(_ script: [UInt8], segwit: Bool) throws -> [Task] {
            let pushed = Set(Script.pushes(script) ?? [])
            var out = [Task]()
            for (key, path) in ecdsa {
                guard pushed.contains(key) else {
                    throw mismatch("our key \(Hex.encode(key)) (\(DerivationPath(path))) is not in its script \(Hex.encode(script))")
                }
                if segwit && key.count != 33 { throw mismatch("an uncompressed key cannot sign a segwit input") }
                if existing.contains(key) { continue }
                out.append(
                    .ecdsa(
                        publicKey: key, path: path,
                        sighash: segwit ? .segwitV0(scriptCode: script, amount: utxo.value) : .legacy(scriptCode: script)))
            }
            return out
        }
        func keyHashTask(_ hash: [UInt8], segwit: Bool) throws -> [Task] {
            var out = [Task]()
            for (key, path) in ecdsa {
                guard Hash.hash160(key) == hash else {
                    throw mismatch(
                        "it pays key hash \(Hex.encode(hash)), and our key \(Hex.encode(key)) (\(DerivationPath(path))) hashes to \(Hex.encode(Hash.hash160(key)))"
                    )
                }
                if segwit && key.count != 33 { throw mismatch("an uncompressed key cannot sign a segwit input") }
                if existing.contains(key) { continue }
                let code = ScriptTemplate.p2pkh(hash)
                out.append(
                    .ecdsa(
                        publicKey: key, path: path,
                        sighash: segwit ? .segwitV0(scriptCode: code, amount: utxo.value) : .legacy(scriptCode: code)))
            }
            return out
        }
        func witnessScriptTasks(_ programHash: [UInt8]) throws -> [Task] {
            guard let ws = witnessScript else { throw mismatch("a P2WSH input with no PSBT_IN_WITNESS_SCRIPT") }
            guard Hash.sha256(ws) == programHash else { throw mismatch("PSBT_IN_WITNESS_SCRIPT does not hash to the script's program") }
            return try scriptTasks(ws, segwit: true)
        }
        if !taproot.isEmpty && !isTaproot { throw mismatch("a taproot derivation of ours on an input that is not P2TR") }
        let legacyProof = map.value(PSBTField.inNonWitnessUtxo) != nil
        switch ScriptTemplate(utxo.script) {
        case .p2pkh(let h):
            guard legacyProof else { throw PSBTSignError.legacyNeedsPreviousTransaction(input: i) }
            tasks = try keyHashTask(h, segwit: false)
        case .p2wpkh(let h):
            tasks = try keyHashTask(h, segwit: true)
        case .p2wsh(let h):
            tasks = try witnessScriptTasks(h)
        case .p2sh(let h):
            guard let redeem else { throw mismatch("a P2SH input with no PSBT_IN_REDEEM_SCRIPT") }
            guard Hash.hash160(redeem) == h else { throw mismatch("PSBT_IN_REDEEM_SCRIPT does not hash to the script's hash") }
            switch ScriptTemplate(redeem) {
            case .p2wpkh(let kh): tasks = try keyHashTask(kh, segwit: true)
            case .p2wsh(let sh): tasks = try witnessScriptTasks(sh)
            case .p2sh, .p2tr:
                throw PSBTSignError.unsupportedScript(
                    input: i, reason: "a P2SH redeem script that is \(Self.kind(redeem, redeem: nil)) cannot be spent")
            case .p2pkh, .other:
                guard legacyProof else { throw PSBTSignError.legacyNeedsPreviousTransaction(input: i) }
                tasks = try scriptTasks(redeem, segwit: false)
            }
        case .p2tr(let outputKey):
            guard ecdsa.isEmpty else { throw mismatch("an ECDSA derivation of ours on a P2TR input") }
            guard let internalKey = map.value(PSBTField.inTapInternalKey) else {
                throw mismatch("a P2TR input with no PSBT_IN_TAP_INTERNAL_KEY")
            }
            let merkleRoot = map.value(PSBTField.inTapMerkleRoot)
            let tweaked = try Secp256k1.PublicKey(parsing: [0x02] + internalKey).taprootOutputKey(merkleRoot: merkleRoot)
            guard tweaked == outputKey else {
                throw mismatch(
                    "its output key is not PSBT_IN_TAP_INTERNAL_KEY tweaked\(merkleRoot == nil ? "" : " with PSBT_IN_TAP_MERKLE_ROOT")")
            }
            let keyPath = taproot.filter { $0.xOnly == internalKey }
            guard !keyPath.isEmpty else {
                throw PSBTSignError.unsupportedScript(
                    input: i, reason: "our key is in a script path of this taproot output; Satchel signs the key path only")
            }
            guard keys.signsSchnorr else {
                throw PSBTSignError.unsupportedScript(
                    input: i,
                    reason:
                        "a taproot input needs a BIP340 signature, which the signing device does not make (a Keycard of applet 3.x signs ECDSA only)"
                )
            }
            if map.value(PSBTField.inTapKeySig) == nil { tasks = [.schnorr(path: keyPath[0].path, key: .taproot(merkleRoot: merkleRoot))] }
        case .other:
            throw PSBTSignError.unsupportedScript(input: i, reason: "it spends a script Satchel does not sign (\(Hex.encode(utxo.script)))")
        }
        return (kind, tasks, paths, type)
    }

    /// An input spending a silent payment output (BIP376's PSBT_IN_SP_TWEAK): ours when a
    /// PSBT_IN_SP_SPEND_BIP32_DERIVATION names our spend key (a zero fingerprint with no path:
    /// BIP352's spend key of an account of this seed, found by its public key), and signed only
    /// once the spent output's key is the spend key plus the tweak, computed here.
    func silentPaymentPlan(
        input i: Int, map: PSBT.Map, utxo: BitcoinTx.Output, outputCount: Int, tweak: [UInt8], keys: PSBTKeyring
    ) throws -> (String, [Task], [[UInt32]], UInt32?) {
        let kind = "p2tr-silent-payment"
        func mismatch(_ reason: String) -> PSBTSignError { .scriptMismatch(input: i, reason: reason) }
        guard case .p2tr(let outputKey) = ScriptTemplate(utxo.script) else {
            throw mismatch("PSBT_IN_SP_TWEAK on an input that does not spend a P2TR output")
        }
        // The input's other derivations of ours are held to their keys and network as on any
        // input (a wrong one refused, never skipped because the tweak's field is there).
        let (ecdsa, taproot) = try Self.ourKeys(
            map, type: PSBTField.inBIP32Derivation, tapType: PSBTField.inTapBIP32Derivation, name: "input \(i)", keys: keys)
        for p in ecdsa.map(\.1) + taproot.map(\.path) { try checkNetwork(p) }
        var spend: (path: [UInt32], key: Secp256k1.PublicKey)?
        for pair in map.all(PSBTField.inSPSpendBIP32Derivation) {
            let fingerprint = Array(pair.value.prefix(4))
            var path = stride(from: 4, to: pair.value.count, by: 4).map { Array(pair.value[$0..<$0 + 4]).littleEndianUInt32 }
            if fingerprint == [0, 0, 0, 0] && path.isEmpty {
                // BIP352's spend path of accounts 0-19, on the network's coin type (0 or 1).
                let coin: UInt32 = (coinType ?? 0) == 0 ? 0 : 1
                guard
                    let found = try (0..<20).lazy.map({ SilentPayment.spendPath(coinType: coin, account: $0).components }).first(where: {
                        try keys.publicKey(at: $0).compressed == pair.keyData
                    })
                else { continue }
                path = found
            } else if !keys.owns(fingerprint: fingerprint, path: path) {
                continue
            }
            let derived = try keys.publicKey(at: path)
            guard derived.compressed == pair.keyData else {
                throw PSBTSignError.wrongDerivation(
                    map: "input \(i)", path: DerivationPath(path).description, claimed: Hex.encode(pair.keyData),
                    derived: Hex.encode(derived.compressed))
            }
            spend = (path, derived)
        }
        guard let spend else { return (kind, [], [], nil) }
        try checkNetwork(spend.path)
        guard (try? spend.key.adding(tweak: tweak))?.xOnly == outputKey else {
            throw mismatch("its output key is not our spend key (\(DerivationPath(spend.path))) plus PSBT_IN_SP_TWEAK")
        }
        let type = try sighashType(input: i, map: map, taproot: true, outputCount: outputCount)
        guard keys.signsTweaked else {
            throw PSBTSignError.unsupportedScript(
                input: i, reason: "a silent payment output needs its spend key plus a tweak, which the signing device cannot sign with")
        }
        let finalized = map.value(PSBTField.inFinalScriptSig) != nil || map.value(PSBTField.inFinalScriptWitness) != nil
        let tasks: [Task] =
            finalized || map.value(PSBTField.inTapKeySig) != nil ? [] : [.schnorr(path: spend.path, key: .silentPayment(tweak: tweak))]
        return (kind, tasks, [spend.path], type)
    }

    /// The input's sighash type (ALL, or taproot's DEFAULT, when the PSBT gives none): one
    /// that commits to every input and output unless the user allowed others, and never
    /// SINGLE without its output.
    func sighashType(input i: Int, map: PSBT.Map, taproot: Bool, outputCount: Int) throws -> UInt32 {
        let type = map.value(PSBTField.inSighashType)?.littleEndianUInt32 ?? (taproot ? Sighash.taprootDefault : Sighash.all)
        let allowed: Set<UInt32> = taproot ? [Sighash.taprootDefault, Sighash.all] : [Sighash.all]
        if !allowed.contains(type) && !allowOtherSighash { throw PSBTSignError.sighashNotAllowed(input: i, type: Self.sighashName(type)) }
        try Sighash.check(type, taproot: taproot)
        if Sighash.base(type) == Sighash.single && i >= outputCount { throw Sighash.Failure.singleWithoutOutput(input: i) }
        return type
    }

    /// ALL, NONE, SINGLE (each maybe |ANYONECANPAY) or taproot's DEFAULT.
    public static func sighashName(_ type: UInt32) -> String {
        let base = ["DEFAULT", "ALL", "NONE", "SINGLE"][Int(min(type & 0x1F, 3))]
        return type & Sighash.anyoneCanPay != 0 ? base + "|ANYONECANPAY" : base
    }

    /// The name of a spent script's kind, the redeem script's inside P2SH.
    static func kind(_ script: [UInt8], redeem: [UInt8]?) -> String {
        switch ScriptTemplate(script) {
        case .p2pkh: "p2pkh"
        case .p2wpkh: "p2wpkh"
        case .p2wsh: "p2wsh"
        case .p2tr: "p2tr"
        case .other: "unknown"
        case .p2sh:
            switch redeem.map(ScriptTemplate.init) {
            case .p2wpkh?: "p2sh-p2wpkh"
            case .p2wsh?: "p2sh-p2wsh"
            default: "p2sh"
            }
        }
    }

    /// The highest change index (chain 1) an output may have to be shown as change: a wallet
    /// finds its addresses by walking each chain with a gap limit, and an output at an index
    /// far past any it walks is money it would never see.
    public static let changeIndexLimit: UInt32 = 100_000

    /// The account a path of ours is in: every step but the chain and index (purpose, coin
    /// type, account and, for BIP48, the script type), all hardened; nil for a path of another shape.
    static func account(_ path: [UInt32]) -> [UInt32]? {
        let h = DerivationPath.hardened
        guard path.count >= 5, path.dropLast(2).allSatisfy({ $0 >= h }) else { return nil }
        return Array(path.dropLast(2))
    }

    /// Each wallet holds a key of ours, and every key under our fingerprint is the one our seed
    /// gives at its origin (else its "change" could be a stranger's).
    func checkWallets(keys: PSBTKeyring) throws {
        for wallet in wallets {
            var ours = 0
            for c in wallet.cosigners where keys.owns(fingerprint: c.fingerprint, path: c.path.components) {
                guard try keys.publicKey(at: c.path.components).compressed == c.key.publicKey.compressed else {
                    throw PSBTSignError.notOurWallet("names our fingerprint at \(c.path) with another key")
                }
                ours += 1
            }
            guard ours > 0 else { throw PSBTSignError.notOurWallet("holds no key of ours (no key origin with our fingerprint)") }
        }
    }

    /// The wallet whose change a multisig output is: a wallet whose key of ours (at whose
    /// origin one of `paths`, our verified derivations in the output, lies) places it at chain 1
    /// below the index bound in an account this run signs for, and gives exactly this script there.
    func walletChange(paths: [[UInt32]], script: [UInt8], keys: PSBTKeyring, accounts: Set<[UInt32]>) throws -> Int? {
        for path in paths {
            guard let account = Self.account(path), accounts.contains(account) else { continue }
            for (w, wallet) in wallets.enumerated() {
                for c in wallet.cosigners where keys.owns(fingerprint: c.fingerprint, path: path) {
                    guard let place = wallet.place(fingerprint: c.fingerprint, path: path), place.chain == 1,
                        place.index < Self.changeIndexLimit
                    else { continue }
                    if try wallet.script(chain: 1, index: place.index).scriptPubKey == script { return w }
                }
            }
        }
        return nil
    }

    /// Whether a path of ours in an output is a change address of an account this run signs
    /// for: that account's chain 1, an unhardened index below `changeIndexLimit`.
    static func isChangePath(_ path: [UInt32], accounts: Set<[UInt32]>) -> Bool {
        guard let account = account(path), accounts.contains(account) else { return false }
        return path[path.count - 2] == 1 && path.last! < changeIndexLimit
    }

    /// Whether an output is ours alone to spend: its script built again from keys derived here,
    /// each at a change path of an account this run signs for, and no set of other keys able to
    /// spend it. When in doubt, a payment.
    func change(
        output o: Int, map: PSBT.Map, script: [UInt8], amount: UInt64, keys: PSBTKeyring, accounts: Set<[UInt32]>
    ) throws -> PSBTReport.Output {
        let (allECDSA, allTaproot) = try Self.ourKeys(
            map, type: PSBTField.outBIP32Derivation, tapType: PSBTField.outTapBIP32Derivation, name: "output \(o)", keys: keys)
        let paths = allECDSA.map { DerivationPath($0.1).description } + allTaproot.map { DerivationPath($0.path).description }
        // Keys of ours at any other path (another account, a receive address, m itself) are
        // not counted as ours here: what they pay is shown as a payment.
        let ecdsa = allECDSA.filter { Self.isChangePath($0.1, accounts: accounts) }
        let taproot = allTaproot.filter { Self.isChangePath($0.path, accounts: accounts) }
        let ours = Set(ecdsa.map(\.0))
        func keyHashIsOurs(_ h: [UInt8], segwit: Bool) -> Bool { ours.contains { Hash.hash160($0) == h && (!segwit || $0.count == 33) } }
        /// A multisig whose threshold our keys meet alone, and other keys cannot.
        func scriptIsOurs(_ s: [UInt8]) -> Bool {
            guard let (m, keys) = Script.multisig(s) else { return false }
            let mine = keys.filter(ours.contains).count
            return mine >= m && keys.count - mine < m
        }
        let redeem = map.value(PSBTField.outRedeemScript), ws = map.value(PSBTField.outWitnessScript)
        func witnessIsOurs(_ h: [UInt8]) -> Bool { ws.map { Hash.sha256($0) == h && scriptIsOurs($0) } ?? false }
        var change = false
        switch ScriptTemplate(script) {
        case .p2pkh(let h): change = keyHashIsOurs(h, segwit: false)
        case .p2wpkh(let h): change = keyHashIsOurs(h, segwit: true)
        case .p2wsh(let h): change = witnessIsOurs(h)
        case .p2sh(let h):
            if let redeem, Hash.hash160(redeem) == h {
                switch ScriptTemplate(redeem) {
                case .p2wpkh(let kh): change = keyHashIsOurs(kh, segwit: true)
                case .p2wsh(let sh): change = witnessIsOurs(sh)
                default: change = scriptIsOurs(redeem)
                }
            }
        case .p2tr(let outputKey):
            // Key path only: a script tree could let others spend it.
            if map.value(PSBTField.outTapTree) == nil, let internalKey = map.value(PSBTField.outTapInternalKey),
                taproot.contains(where: { $0.xOnly == internalKey }),
                let tweaked = try? Secp256k1.PublicKey(parsing: [0x02] + internalKey).taprootOutputKey()
            {
                change = tweaked == outputKey
            }
        case .other: break
        }
        var wallet: Int?
        if !change, !wallets.isEmpty, let w = try walletChange(paths: allECDSA.map(\.1), script: script, keys: keys, accounts: accounts) {
            (change, wallet) = (true, w)
        }
        return PSBTReport.Output(index: o, amount: amount, script: script, change: change, paths: paths, wallet: wallet)
    }
}
