import Ethereum
import WalletCore
import WalletKeys
import WalletRecords
import KeySources
import WalletCrypto

/// sign-tx's Ethereum records: a transaction (`eth_tx`), a personal message (`message`,
/// `message_hex`) or EIP-712 typed data (`typed_data`). Each gives a summary of what is signed
/// (transactions and typed data) and the signed record.
public enum EthereumRecords {
    public static let fields = ["eth_tx", "message", "message_hex", "typed_data"]

    /// Whether the record is an Ethereum one; two kinds in one record are refused.
    public static func isEthereum(_ record: JSONObject) throws -> Bool {
        let present = fields.filter { record[$0] != nil }
        if present.count > 1 { throw RecordError.conflictingFields(present) }
        return !present.isEmpty
    }

    /// The signed record. `confirm` is given the summary of a transaction or typed data before
    /// anything is signed (a personal message is its own summary), and may refuse by throwing.
    /// Nothing is signed when the record is wrong.
    public static func sign(
        _ record: JSONObject, path: String?, keys: SecpKeySource, confirm: (JSONObject) throws -> Void
    ) throws -> JSONObject {
        let path = try record.optionalString("path") ?? path
        var out = record
        // The key's address first: the summary names the account that signs.
        func signer() throws -> (from: String, path: String?) {
            let (key, keyPath) = try keys.publicKey(at: path)
            return (address(key), keyPath)
        }
        /// The signature, checked against the key the summary named (a card asked for one path
        /// must not sign with another key unnoticed).
        func sign(_ hash: [UInt8], from: String) throws -> ECDSASignature {
            let signature = try keys.signECDSA(hash, at: path)
            let recovered = try Secp256k1.recoverECDSA(hash: hash, compact: signature.compact, recoveryID: signature.recoveryID)
            guard address(recovered) == from else { throw SignatureError.verificationFailed }
            return signature
        }
        if case .object(let tx)? = record["eth_tx"] {
            let transaction = try EthereumTransaction(json: tx)
            let (from, keyPath) = try signer()
            try confirm(summary(transaction, from: from, path: keyPath))
            let signed = try transaction.signed(with: try sign(transaction.signingHash, from: from))
            out["type"] = .string("eth_tx")
            out["from"] = .string(from)
            if let p = keyPath { out["path"] = .string(p) }
            out["raw"] = .string("0x" + Hex.encode(signed.raw))
            out["hash"] = .string("0x" + Hex.encode(signed.hash))
            out["eth_v"] = .number(String(signed.v))
            out["r"] = .string("0x" + Hex.encode(signed.r))
            out["s"] = .string("0x" + Hex.encode(signed.s))
            return out
        }
        if record["eth_tx"] != nil { throw RecordError.wrongType(field: "eth_tx", expected: "an object", got: record["eth_tx"]!.typeName) }
        if case .object(let json)? = record["typed_data"] {
            let typed = try TypedData(json: json)
            let (from, keyPath) = try signer()
            var summary = JSONObject()
            summary["type"] = .string("typed_data_summary")
            summary["from"] = .string(from)
            if let p = keyPath { summary["path"] = .string(p) }
            summary["primary_type"] = .string(typed.primaryType)
            summary["domain"] = .object(typed.domain)
            summary["domain_separator"] = .string("0x" + Hex.encode(typed.domainSeparator))
            summary["message_hash"] = .string("0x" + Hex.encode(typed.messageHash))
            try confirm(summary)
            let signature = try sign(typed.hash, from: from)
            out["type"] = .string("typed_data_signature")
            out["from"] = .string(from)
            if let p = keyPath { out["path"] = .string(p) }
            out["hash"] = .string("0x" + Hex.encode(typed.hash))
            out["signature"] = .string("0x" + Hex.encode(try PersonalMessage.signature(signature)))
            return out
        }
        if record["typed_data"] != nil {
            throw RecordError.wrongType(field: "typed_data", expected: "an object", got: record["typed_data"]!.typeName)
        }
        let message: [UInt8]
        if let hex = try record.optionalString("message_hex") {
            guard hex.hasPrefix("0x") || hex.hasPrefix("0X") else {
                throw RecordError.invalidField(field: "message_hex", reason: "must start with 0x")
            }
            message = try Hex.decode(String(hex.dropFirst(2)))
        } else {
            message = Array(try record.string("message", expected: "the text to sign").utf8)
        }
        let hash = PersonalMessage.hash(message)
        let (from, keyPath) = try signer()
        let signature = try sign(hash, from: from)
        out["type"] = .string("message_signature")
        out["from"] = .string(from)
        if let p = keyPath { out["path"] = .string(p) }
        out["hash"] = .string("0x" + Hex.encode(hash))
        out["signature"] = .string("0x" + Hex.encode(try PersonalMessage.signature(signature)))
        return out
    }

    /// The EIP-55 address of a key.
    public static func address(_ key: Secp256k1.PublicKey) -> String {
        EIP55.encode(Array(Keccak256.hash(key.uncompressed.dropFirst()).suffix(20)))
    }

    /// Well-known chain ids, named in the summary (an unknown one is shown by number only).
    static let chains: [UInt64: String] = [
        1: "Ethereum mainnet", 11_155_111: "Sepolia testnet", 17_000: "Holesky testnet", 560_048: "Hoodi testnet",
        10: "OP Mainnet", 56: "BNB Smart Chain", 100: "Gnosis", 137: "Polygon PoS", 8453: "Base", 42161: "Arbitrum One",
        31337: "local development chain (Anvil, Hardhat)", 1337: "local development chain",
    ]

    /// What a person checks before a transaction is signed: where the money goes, how much,
    /// on which chain, and the most the fees can cost. Amounts in wei, and in ether beside.
    public static func summary(_ tx: EthereumTransaction, from: String, path: String?) -> JSONObject {
        var s = JSONObject()
        s["type"] = .string("eth_tx_summary")
        s["kind"] = .string(tx.kind.name)
        s["chain_id"] = .string(String(tx.chainID))
        if let name = chains[tx.chainID] { s["chain"] = .string(name) }
        s["from"] = .string(from)
        if let path { s["path"] = .string(path) }
        if let to = tx.to {
            s["to"] = .string(EIP55.encode(to))
        } else {
            s["contract_creation"] = .bool(true)
        }
        s["value_wei"] = .string(tx.value.description)
        s["value_ether"] = .string(tx.value.decimalString(decimals: 18))
        s["nonce"] = .string(String(tx.nonce))
        s["gas"] = .string(String(tx.gas))
        if let p = tx.gasPrice { s["gas_price_wei"] = .string(p.description) }
        if let m = tx.maxFeePerGas, let t = tx.maxPriorityFeePerGas {
            s["max_fee_per_gas_wei"] = .string(m.description)
            s["max_priority_fee_per_gas_wei"] = .string(t.description)
        }
        if let fee = tx.maxFee {
            s["max_fee_wei"] = .string(fee.description)
            s["max_fee_ether"] = .string(fee.decimalString(decimals: 18))
        }
        s["data_bytes"] = .number(String(tx.data.count))
        // A call's first four bytes name the contract function (an ERC-20 transfer is a9059cbb).
        if tx.to != nil && tx.data.count >= 4 { s["selector"] = .string("0x" + Hex.encode(tx.data.prefix(4))) }
        if tx.kind != .legacy { s["access_list_entries"] = .number(String(tx.accessList.count)) }
        return s
    }
}
