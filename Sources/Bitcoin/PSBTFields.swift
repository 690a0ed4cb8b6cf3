import WalletCore
import WalletCrypto

public enum PSBTError: WalletError, Equatable {
    case notBase64
    case notPSBT
    case malformed(String)
    case truncated(map: String)
    case trailingBytes(Int)
    case duplicateKey(map: String, key: String)
    case unsupportedVersion(UInt32)
    case missing(map: String, field: String)
    /// A field whose key data (or key) is wrong for its type.
    case invalidKey(map: String, field: String, reason: String)
    case invalidValue(map: String, field: String, reason: String)
    /// A field of the other PSBT version.
    case wrongVersion(map: String, field: String, version: UInt32)
    case unsignedTransaction(String)
    /// An input's previous output disagrees with what it spends.
    case utxoMismatch(input: Int, reason: String)

    public var code: String {
        switch self {
        case .notBase64: "psbt.not_base64"
        case .notPSBT: "psbt.not_psbt"
        case .malformed, .truncated, .trailingBytes: "psbt.malformed"
        case .duplicateKey: "psbt.duplicate_key"
        case .unsupportedVersion: "psbt.unsupported_version"
        case .missing: "psbt.missing_field"
        case .invalidKey: "psbt.invalid_key"
        case .invalidValue: "psbt.invalid_value"
        case .wrongVersion: "psbt.wrong_version"
        case .unsignedTransaction: "psbt.unsigned_transaction"
        case .utxoMismatch: "psbt.utxo_mismatch"
        }
    }

    public var message: String {
        switch self {
        case .notBase64: "not base64 (RFC 4648, with padding): a PSBT is carried as base64 text, or as a binary file"
        case .notPSBT: "not a PSBT: it does not start with the magic bytes 70 73 62 74 ff (is it a raw transaction?)"
        case .malformed(let reason): "malformed PSBT: \(reason)"
        case .truncated(let map): "the PSBT ends inside the \(map) map (truncated, or a map's count is wrong)"
        case .trailingBytes(let n): "\(n) bytes after the last output map"
        case .duplicateKey(let map, let key): "the \(map) map has the key \(key) twice"
        case .unsupportedVersion(let v): "PSBT version \(v) is not known (0 and 2 are)"
        case .missing(let map, let field): "the \(map) map has no \(field), which it requires"
        case .invalidKey(let map, let field, let reason): "\(map) \(field): \(reason)"
        case .invalidValue(let map, let field, let reason): "\(map) \(field): \(reason)"
        case .wrongVersion(let map, let field, let version): "\(map) \(field) is not allowed in a version \(version) PSBT"
        case .unsignedTransaction(let reason): "PSBT_GLOBAL_UNSIGNED_TX: \(reason)"
        case .utxoMismatch(let i, let reason): "input \(i): \(reason)"
        }
    }
}

/// The field types of BIP174, BIP370, BIP371 and BIP375, and what each requires of its key and value.
public enum PSBTField {
    public static let globalUnsignedTx: UInt64 = 0x00, globalXpub: UInt64 = 0x01, globalTxVersion: UInt64 = 0x02,
        globalFallbackLocktime: UInt64 = 0x03, globalInputCount: UInt64 = 0x04, globalOutputCount: UInt64 = 0x05,
        globalTxModifiable: UInt64 = 0x06, globalVersion: UInt64 = 0xFB, proprietary: UInt64 = 0xFC
    /// BIP375 (version 2 only): ECDH shares a·B_scan and their BIP374 proofs, keyed by the scan
    /// key; the global ones for the sum of every eligible input's key, the input ones for one.
    public static let globalSPECDHShare: UInt64 = 0x07, globalSPDLEQ: UInt64 = 0x08
    public static let inSPECDHShare: UInt64 = 0x1D, inSPDLEQ: UInt64 = 0x1E
    /// BIP375: a silent payment output's scan and spend keys (its PSBT_OUT_SCRIPT is computed
    /// from the shares), and the label its spend key carries (for change).
    public static let outSPV0Info: UInt64 = 0x09, outSPV0Label: UInt64 = 0x0A

    public static let inNonWitnessUtxo: UInt64 = 0x00, inWitnessUtxo: UInt64 = 0x01, inPartialSig: UInt64 = 0x02,
        inSighashType: UInt64 = 0x03, inRedeemScript: UInt64 = 0x04, inWitnessScript: UInt64 = 0x05,
        inBIP32Derivation: UInt64 = 0x06, inFinalScriptSig: UInt64 = 0x07, inFinalScriptWitness: UInt64 = 0x08,
        inRipemd160: UInt64 = 0x0A, inSha256: UInt64 = 0x0B, inHash160: UInt64 = 0x0C, inHash256: UInt64 = 0x0D,
        inPreviousTxid: UInt64 = 0x0E, inOutputIndex: UInt64 = 0x0F, inSequence: UInt64 = 0x10,
        inRequiredTimeLocktime: UInt64 = 0x11, inRequiredHeightLocktime: UInt64 = 0x12,
        inTapKeySig: UInt64 = 0x13, inTapScriptSig: UInt64 = 0x14, inTapLeafScript: UInt64 = 0x15,
        inTapBIP32Derivation: UInt64 = 0x16, inTapInternalKey: UInt64 = 0x17, inTapMerkleRoot: UInt64 = 0x18
    /// BIP376 (draft; the numbers as Sparrow 2.5 and the other implementations write them, which
    /// the BIP's text of 2026-02 numbers otherwise): a silent payment output's spend key origin,
    /// keyed by the 33-byte spend key, and its tweak, 32 bytes. Version 2 only.
    public static let inSPSpendBIP32Derivation: UInt64 = 0x1F, inSPTweak: UInt64 = 0x20

    public static let outRedeemScript: UInt64 = 0x00, outWitnessScript: UInt64 = 0x01, outBIP32Derivation: UInt64 = 0x02,
        outAmount: UInt64 = 0x03, outScript: UInt64 = 0x04, outTapInternalKey: UInt64 = 0x05,
        outTapTree: UInt64 = 0x06, outTapBIP32Derivation: UInt64 = 0x07

    enum Scope { case global, input, output }

    /// What a known field needs: its name, the key data it takes, the versions it is allowed in.
    struct Rule {
        let name: String
        let keyData: KeyData
        let versions: Versions
        let value: (([UInt8]) throws(PSBTError) -> Void)?

        enum KeyData { case none, publicKey, compressedKey, xOnly, sized(Set<Int>), xpub, controlBlock, any }

        /// The PSBT versions a field is allowed in (a Set here cost an allocation per field read).
        struct Versions {
            let v0: Bool, v2: Bool
            func contains(_ version: UInt32) -> Bool { version == 0 ? v0 : version == 2 ? v2 : false }
        }
    }

    static func rule(_ type: UInt64, _ scope: Scope) -> Rule? {
        let both = Rule.Versions(v0: true, v2: true), v0 = Rule.Versions(v0: true, v2: false), v2 = Rule.Versions(v0: false, v2: true)
        switch (scope, type) {
        case (_, proprietary):
            return Rule(
                name: "PSBT_\(scope == .global ? "GLOBAL" : scope == .input ? "IN" : "OUT")_PROPRIETARY", keyData: .any, versions: both,
                value: nil)
        case (.global, globalUnsignedTx): return Rule(name: "PSBT_GLOBAL_UNSIGNED_TX", keyData: .none, versions: v0, value: nil)
        case (.global, globalXpub): return Rule(name: "PSBT_GLOBAL_XPUB", keyData: .xpub, versions: both, value: origin)
        case (.global, globalTxVersion): return Rule(name: "PSBT_GLOBAL_TX_VERSION", keyData: .none, versions: v2, value: fixed(4))
        case (.global, globalFallbackLocktime):
            return Rule(name: "PSBT_GLOBAL_FALLBACK_LOCKTIME", keyData: .none, versions: v2, value: fixed(4))
        case (.global, globalInputCount): return Rule(name: "PSBT_GLOBAL_INPUT_COUNT", keyData: .none, versions: v2, value: compactSizeOnly)
        case (.global, globalOutputCount):
            return Rule(name: "PSBT_GLOBAL_OUTPUT_COUNT", keyData: .none, versions: v2, value: compactSizeOnly)
        case (.global, globalTxModifiable): return Rule(name: "PSBT_GLOBAL_TX_MODIFIABLE", keyData: .none, versions: v2, value: fixed(1))
        case (.global, globalVersion): return Rule(name: "PSBT_GLOBAL_VERSION", keyData: .none, versions: both, value: fixed(4))
        case (.global, globalSPECDHShare):
            return Rule(name: "PSBT_GLOBAL_SP_ECDH_SHARE", keyData: .compressedKey, versions: v2, value: point)
        case (.global, globalSPDLEQ): return Rule(name: "PSBT_GLOBAL_SP_DLEQ", keyData: .compressedKey, versions: v2, value: fixed(64))
        case (.input, inSPECDHShare): return Rule(name: "PSBT_IN_SP_ECDH_SHARE", keyData: .compressedKey, versions: v2, value: point)
        case (.input, inSPDLEQ): return Rule(name: "PSBT_IN_SP_DLEQ", keyData: .compressedKey, versions: v2, value: fixed(64))
        case (.output, outSPV0Info): return Rule(name: "PSBT_OUT_SP_V0_INFO", keyData: .none, versions: v2, value: silentPaymentInfo)
        case (.output, outSPV0Label): return Rule(name: "PSBT_OUT_SP_V0_LABEL", keyData: .none, versions: v2, value: fixed(4))
        case (.input, inNonWitnessUtxo): return Rule(name: "PSBT_IN_NON_WITNESS_UTXO", keyData: .none, versions: both, value: transaction)
        case (.input, inWitnessUtxo): return Rule(name: "PSBT_IN_WITNESS_UTXO", keyData: .none, versions: both, value: txOut)
        case (.input, inPartialSig): return Rule(name: "PSBT_IN_PARTIAL_SIG", keyData: .publicKey, versions: both, value: ecdsaSignature)
        case (.input, inSighashType): return Rule(name: "PSBT_IN_SIGHASH_TYPE", keyData: .none, versions: both, value: fixed(4))
        case (.input, inRedeemScript): return Rule(name: "PSBT_IN_REDEEM_SCRIPT", keyData: .none, versions: both, value: nil)
        case (.input, inWitnessScript): return Rule(name: "PSBT_IN_WITNESS_SCRIPT", keyData: .none, versions: both, value: nil)
        case (.input, inBIP32Derivation): return Rule(name: "PSBT_IN_BIP32_DERIVATION", keyData: .publicKey, versions: both, value: origin)
        case (.input, inFinalScriptSig): return Rule(name: "PSBT_IN_FINAL_SCRIPTSIG", keyData: .none, versions: both, value: nil)
        case (.input, inFinalScriptWitness):
            return Rule(name: "PSBT_IN_FINAL_SCRIPTWITNESS", keyData: .none, versions: both, value: witnessStack)
        case (.input, inRipemd160): return Rule(name: "PSBT_IN_RIPEMD160", keyData: .sized([20]), versions: both, value: nil)
        case (.input, inSha256): return Rule(name: "PSBT_IN_SHA256", keyData: .sized([32]), versions: both, value: nil)
        case (.input, inHash160): return Rule(name: "PSBT_IN_HASH160", keyData: .sized([20]), versions: both, value: nil)
        case (.input, inHash256): return Rule(name: "PSBT_IN_HASH256", keyData: .sized([32]), versions: both, value: nil)
        case (.input, inPreviousTxid): return Rule(name: "PSBT_IN_PREVIOUS_TXID", keyData: .none, versions: v2, value: fixed(32))
        case (.input, inOutputIndex): return Rule(name: "PSBT_IN_OUTPUT_INDEX", keyData: .none, versions: v2, value: fixed(4))
        case (.input, inSequence): return Rule(name: "PSBT_IN_SEQUENCE", keyData: .none, versions: v2, value: fixed(4))
        case (.input, inRequiredTimeLocktime):
            return Rule(name: "PSBT_IN_REQUIRED_TIME_LOCKTIME", keyData: .none, versions: v2, value: timeLock)
        case (.input, inRequiredHeightLocktime):
            return Rule(name: "PSBT_IN_REQUIRED_HEIGHT_LOCKTIME", keyData: .none, versions: v2, value: heightLock)
        case (.input, inTapKeySig): return Rule(name: "PSBT_IN_TAP_KEY_SIG", keyData: .none, versions: both, value: schnorrSignature)
        case (.input, inTapScriptSig):
            return Rule(name: "PSBT_IN_TAP_SCRIPT_SIG", keyData: .sized([64]), versions: both, value: schnorrSignature)
        case (.input, inTapLeafScript):
            return Rule(name: "PSBT_IN_TAP_LEAF_SCRIPT", keyData: .controlBlock, versions: both, value: leafScript)
        case (.input, inTapBIP32Derivation):
            return Rule(name: "PSBT_IN_TAP_BIP32_DERIVATION", keyData: .xOnly, versions: both, value: tapOrigin)
        case (.input, inTapInternalKey): return Rule(name: "PSBT_IN_TAP_INTERNAL_KEY", keyData: .none, versions: both, value: xOnlyValue)
        case (.input, inTapMerkleRoot): return Rule(name: "PSBT_IN_TAP_MERKLE_ROOT", keyData: .none, versions: both, value: fixed(32))
        case (.input, inSPSpendBIP32Derivation):
            return Rule(name: "PSBT_IN_SP_SPEND_BIP32_DERIVATION", keyData: .compressedKey, versions: v2, value: origin)
        case (.input, inSPTweak): return Rule(name: "PSBT_IN_SP_TWEAK", keyData: .none, versions: v2, value: fixed(32))
        case (.output, outRedeemScript): return Rule(name: "PSBT_OUT_REDEEM_SCRIPT", keyData: .none, versions: both, value: nil)
        case (.output, outWitnessScript): return Rule(name: "PSBT_OUT_WITNESS_SCRIPT", keyData: .none, versions: both, value: nil)
        case (.output, outBIP32Derivation):
            return Rule(name: "PSBT_OUT_BIP32_DERIVATION", keyData: .publicKey, versions: both, value: origin)
        case (.output, outAmount): return Rule(name: "PSBT_OUT_AMOUNT", keyData: .none, versions: v2, value: fixed(8))
        case (.output, outScript): return Rule(name: "PSBT_OUT_SCRIPT", keyData: .none, versions: v2, value: nil)
        case (.output, outTapInternalKey): return Rule(name: "PSBT_OUT_TAP_INTERNAL_KEY", keyData: .none, versions: both, value: xOnlyValue)
        case (.output, outTapTree): return Rule(name: "PSBT_OUT_TAP_TREE", keyData: .none, versions: both, value: tapTree)
        case (.output, outTapBIP32Derivation):
            return Rule(name: "PSBT_OUT_TAP_BIP32_DERIVATION", keyData: .xOnly, versions: both, value: tapOrigin)
        default: return nil
        }
    }

    /// Checks every known field of a map; unknown ones pass as they are.
    static func check(_ map: PSBT.Map, scope: Scope, name: String, version: UInt32) throws(PSBTError) {
        for pair in map.pairs {
            guard let rule = rule(pair.type, scope) else { continue }
            guard rule.versions.contains(version) else { throw .wrongVersion(map: name, field: rule.name, version: version) }
            let k = pair.keyData
            switch rule.keyData {
            case .none:
                guard k.isEmpty else {
                    throw .invalidKey(map: name, field: rule.name, reason: "its key has \(k.count) bytes of key data, and must have none")
                }
            case .publicKey:
                guard k.count == 33 || k.count == 65 else {
                    throw .invalidKey(map: name, field: rule.name, reason: "its key holds a \(k.count)-byte public key (33 or 65 bytes)")
                }
                guard (try? Secp256k1.PublicKey(parsing: k)) != nil else {
                    throw .invalidKey(map: name, field: rule.name, reason: "its key is not a valid public key")
                }
            case .compressedKey:
                guard k.count == 33, (try? Secp256k1.PublicKey(parsing: k)) != nil else {
                    throw .invalidKey(map: name, field: rule.name, reason: "its key is not a 33-byte compressed public key")
                }
            case .xOnly:
                guard k.count == 32 else {
                    throw .invalidKey(map: name, field: rule.name, reason: "its key holds \(k.count) bytes, and an x-only public key is 32")
                }
            case .sized(let sizes):
                guard sizes.contains(k.count) else {
                    throw .invalidKey(
                        map: name, field: rule.name,
                        reason: "its key data is \(k.count) bytes, not \(sizes.sorted().map(String.init).joined(separator: " or "))")
                }
            case .xpub:
                guard k.count == 78 else {
                    throw .invalidKey(
                        map: name, field: rule.name, reason: "its key holds \(k.count) bytes, and a serialized extended public key is 78")
                }
            case .controlBlock:
                guard k.count >= 33, k.count <= 33 + 32 * 128, (k.count - 33) % 32 == 0 else {
                    throw .invalidKey(
                        map: name, field: rule.name, reason: "its key is a \(k.count)-byte control block (33 + 32·m bytes, m ≤ 128)")
                }
            case .any: break
            }
            do { try rule.value?(pair.value) } catch { throw .invalidValue(map: name, field: rule.name, reason: error.reason) }
            if scope == .input, let hash = preimageHash(pair.type), hash(pair.value) != k {
                throw .invalidValue(
                    map: name, field: rule.name, reason: "its value does not hash to its key (not the preimage it claims to be)")
            }
        }
    }

    /// The hash a preimage field's key is of its value.
    static func preimageHash(_ type: UInt64) -> (([UInt8]) -> [UInt8])? {
        switch type {
        case inRipemd160: RIPEMD160.hash
        case inSha256: { Hash.sha256($0) }
        case inHash160: { Hash.hash160($0) }
        case inHash256: { Hash.sha256d($0) }
        default: nil
        }
    }

    // MARK: value rules (each throws .malformed(reason); `check` names the field)

    static func fixed(_ n: Int) -> ([UInt8]) throws(PSBTError) -> Void {
        { v throws(PSBTError) in guard v.count == n else { throw .malformed("its value is \(v.count) bytes, not \(n)") } }
    }

    static func compactSizeOnly(_ v: [UInt8]) throws(PSBTError) {
        var r = SerialReader(v)
        guard (try? r.compactSize(maximum: Int.max)) != nil, r.remaining == 0 else {
            throw .malformed("its value is not one canonical CompactSize")
        }
    }

    /// The most steps a derivation path has: BIP32 keeps a key's depth in one byte, and
    /// each step of a path with our fingerprint is a cached node.
    public static let maxPathSteps = 255

    static func origin(_ v: [UInt8]) throws(PSBTError) {
        guard v.count >= 4, v.count % 4 == 0 else {
            throw .malformed("its value is \(v.count) bytes: a 4-byte fingerprint and 4 bytes per path step")
        }
        guard (v.count - 4) / 4 <= maxPathSteps else {
            throw .malformed("its path has \((v.count - 4) / 4) steps, and BIP32 keys are at most \(maxPathSteps) deep")
        }
    }

    static func tapOrigin(_ v: [UInt8]) throws(PSBTError) {
        var r = SerialReader(v)
        guard let n = try? r.compactSize(maximum: r.remaining / 32), (try? r.bytes(32 * n)) != nil else {
            throw .malformed("its leaf hashes do not fit its value")
        }
        try origin(Array(v[r.at...]))
    }

    static func transaction(_ v: [UInt8]) throws(PSBTError) {
        do { _ = try BitcoinTx(parsing: v) } catch { throw .malformed(error.message) }
    }

    static func txOut(_ v: [UInt8]) throws(PSBTError) {
        var r = SerialReader(v)
        guard let amount = try? r.uint64(), (try? r.varBytes()) != nil, r.remaining == 0 else {
            throw .malformed("its value is not an amount and a script")
        }
        guard amount <= maxMoney else { throw .malformed("an amount of \(amount) satoshis, more than 21 million coins") }
    }

    /// 21 million coins, in satoshis: no amount can be more.
    static let maxMoney: UInt64 = 21_000_000 * 100_000_000

    static func ecdsaSignature(_ v: [UInt8]) throws(PSBTError) {
        guard v.count >= 9, v.count <= 73, v[0] == 0x30 else { throw .malformed("its value is not a DER signature and a sighash byte") }
    }

    static func schnorrSignature(_ v: [UInt8]) throws(PSBTError) {
        guard v.count == 64 || v.count == 65 else {
            throw .malformed("its value is \(v.count) bytes: a BIP340 signature is 64, or 65 with a sighash byte")
        }
        if v.count == 65 && v[64] == 0 {
            throw .malformed("a 65-byte signature whose sighash byte is 0 (SIGHASH_DEFAULT is written as 64 bytes)")
        }
    }

    /// A compressed point (an ECDH share).
    static func point(_ v: [UInt8]) throws(PSBTError) {
        guard v.count == 33, (try? Secp256k1.PublicKey(parsing: v)) != nil else {
            throw .malformed("its value is not a 33-byte compressed point (\(v.count) bytes)")
        }
    }

    /// A scan key and a spend key, each a compressed point.
    static func silentPaymentInfo(_ v: [UInt8]) throws(PSBTError) {
        guard v.count == 66 else { throw .malformed("its value is \(v.count) bytes, not 66 (a scan and a spend key)") }
        guard (try? Secp256k1.PublicKey(parsing: Array(v[0..<33]))) != nil, (try? Secp256k1.PublicKey(parsing: Array(v[33...]))) != nil
        else { throw .malformed("a key in it is not a compressed point") }
    }

    static func xOnlyValue(_ v: [UInt8]) throws(PSBTError) {
        guard v.count == 32 else { throw .malformed("its value is \(v.count) bytes, and an x-only public key is 32") }
    }

    static func leafScript(_ v: [UInt8]) throws(PSBTError) {
        guard !v.isEmpty else { throw .malformed("its value has no leaf version") }
    }

    static func witnessStack(_ v: [UInt8]) throws(PSBTError) {
        var r = SerialReader(v)
        guard let n = try? r.compactSize(maximum: r.remaining) else { throw .malformed("its value is not a witness stack") }
        for _ in 0..<n { guard (try? r.varBytes()) != nil else { throw .malformed("its value is not a witness stack") } }
        guard r.remaining == 0 else { throw .malformed("\(r.remaining) bytes after its witness stack") }
    }

    static func tapTree(_ v: [UInt8]) throws(PSBTError) {
        var r = SerialReader(v)
        guard r.remaining > 0 else { throw .malformed("an empty tree") }
        while r.remaining > 0 {
            guard let depth = try? r.uint8(), depth <= 128, (try? r.uint8()) != nil, (try? r.varBytes()) != nil else {
                throw .malformed("its value is not a list of (depth ≤ 128, leaf version, script)")
            }
        }
    }

    static func timeLock(_ v: [UInt8]) throws(PSBTError) {
        try fixed(4)(v)
        guard v.littleEndianUInt32 >= 500_000_000 else { throw .malformed("a time lock below 500000000 (that is a height)") }
    }

    static func heightLock(_ v: [UInt8]) throws(PSBTError) {
        try fixed(4)(v)
        guard v.littleEndianUInt32 > 0, v.littleEndianUInt32 < 500_000_000 else {
            throw .malformed("a height lock must be from 1 to 499999999")
        }
    }

    static func count(_ v: [UInt8], name: String, limit: Int) throws(PSBTError) -> Int {
        var r = SerialReader(v)
        guard let n = try? r.compactSize(maximum: limit) else {
            throw .invalidValue(map: "global", field: name, reason: "more maps than the PSBT has bytes")
        }
        return n
    }

    /// Version 0's transaction: the old serialization, no scriptSig, no witness (BIP174).
    static func unsignedTransaction(_ raw: [UInt8]) throws(PSBTError) -> BitcoinTx {
        let tx: BitcoinTx
        do { tx = try BitcoinTx(parsing: raw, allowWitness: false) } catch {
            // Read the old way it fails; if the segwit way it parses, say so.
            if let segwit = try? BitcoinTx(parsing: raw), segwit.hasWitness {
                throw .unsignedTransaction(
                    "it is in the segwit serialization; a PSBT's unsigned transaction must use the old one, with no witness")
            }
            throw .unsignedTransaction(error.message)
        }
        if let i = tx.inputs.firstIndex(where: { !$0.scriptSig.isEmpty }) {
            throw .unsignedTransaction("input \(i) has a scriptSig; the unsigned transaction must have none")
        }
        return tx
    }

    /// Version 2's transaction, from its global, input and output fields (BIP370).
    static func version2Transaction(global: PSBT.Map, inputs: [PSBT.Map], outputs: [PSBT.Map]) throws(PSBTError) -> BitcoinTx {
        var txInputs = [BitcoinTx.Input]()
        for (i, m) in inputs.enumerated() {
            guard let txid = m.value(inPreviousTxid) else { throw .missing(map: "input \(i)", field: "PSBT_IN_PREVIOUS_TXID") }
            guard let index = m.value(inOutputIndex) else { throw .missing(map: "input \(i)", field: "PSBT_IN_OUTPUT_INDEX") }
            txInputs.append(
                BitcoinTx.Input(
                    previousTxID: txid, previousIndex: index.littleEndianUInt32,
                    sequence: m.value(inSequence)?.littleEndianUInt32 ?? 0xFFFF_FFFF))
        }
        var txOutputs = [BitcoinTx.Output]()
        for (i, m) in outputs.enumerated() {
            guard let amount = m.value(outAmount) else { throw .missing(map: "output \(i)", field: "PSBT_OUT_AMOUNT") }
            // BIP375: a silent payment output's script is computed once its shares are in;
            // until then the transaction holds an empty one (`SilentPaymentPSBT.pending`).
            guard let script = m.value(outScript) ?? (m.value(outSPV0Info) != nil ? [] : nil) else {
                throw .missing(map: "output \(i)", field: "PSBT_OUT_SCRIPT")
            }
            if m.value(outSPV0Label) != nil && m.value(outSPV0Info) == nil {
                throw .missing(map: "output \(i)", field: "PSBT_OUT_SP_V0_INFO (it has a PSBT_OUT_SP_V0_LABEL)")
            }
            txOutputs.append(BitcoinTx.Output(value: amount.littleEndianUInt64, script: script))
        }
        // BIP370's lock time: the largest required lock of the kind every input allows, else
        // the fallback, else 0.
        let times = inputs.compactMap { $0.value(inRequiredTimeLocktime)?.littleEndianUInt32 }
        let heights = inputs.compactMap { $0.value(inRequiredHeightLocktime)?.littleEndianUInt32 }
        let anyLock = inputs.contains { $0.value(inRequiredTimeLocktime) != nil || $0.value(inRequiredHeightLocktime) != nil }
        var lockTime = global.value(globalFallbackLocktime)?.littleEndianUInt32 ?? 0
        if anyLock {
            let allHeight = inputs.allSatisfy { $0.value(inRequiredHeightLocktime) != nil || $0.value(inRequiredTimeLocktime) == nil }
            let allTime = inputs.allSatisfy { $0.value(inRequiredTimeLocktime) != nil || $0.value(inRequiredHeightLocktime) == nil }
            if allHeight, let h = heights.max() {
                lockTime = h
            } else if allTime, let t = times.max() {
                lockTime = t
            } else {
                throw .malformed("inputs require both a height and a time lock, which one transaction cannot have")
            }
        }
        return BitcoinTx(
            version: Int32(bitPattern: global.value(globalTxVersion)!.littleEndianUInt32), inputs: txInputs, outputs: txOutputs,
            lockTime: lockTime)
    }
}

extension PSBTError {
    /// The reason of a `.malformed`, for a value rule's message.
    var reason: String { if case .malformed(let r) = self { r } else { message } }
}
