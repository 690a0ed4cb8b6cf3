import WalletCore
import WalletCrypto

/// BIP375 (version 0.1.2; bitcoin/bips bip-0375.mediawiki and its validator): a PSBT version 2
/// that pays silent payment addresses. Each such output carries the address's keys
/// (PSBT_OUT_SP_V0_INFO) and no script until every eligible input's key is in an ECDH share
/// a·B_scan, each with a BIP374 proof; then anyone computes the scripts from the shares
/// (BIP352's outputs with a·B_scan replaced by the shares' sum), and no signature is made before.
///
/// `validate` holds a PSBT to BIP375's four checks, each failure naming its check as the BIP's
/// vectors do; `contribute` is the Signer's part: our inputs' shares and proofs, the other
/// inputs' proofs verified, the scripts computed (or the ones present checked) once all shares
/// are in, and the modifiable flags cleared.
public enum SilentPaymentPSBT {
    /// BIP375's checks, named as its test vectors name them.
    public enum Check: String, Sendable, CaseIterable {
        case structure = "psbt structure"
        case ecdhCoverage = "ecdh coverage"
        case inputEligibility = "input eligibility"
        case outputScripts = "output scripts"
    }

    public struct Failure: WalletError, Equatable {
        public let check: Check
        public let reason: String

        public init(_ check: Check, _ reason: String) { (self.check, self.reason) = (check, reason) }

        public var code: String { "psbt.silent_payment" }
        public var message: String { "a PSBT paying a silent payment address (BIP375, \(check.rawValue)): \(reason)" }
    }

    /// A silent payment output: the address's keys, its label (for change), and its script
    /// (nil until computed).
    public struct Output: Sendable, Equatable {
        public let index: Int
        public let scanKey: Secp256k1.PublicKey
        /// B_m: the address's spend key (B_spend plus the label's point for a labeled address).
        public let spendKey: Secp256k1.PublicKey
        public let label: UInt32?
        public let script: [UInt8]?
    }

    /// The PSBT's silent payment outputs (their fields were checked as it was read).
    public static func outputs(_ psbt: PSBT) -> [Output] {
        psbt.outputs.enumerated().compactMap { index, map in
            guard let info = map.value(PSBTField.outSPV0Info), info.count == 66,
                let scan = try? Secp256k1.PublicKey(parsing: Array(info[0..<33])),
                let spend = try? Secp256k1.PublicKey(parsing: Array(info[33...]))
            else { return nil }
            return Output(
                index: index, scanKey: scan, spendKey: spend, label: map.value(PSBTField.outSPV0Label)?.littleEndianUInt32,
                script: map.value(PSBTField.outScript))
        }
    }

    /// How an input counts for BIP352: not at all, or by its public key A (nil: eligible, but the
    /// PSBT does not give the key).
    enum Eligibility: Equatable {
        case ineligible
        case eligible(Secp256k1.PublicKey?)

        var isEligible: Bool { self != .ineligible }
    }

    /// The script an input spends, as its UTXO fields give it.
    static func spentScript(_ psbt: PSBT, input i: Int) -> [UInt8]? {
        let map = psbt.inputs[i]
        if let witness = map.value(PSBTField.inWitnessUtxo).flatMap(PSBTSigner.txOut) { return witness.script }
        guard let raw = map.value(PSBTField.inNonWitnessUtxo), let previous = try? BitcoinTx(parsing: raw) else { return nil }
        let index = Int(psbt.transaction.inputs[i].previousIndex)
        return previous.outputs.indices.contains(index) ? previous.outputs[index].script : nil
    }

    /// BIP352's input kinds: P2PKH, P2WPKH and P2SH-P2WPKH by their key (a derivation's 33-byte
    /// key), P2TR by its output key unless its internal key is the NUMS point H; nothing else.
    ///
    /// `strict` (the signer's rule, beyond BIP375's validator): the key must be the one the
    /// script pays. The transaction's input will carry that key, and a receiver computes the
    /// outputs from it: shares of any other key pay outputs nobody finds. (Most of BIP375's
    /// P2WPKH vectors name a key their witness UTXO does not pay.)
    static func eligibility(_ psbt: PSBT, input i: Int, strict: Bool) throws(Failure) -> Eligibility {
        guard let script = spentScript(psbt, input: i) else {
            throw Failure(
                .inputEligibility, "input \(i) has no PSBT_IN_WITNESS_UTXO or PSBT_IN_NON_WITNESS_UTXO: what it spends is unknown")
        }
        let map = psbt.inputs[i]
        func key(hash: [UInt8]) throws(Failure) -> Eligibility {
            let keys = map.all(PSBTField.inBIP32Derivation).filter { $0.keyData.count == 33 }.map(\.keyData)
            guard strict else { return .eligible(keys.first.flatMap { try? Secp256k1.PublicKey(parsing: $0) }) }
            if let paid = keys.first(where: { Hash.hash160($0) == hash }) { return .eligible(try? Secp256k1.PublicKey(parsing: paid)) }
            if let other = keys.first {
                throw Failure(
                    .inputEligibility,
                    "input \(i)'s key \(Hex.encode(other)) (PSBT_IN_BIP32_DERIVATION) is not the one its script pays: outputs computed from it would be found by nobody"
                )
            }
            return .eligible(nil)
        }
        switch ScriptTemplate(script) {
        case .p2pkh(let h), .p2wpkh(let h): return try key(hash: h)
        case .p2sh(let h):
            guard let redeem = map.value(PSBTField.inRedeemScript), Hash.hash160(redeem) == h else {
                throw Failure(
                    .inputEligibility, "input \(i) spends a P2SH output without its redeem script: whether it counts cannot be told")
            }
            if case .p2wpkh(let kh) = ScriptTemplate(redeem) { return try key(hash: kh) }
            return .ineligible
        case .p2tr(let outputKey):
            if map.value(PSBTField.inTapInternalKey) == SilentPayment.numsH { return .ineligible }
            return .eligible(try? Secp256k1.PublicKey(xOnly: outputKey))
        default: return .ineligible
        }
    }

    /// Holds `psbt` to BIP375's checks (all, or `checks`); a PSBT with no silent payment
    /// output passes. `strict`: each input key must be the one its script pays (the signer's
    /// rule; BIP375's validator, and its vectors, take a derivation's key on its word).
    public static func validate(_ psbt: PSBT, checks: Set<Check> = Set(Check.allCases), strict: Bool = true) throws(Failure) {
        let outputs = outputs(psbt)
        guard !outputs.isEmpty else { return }
        if checks.contains(.structure) { try structure(psbt, outputs) }
        // The coverage (every proof verified) once, for both checks that need it.
        var shared: [[UInt8]: Secp256k1.PublicKey]?, inputs: [Eligibility] = []
        if checks.contains(.ecdhCoverage) || checks.contains(.outputScripts) { inputs = try inputKeys(psbt, strict: strict) }
        if checks.contains(.ecdhCoverage) { shared = try coverage(psbt, outputs, inputs) }
        if checks.contains(.inputEligibility) { try eligibility(psbt) }
        if checks.contains(.outputScripts) {
            if shared == nil { shared = try coverage(psbt, outputs, inputs) }
            _ = try scripts(psbt, outputs, inputs, shared: shared!)
        }
    }

    static func inputKeys(_ psbt: PSBT, strict: Bool) throws(Failure) -> [Eligibility] {
        try psbt.inputs.indices.map { i throws(Failure) in try eligibility(psbt, input: i, strict: strict) }
    }

    /// What the PSBT's reading did not check: a computed script means a fixed transaction.
    static func structure(_ psbt: PSBT, _ outputs: [Output]) throws(Failure) {
        if let done = outputs.first(where: { $0.script != nil }), psbt.global.value(PSBTField.globalTxModifiable) != [0] {
            throw Failure(
                .structure, "output \(done.index)'s script is computed, and PSBT_GLOBAL_TX_MODIFIABLE is not 0 (inputs and outputs fixed)")
        }
    }

    /// No input spends a segwit v2+ output; every hash type given, and every signature's, is
    /// SIGHASH_ALL (another would let the outputs the scripts were computed for change).
    static func eligibility(_ psbt: PSBT) throws(Failure) {
        for (i, map) in psbt.inputs.enumerated() {
            if let s = spentScript(psbt, input: i), (4...42).contains(s.count), (0x52...0x60).contains(s[0]), Int(s[1]) == s.count - 2 {
                throw Failure(.inputEligibility, "input \(i) spends a segwit version \(s[0] - 0x50) output, which BIP352 leaves undefined")
            }
            if let type = map.value(PSBTField.inSighashType), type.littleEndianUInt32 != Sighash.all {
                throw Failure(
                    .inputEligibility, "input \(i) asks for SIGHASH_\(PSBTSigner.sighashName(type.littleEndianUInt32)); only ALL is allowed"
                )
            }
            let types =
                map.all(PSBTField.inPartialSig).compactMap(\.value.last)
                + map.all(PSBTField.inTapKeySig).filter { $0.value.count == 65 }.map { $0.value[64] }
            if let other = types.first(where: { UInt32($0) != Sighash.all }) {
                throw Failure(
                    .inputEligibility, "input \(i) has a signature of SIGHASH_\(PSBTSigner.sighashName(UInt32(other))); only ALL is allowed"
                )
            }
        }
    }

    static func share(_ map: PSBT.Map, _ type: UInt64, _ scan: Secp256k1.PublicKey) -> [UInt8]? {
        let key = scan.compressed
        return map.pairs.first { $0.type == type && $0.keyData == key }?.value
    }

    /// The sum A of every eligible input's key, each required.
    static func inputKeySum(_ inputs: [Eligibility], _ check: Check) throws(Failure) -> Secp256k1.PublicKey? {
        var keys = [Secp256k1.PublicKey]()
        for (i, e) in inputs.enumerated() {
            guard case .eligible(let key) = e else { continue }
            guard let key else {
                throw Failure(check, "input \(i)'s public key is not in the PSBT (a PSBT_IN_BIP32_DERIVATION of the key its script names)")
            }
            keys.append(key)
        }
        return keys.isEmpty ? nil : Secp256k1.PublicKey.sum(keys)
    }

    /// Checks every share's proof and, where a scan key's output has its script, that every
    /// eligible input's share (or the global one) is in. Returns each scan key's a·B_scan
    /// where all shares are in.
    static func coverage(_ psbt: PSBT, _ outputs: [Output], _ inputs: [Eligibility]) throws(Failure) -> [[UInt8]: Secp256k1.PublicKey] {
        var shared = [[UInt8]: Secp256k1.PublicKey]()
        for scan in scanKeys(outputs) {
            let name = Hex.encode(scan.compressed)
            let computed = outputs.filter { $0.scanKey == scan && $0.script != nil }.map(\.index)
            let global = share(psbt.global, PSBTField.globalSPECDHShare, scan)
            let anyInputShare = psbt.inputs.contains { share($0, PSBTField.inSPECDHShare, scan) != nil }
            if let first = computed.first, global == nil, !anyInputShare {
                throw Failure(.ecdhCoverage, "output \(first) has its script, and no ECDH share for its scan key \(name) is in the PSBT")
            }
            if let global {
                guard let proof = share(psbt.global, PSBTField.globalSPDLEQ, scan) else {
                    throw Failure(.ecdhCoverage, "the global ECDH share for scan key \(name) has no PSBT_GLOBAL_SP_DLEQ")
                }
                guard let A = try inputKeySum(inputs, .ecdhCoverage) else {
                    throw Failure(.ecdhCoverage, "a global ECDH share for scan key \(name), and no input is eligible")
                }
                guard let C = try? Secp256k1.PublicKey(parsing: global), DLEQ.verify(proof, A: A, B: scan, C: C) else {
                    throw Failure(.ecdhCoverage, "the global DLEQ proof for scan key \(name) does not verify")
                }
                shared[scan.compressed] = C
            }
            var parts = [Secp256k1.PublicKey](), complete = true
            for (i, e) in inputs.enumerated() {
                guard case .eligible(let A) = e else { continue }
                guard let value = share(psbt.inputs[i], PSBTField.inSPECDHShare, scan) else {
                    if let first = computed.first, global == nil {
                        throw Failure(
                            .ecdhCoverage, "output \(first) has its script, and eligible input \(i) has no ECDH share for scan key \(name)")
                    }
                    complete = false
                    continue
                }
                guard let proof = share(psbt.inputs[i], PSBTField.inSPDLEQ, scan) else {
                    throw Failure(.ecdhCoverage, "input \(i)'s ECDH share for scan key \(name) has no PSBT_IN_SP_DLEQ")
                }
                guard let A else {
                    throw Failure(
                        .ecdhCoverage,
                        "input \(i)'s public key is not in the PSBT (PSBT_IN_BIP32_DERIVATION): its DLEQ proof cannot be checked")
                }
                guard let C = try? Secp256k1.PublicKey(parsing: value), DLEQ.verify(proof, A: A, B: scan, C: C) else {
                    throw Failure(.ecdhCoverage, "input \(i)'s DLEQ proof for scan key \(name) does not verify")
                }
                parts.append(C)
            }
            if global == nil, complete, !parts.isEmpty, let sum = Secp256k1.PublicKey.sum(parts) { shared[scan.compressed] = sum }
        }
        return shared
    }

    /// The scan keys, in the order of their first output.
    static func scanKeys(_ outputs: [Output]) -> [Secp256k1.PublicKey] {
        var seen = Set<[UInt8]>(), out = [Secp256k1.PublicKey]()
        for o in outputs where seen.insert(o.scanKey.compressed).inserted { out.append(o.scanKey) }
        return out
    }

    /// Each silent payment output's script where its scan key's shares (`shared`, as `coverage`
    /// gives them) are all in (BIP352's
    /// outputs: input_hash·(a·B_scan), k counted per scan key in output order), each script
    /// already present held to it.
    static func scripts(
        _ psbt: PSBT, _ outputs: [Output], _ inputs: [Eligibility], shared: [[UInt8]: Secp256k1.PublicKey]
    ) throws(Failure) -> [Int: [UInt8]] {
        var scripts = [Int: [UInt8]]()
        let A = inputs.contains(where: \.isEligible) ? try inputKeySum(inputs, .outputScripts) : nil
        let outpoints = psbt.transaction.inputs.map { $0.previousTxID + withUnsafeBytes(of: $0.previousIndex.littleEndian) { Array($0) } }
        for scan in scanKeys(outputs) {
            // k in output order: what BIP375's vectors (1.1) and validator do. The BIP's text
            // sorts by spend key first; its vector "output 0 uses label=3 / output 1 uses
            // label=1" holds the two labeled keys out of that order, and is valid by index.
            let group = outputs.filter { $0.scanKey == scan }
            guard let C = shared[scan.compressed], let A else {
                if let done = group.first(where: { $0.script != nil }) {
                    throw Failure(
                        .outputScripts,
                        A == nil
                            ? "output \(done.index) has a script, and no input is eligible to make one"
                            : "output \(done.index) has a script, and its scan key's ECDH shares are not all in")
                }
                continue
            }
            // Every value here is public: shares, keys and the scripts they give.
            guard let inputHash = SilentPayment.inputHash(outpoints: outpoints, inputKeySum: A), let S = try? C.multiplied(by: inputHash)
            else {
                throw Failure(.outputScripts, "the input hash is no scalar (a 2^-128 event)")
            }
            for (k, output) in group.enumerated() {
                guard let P = try? output.spendKey.adding(tweak: SilentPayment.sharedSecretTweak(S.compressed, UInt32(k))) else {
                    throw Failure(.outputScripts, "output \(output.index) has no output key (a 2^-128 event)")
                }
                let script = [0x51, 0x20] + P.xOnly
                if let given = output.script, given != script {
                    throw Failure(
                        .outputScripts,
                        "output \(output.index)'s script \(Hex.encode(given)) is not the one its shares give (\(Hex.encode(script)))")
                }
                scripts[output.index] = script
            }
        }
        return scripts
    }

    /// The Signer's part: with our eligible inputs' private keys (`keys`, by input index), an
    /// ECDH share and DLEQ proof per scan key (one global share when ours are all the eligible
    /// inputs and no other signer added one), every other share's proof verified, and, once all
    /// are in, the output scripts set and PSBT_GLOBAL_TX_MODIFIABLE cleared. Each private key is
    /// held to its input's public key first.
    public static func contribute(
        _ psbt: PSBT, keys: [Int: SilentPaymentSender.InputKey], auxiliary: () -> [UInt8] = { Sodium.randomBytes(32).bytes }
    ) throws -> PSBT {
        let outputs = outputs(psbt)
        guard !outputs.isEmpty else { return psbt }
        try validate(psbt)
        let inputs = try inputKeys(psbt, strict: true)
        var ours = [Int: SecureBytes]()
        for (i, input) in keys where inputs[i].isEligible {
            // The x-only key stands for the even point: a taproot key with an odd one is negated.
            let point = try Secp256k1.publicKey(of: input.key).declassified
            let key = input.taproot && point.compressed[0] == 3 ? try Secp256k1.negate(input.key) : input.key
            guard case .eligible(let A) = inputs[i], let A, try Secp256k1.publicKey(of: key).declassified == A else {
                throw Failure(.ecdhCoverage, "input \(i): our key is not the key it spends")
            }
            ours[i] = key
        }
        var out = psbt
        let eligible = inputs.indices.filter { inputs[$0].isEligible }
        for scan in scanKeys(outputs) {
            guard share(psbt.global, PSBTField.globalSPECDHShare, scan) == nil else { continue }
            let others = psbt.inputs.contains { share($0, PSBTField.inSPECDHShare, scan) != nil }
            if !others, !eligible.isEmpty, eligible.allSatisfy({ ours[$0] != nil }) {
                var sum: SecureBytes? = nil
                for i in eligible {
                    var bytes = ours[i]!.bytes
                    defer { SecureBytes.wipe(&bytes) }
                    sum = try sum.map { try Secp256k1.add(tweak: bytes, to: $0) } ?? ours[i]!
                }
                let (C, proof) = try shareAndProof(sum!, scan, auxiliary())
                out.global.insertInOrder(PSBT.Pair(type: PSBTField.globalSPECDHShare, keyData: scan.compressed, value: C))
                out.global.insertInOrder(PSBT.Pair(type: PSBTField.globalSPDLEQ, keyData: scan.compressed, value: proof))
                continue
            }
            for (i, key) in ours.sorted(by: { $0.key < $1.key }) where share(psbt.inputs[i], PSBTField.inSPECDHShare, scan) == nil {
                let (C, proof) = try shareAndProof(key, scan, auxiliary())
                out.inputs[i].insertInOrder(PSBT.Pair(type: PSBTField.inSPECDHShare, keyData: scan.compressed, value: C))
                out.inputs[i].insertInOrder(PSBT.Pair(type: PSBTField.inSPDLEQ, keyData: scan.compressed, value: proof))
            }
        }
        let scripts = try Self.scripts(out, outputs, inputs, shared: try coverage(out, outputs, inputs))
        var added = false
        for (index, script) in scripts where out.outputs[index].value(PSBTField.outScript) == nil {
            out.outputs[index].insertInOrder(PSBT.Pair(type: PSBTField.outScript, value: script))
            added = true
        }
        if added { out.global.set(PSBT.Pair(type: PSBTField.globalTxModifiable, value: [0])) }
        // Read again: the transaction now has the scripts, and every field is checked as read.
        let result = try PSBT(parsing: out.serialized())
        try validate(result)
        return result
    }

    /// a·B_scan and its BIP374 proof. The share is public by design: it is published beside
    /// its proof.
    static func shareAndProof(
        _ a: SecureBytes, _ scan: Secp256k1.PublicKey, _ auxiliary: [UInt8]
    ) throws -> (share: [UInt8], proof: [UInt8]) {
        let C = ConstantTime.declassified(try Secp256k1.ecdhPoint(privateKey: a, publicKey: scan).bytes)
        return (C, try DLEQ.proof(secret: a, point: scan, auxiliary: auxiliary))
    }

    /// Whether a silent payment output still lacks its script: nothing may be signed yet.
    public static func pending(_ psbt: PSBT) -> [Int] { outputs(psbt).filter { $0.script == nil }.map(\.index) }
}
