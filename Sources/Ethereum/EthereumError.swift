import WalletCore
import WalletKeys

/// What is wrong with an Ethereum transaction, message or typed-data record.
public enum EthereumError: WalletError, Equatable {
    case missingField(String, expected: String)
    case invalidField(String, reason: String)
    case unknownField(String, allowed: [String])
    case conflictingFields([String])
    case invalidRLP(String)
    /// EIP-712: `path` names the place in the typed data (e.g. `message.to.wallets[1]`).
    case typedData(path: String, reason: String)
    /// A signature whose recovery id (2 or 3: R.x ≥ n) Ethereum's v cannot express.
    case unexpressibleRecoveryID(Int)

    public var code: String {
        switch self {
        case .missingField: "eth.missing_field"
        case .invalidField: "eth.invalid_field"
        case .unknownField: "eth.unknown_field"
        case .conflictingFields: "eth.conflicting_fields"
        case .invalidRLP: "eth.invalid_rlp"
        case .typedData: "eth.typed_data"
        case .unexpressibleRecoveryID: "eth.recovery_id"
        }
    }

    public var message: String {
        switch self {
        case .missingField(let f, let expected): "\"\(f)\" is missing: give \(expected)"
        case .invalidField(let f, let reason): "\"\(f)\" \(reason)"
        case .unknownField(let f, let allowed):
            "\"\(f)\" is not a field of an Ethereum transaction (a misspelt field would be left out of what is signed); the fields are \(allowed.joined(separator: ", "))"
        case .conflictingFields(let fs): "give only one of \(fs.map { "\"\($0)\"" }.joined(separator: ", "))"
        case .invalidRLP(let reason): "not canonical RLP: \(reason)"
        case .typedData(let path, let reason): "typed data \(path): \(reason)"
        case .unexpressibleRecoveryID(let id):
            "the signature's recovery id is \(id), which Ethereum's v cannot express; sign again with another nonce"
        }
    }
}

/// Reading Ethereum's numbers, bytes and addresses from JSON exactly.
public enum EthereumJSON {
    /// A JSON number in digits, or a string of decimal digits or 0x hex: never a fraction, an
    /// exponent or a sign (each would be rounded or misread somewhere), at most `bits` bits.
    public static func uint(_ value: JSONValue, field: String, bits: Int = 256) throws(EthereumError) -> UInt256 {
        let text: String
        switch value {
        case .number(let t): text = t
        case .string(let t): text = t
        default: throw .invalidField(field, reason: "must be an integer: a JSON number or a decimal or 0x string, not \(value.typeName)")
        }
        guard let n = UInt256(parsing: text) else {
            throw .invalidField(
                field,
                reason:
                    "must be a whole number in decimal digits or 0x hex (no sign, fraction or exponent) below 2^256, not \(quoted(text))")
        }
        guard n.bitWidth <= bits else { throw .invalidField(field, reason: "must be below 2^\(bits)") }
        return n
    }

    public static func uint64(_ value: JSONValue, field: String) throws(EthereumError) -> UInt64 {
        try uint(value, field: field, bits: 64).uint64!
    }

    /// 0x and an even number of hex digits ("0x" is empty).
    public static func bytes(_ value: JSONValue, field: String) throws(EthereumError) -> [UInt8] {
        guard case .string(let text) = value else { throw .invalidField(field, reason: "must be a 0x hex string, not \(value.typeName)") }
        guard text.hasPrefix("0x") || text.hasPrefix("0X") else { throw .invalidField(field, reason: "must start with 0x") }
        do { return try Hex.decode(String(text.dropFirst(2))) } catch { throw .invalidField(field, reason: "is not hex: \(error.message)") }
    }

    /// A 20-byte address; one in mixed case must carry a correct EIP-55 checksum.
    public static func address(_ value: JSONValue, field: String) throws(EthereumError) -> [UInt8] {
        let bytes = try self.bytes(value, field: field)
        guard bytes.count == 20 else { throw .invalidField(field, reason: "must be a 20-byte address, not \(bytes.count) bytes") }
        guard case .string(let text) = value, EIP55.isValid("0x" + text.dropFirst(2)) else {
            throw .invalidField(field, reason: "fails its EIP-55 checksum (a character is mistyped); check the address")
        }
        return bytes
    }

    static func quoted(_ text: String) -> String { "\"\(text.prefix(80))\"" }
}
