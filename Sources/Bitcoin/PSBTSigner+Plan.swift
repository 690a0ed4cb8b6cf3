import WalletCore
import WalletKeys
import WalletCrypto

/// Each input's plan: what it is, which of our keys sign it and how, checked first.
extension PSBTSigner {
    /// An input's plan: its kind, the signatures to make, our keys' paths on it, and the sighash
    /// type they sign with (nil when nothing is to be signed).
    struct InputPlan {
        let kind: String
        let tasks: [Task]
        let paths: [[UInt32]]
        let sighashType: UInt32?
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

    /// The input's plan (`InputPlan`), every derivation of ours on it checked first.
    func plan(
        input i: Int, map: PSBT.Map, utxo: BitcoinTx.Output, outputCount: Int, keys: PSBTKeyring
    ) throws -> InputPlan {
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
        if paths.isEmpty || finalized { return InputPlan(kind: kind, tasks: [], paths: paths, sighashType: nil) }

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
        return InputPlan(kind: kind, tasks: tasks, paths: paths, sighashType: type)
    }

    /// An input spending a silent payment output (BIP376's PSBT_IN_SP_TWEAK): ours when a
    /// PSBT_IN_SP_SPEND_BIP32_DERIVATION names our spend key (a zero fingerprint with no path:
    /// BIP352's spend key of an account of this seed, found by its public key), and signed only
    /// once the spent output's key is the spend key plus the tweak, computed here.
    func silentPaymentPlan(
        input i: Int, map: PSBT.Map, utxo: BitcoinTx.Output, outputCount: Int, tweak: [UInt8], keys: PSBTKeyring
    ) throws -> InputPlan {
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
        guard let spend else { return InputPlan(kind: kind, tasks: [], paths: [], sighashType: nil) }
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
        return InputPlan(kind: kind, tasks: tasks, paths: [spend.path], sighashType: type)
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
}
