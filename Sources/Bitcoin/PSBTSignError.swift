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
