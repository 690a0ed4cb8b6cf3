import WalletCore
import WalletCrypto

/// An Ethereum transaction to sign: legacy with EIP-155 replay protection, EIP-2930 (access
/// list) or EIP-1559 (dynamic fee), from a JSON record in the field names eth-account and
/// `cast` use.
public struct EthereumTransaction: Sendable, Equatable {
    public enum Kind: UInt8, Sendable {
        case legacy = 0, accessList = 1, dynamicFee = 2

        public var name: String {
            switch self {
            case .legacy: "legacy"
            case .accessList: "eip2930"
            case .dynamicFee: "eip1559"
            }
        }
    }

    public struct AccessEntry: Sendable, Equatable {
        public let address: [UInt8]
        public let storageKeys: [[UInt8]]
    }

    public let kind: Kind
    public let chainID: UInt64
    public let nonce: UInt64
    public let gas: UInt64
    /// Legacy and EIP-2930.
    public let gasPrice: UInt256?
    /// EIP-1559.
    public let maxFeePerGas: UInt256?
    public let maxPriorityFeePerGas: UInt256?
    /// nil: contract creation.
    public let to: [UInt8]?
    public let value: UInt256
    public let data: [UInt8]
    public let accessList: [AccessEntry]

    public static let fields = [
        "type", "chainId", "nonce", "to", "value", "data", "gas", "gasPrice", "maxFeePerGas", "maxPriorityFeePerGas", "accessList",
    ]

    /// Reads a record's `eth_tx` object. Every field is checked; an unknown one is refused, as
    /// a misspelt field would otherwise be left out of what is signed. `type` may be left out:
    /// EIP-1559 fees make an EIP-1559 transaction, a gas price with an access list EIP-2930,
    /// a gas price alone legacy.
    public init(json: JSONObject) throws(EthereumError) {
        for key in json.keys where !Self.fields.contains(key) { throw .unknownField(key, allowed: Self.fields) }
        func need(_ f: String, _ expected: String) throws(EthereumError) -> JSONValue {
            guard let v = json[f], v != .null else { throw .missingField(f, expected: expected) }
            return v
        }
        let present = { (f: String) -> Bool in json[f] != nil && json[f] != .null }
        let kind: Kind
        if let t = json["type"], t != .null {
            guard let k = try EthereumJSON.uint(t, field: "type", bits: 8).uint64.flatMap({ Kind(rawValue: UInt8($0)) }) else {
                throw .invalidField("type", reason: "must be 0 (legacy), 1 (EIP-2930) or 2 (EIP-1559)")
            }
            kind = k
        } else if present("maxFeePerGas") || present("maxPriorityFeePerGas") {
            kind = .dynamicFee
        } else {
            kind = present("accessList") ? .accessList : .legacy
        }
        switch kind {
        case .legacy, .accessList:
            if present("maxFeePerGas") || present("maxPriorityFeePerGas") {
                throw .conflictingFields(["gasPrice (type \(kind.rawValue))", "maxFeePerGas/maxPriorityFeePerGas (type 2)"])
            }
            gasPrice = try EthereumJSON.uint(need("gasPrice", "the gas price in wei"), field: "gasPrice")
            (maxFeePerGas, maxPriorityFeePerGas) = (nil, nil)
            if kind == .legacy && present("accessList") { throw .conflictingFields(["accessList", "type 0 (legacy has no access list)"]) }
        case .dynamicFee:
            if present("gasPrice") { throw .conflictingFields(["gasPrice", "maxFeePerGas/maxPriorityFeePerGas (EIP-1559)"]) }
            gasPrice = nil
            let maxFee = try EthereumJSON.uint(need("maxFeePerGas", "the highest fee per gas in wei"), field: "maxFeePerGas")
            let tip = try EthereumJSON.uint(
                need("maxPriorityFeePerGas", "the priority fee (tip) per gas in wei"), field: "maxPriorityFeePerGas")
            guard !(maxFee < tip) else {
                throw .invalidField("maxPriorityFeePerGas", reason: "is above maxFeePerGas (EIP-1559 refuses such a transaction)")
            }
            (maxFeePerGas, maxPriorityFeePerGas) = (maxFee, tip)
        }
        self.kind = kind
        // EIP-155 for every legacy transaction: one without a chain id could be replayed on
        // every chain that shares the key's address.
        chainID = try EthereumJSON.uint64(
            need("chainId", "the chain id (1 for Ethereum mainnet): it keeps the transaction from being replayed on another chain"),
            field: "chainId")
        guard chainID > 0, chainID <= UInt64.max / 2 - 36 else {
            throw .invalidField("chainId", reason: "must be from 1 to \(UInt64.max / 2 - 36) (EIP-155, EIP-2294)")
        }
        nonce = try EthereumJSON.uint64(need("nonce", "the sender's transaction count"), field: "nonce")
        guard nonce < UInt64.max else { throw .invalidField("nonce", reason: "must be below 2^64 − 1 (EIP-2681)") }
        gas = try EthereumJSON.uint64(need("gas", "the gas limit"), field: "gas")
        // The most the transaction can cost must be a number: a summary that left it out would
        // let a person sign without seeing it.
        guard (gasPrice ?? maxFeePerGas!).multiplied(by: gas) != nil else {
            throw .invalidField("gas", reason: "times the fee per gas is past 2^256 wei: no account can pay it")
        }
        if let t = json["to"], t != .null, t != .string("") {
            to = try EthereumJSON.address(t, field: "to")
        } else {
            to = nil
        }
        value = try json["value"].map { v throws(EthereumError) in try EthereumJSON.uint(v, field: "value") } ?? .zero
        data = try json["data"].map { v throws(EthereumError) in try EthereumJSON.bytes(v, field: "data") } ?? []
        var list = [AccessEntry]()
        if let a = json["accessList"], a != .null {
            guard case .array(let entries) = a else {
                throw .invalidField("accessList", reason: "must be an array of {address, storageKeys}")
            }
            for (i, e) in entries.enumerated() {
                let here = "accessList[\(i)]"
                guard case .object(let o) = e else { throw .invalidField(here, reason: "must be an object {address, storageKeys}") }
                for key in o.keys where key != "address" && key != "storageKeys" {
                    throw .unknownField("\(here).\(key)", allowed: ["address", "storageKeys"])
                }
                let address = try EthereumJSON.address(o["address"] ?? .null, field: "\(here).address")
                var keys = [[UInt8]]()
                if let s = o["storageKeys"], s != .null {
                    guard case .array(let items) = s else {
                        throw .invalidField("\(here).storageKeys", reason: "must be an array of 32-byte 0x strings")
                    }
                    for (j, item) in items.enumerated() {
                        let key = try EthereumJSON.bytes(item, field: "\(here).storageKeys[\(j)]")
                        guard key.count == 32 else {
                            throw .invalidField("\(here).storageKeys[\(j)]", reason: "must be 32 bytes, not \(key.count)")
                        }
                        keys.append(key)
                    }
                }
                list.append(AccessEntry(address: address, storageKeys: keys))
            }
        }
        accessList = list
    }

    /// The fields in RLP order, without the signature.
    var payload: [RLP.Item] {
        let to: RLP.Item = .bytes(self.to ?? [])
        let access = RLP.Item.list(accessList.map { .list([.bytes($0.address), .list($0.storageKeys.map { .bytes($0) })]) })
        switch kind {
        case .legacy:
            return [.uint(nonce), .uint(gasPrice!), .uint(gas), to, .uint(value), .bytes(data)]
        case .accessList:
            return [.uint(chainID), .uint(nonce), .uint(gasPrice!), .uint(gas), to, .uint(value), .bytes(data), access]
        case .dynamicFee:
            return [
                .uint(chainID), .uint(nonce), .uint(maxPriorityFeePerGas!), .uint(maxFeePerGas!), .uint(gas), to, .uint(value),
                .bytes(data), access,
            ]
        }
    }

    func envelope(_ fields: [RLP.Item]) -> [UInt8] {
        let body = RLP.encode(.list(fields))
        return kind == .legacy ? body : [kind.rawValue] + body
    }

    /// The hash the sender signs: EIP-155's (chain id, 0, 0) appended for legacy; the type
    /// byte before the list for typed transactions (EIP-2718).
    public var signingHash: [UInt8] {
        Keccak256.hash(envelope(kind == .legacy ? payload + [.uint(chainID), .bytes([]), .bytes([])] : payload))
    }

    public struct Signed: Sendable, Equatable {
        /// The transaction as sent to the network.
        public let raw: [UInt8]
        /// Keccak-256 of `raw`: the transaction hash.
        public let hash: [UInt8]
        /// EIP-155's v (legacy) or the y parity (typed).
        public let v: UInt64
        public let r: [UInt8]
        public let s: [UInt8]
    }

    /// The signed transaction from a signature of `signingHash` (low-S, as libsecp256k1 makes).
    public func signed(with signature: ECDSASignature) throws(EthereumError) -> Signed {
        guard signature.recoveryID < 2 else { throw .unexpressibleRecoveryID(signature.recoveryID) }
        let parity = UInt64(signature.recoveryID)
        let v = kind == .legacy ? chainID * 2 + 35 + parity : parity
        let r = Array(signature.compact[0..<32]), s = Array(signature.compact[32..<64])
        let raw = envelope(payload + [.uint(v), .uint(UInt256(bigEndian: r)!), .uint(UInt256(bigEndian: s)!)])
        return Signed(raw: raw, hash: Keccak256.hash(raw), v: v, r: r, s: s)
    }

    /// The most the sender can pay in fees: gas × (gas price or max fee per gas).
    public var maxFee: UInt256? { (gasPrice ?? maxFeePerGas!).multiplied(by: gas) }
}

extension EthereumTransaction {
    /// What the sender's signature commits to, before hashing: EIP-155's list with (chain id,
    /// 0, 0) for legacy, the type byte and the list for typed transactions — the sign-data a
    /// QR wallet sends (EIP-4527).
    public var unsignedBytes: [UInt8] {
        envelope(kind == .legacy ? payload + [.uint(chainID), .bytes([]), .bytes([])] : payload)
    }

    /// The `eth_tx` record that unsigned transaction bytes stand for, each integer canonical.
    /// A legacy transaction must carry EIP-155's chain id: one without could be replayed on
    /// every chain. The caller reads the record back and compares its `unsignedBytes` with
    /// these, so what is summed up and signed is exactly what was asked for.
    public static func json(unsigned bytes: [UInt8]) throws(EthereumError) -> JSONObject {
        guard let first = bytes.first else { throw .invalidRLP("no transaction") }
        let kind: Kind
        var body = bytes[...]
        if first >= 0xC0 {
            kind = .legacy
        } else {
            guard let k = Kind(rawValue: first), k != .legacy else { throw .invalidRLP("transaction type \(first) is not 1 or 2") }
            kind = k
            body = bytes.dropFirst()
        }
        guard case .list(let items) = try RLP.decode(Array(body)) else { throw .invalidRLP("a transaction is a list") }
        func uint(_ item: RLP.Item, _ field: String) throws(EthereumError) -> JSONValue {
            guard case .bytes(let b) = item, b.first != 0, b.count <= 32 else {
                throw .invalidField(field, reason: "is not a canonical integer in the transaction's RLP")
            }
            return .string(b.isEmpty ? "0" : "0x" + Hex.encode(b))
        }
        func bytesField(_ item: RLP.Item, _ field: String) throws(EthereumError) -> [UInt8] {
            guard case .bytes(let b) = item else { throw .invalidField(field, reason: "is a list in the transaction's RLP, not bytes") }
            return b
        }
        var json = JSONObject()
        json["type"] = .number(String(kind.rawValue))
        let fields: [String]
        switch kind {
        case .legacy:
            if items.count == 6 {
                throw .invalidField("chainId", reason: "is missing: a legacy transaction without EIP-155 could be replayed on every chain")
            }
            guard items.count == 9, items[7] == .bytes([]), items[8] == .bytes([]) else {
                throw .invalidRLP("an unsigned legacy transaction has 9 fields ending in (chain id, 0, 0), not \(items.count)")
            }
            fields = ["nonce", "gasPrice", "gas", "to", "value", "data", "chainId"]
        case .accessList:
            guard items.count == 8 else { throw .invalidRLP("an unsigned EIP-2930 transaction has 8 fields, not \(items.count)") }
            fields = ["chainId", "nonce", "gasPrice", "gas", "to", "value", "data", "accessList"]
        case .dynamicFee:
            guard items.count == 9 else { throw .invalidRLP("an unsigned EIP-1559 transaction has 9 fields, not \(items.count)") }
            fields = ["chainId", "nonce", "maxPriorityFeePerGas", "maxFeePerGas", "gas", "to", "value", "data", "accessList"]
        }
        for (field, item) in zip(fields, items) {
            switch field {
            case "to":
                let to = try bytesField(item, field)
                guard to.isEmpty || to.count == 20 else { throw .invalidField("to", reason: "is \(to.count) bytes, not an address") }
                if !to.isEmpty { json["to"] = .string("0x" + Hex.encode(to)) }
            case "data": json["data"] = .string("0x" + Hex.encode(try bytesField(item, field)))
            case "accessList":
                guard case .list(let entries) = item else { throw .invalidField("accessList", reason: "is not a list") }
                var list: [JSONValue] = []
                for entry in entries {
                    guard case .list(let pair) = entry, pair.count == 2, case .bytes(let address) = pair[0], case .list(let keys) = pair[1]
                    else {
                        throw .invalidField("accessList", reason: "an entry is not [address, [storage keys]]")
                    }
                    var keyValues: [JSONValue] = []
                    for k in keys { keyValues.append(.string("0x" + Hex.encode(try bytesField(k, "accessList")))) }
                    list.append(.object(JSONObject(["address": .string("0x" + Hex.encode(address)), "storageKeys": .array(keyValues)])))
                }
                json["accessList"] = .array(list)
            default: json[field] = try uint(item, field)
            }
        }
        return json
    }
}
