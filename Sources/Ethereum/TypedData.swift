import WalletCore
import WalletCrypto

/// EIP-712 typed structured data, as `eth_signTypedData_v4` takes it: nested structs, arrays
/// (dynamic and fixed), bytes and strings. The hash is keccak256(0x19 0x01 ‖ domain separator ‖
/// hashStruct(message)).
public struct TypedData: Sendable {
    public struct Field: Sendable, Equatable {
        public let name: String
        public let type: String
    }

    public let types: [String: [Field]]
    public let primaryType: String
    public let domain: JSONObject
    public let domainSeparator: [UInt8]
    public let messageHash: [UInt8]
    /// How many struct types' encodings were made for this record: each once (they were made
    /// again for every struct instance, which made a wide type graph quadratic).
    let typesEncoded: Int

    /// The most values (fields and array elements, at any depth) one record's hashing visits,
    /// and the most struct types it defines: a bound on the work a record can ask for.
    public static let maxValues = 100_000
    public static let maxTypes = 1_000

    /// The work of one record's hashing: each struct type's hash made once, and values counted
    /// against `maxValues`.
    final class Hashing {
        let types: [String: [Field]]
        var typeHashes = [String: [UInt8]]()
        var values = 0

        init(types: [String: [Field]]) { self.types = types }

        func typeHash(_ name: String) -> [UInt8] {
            if let known = typeHashes[name] { return known }
            let hash = Keccak256.hash(Array(TypedData.encodeType(name, types: types).utf8))
            typeHashes[name] = hash
            return hash
        }

        func count(_ path: String) throws(EthereumError) {
            values += 1
            guard values <= TypedData.maxValues else {
                throw .typedData(
                    path: path,
                    reason:
                        "is past \(TypedData.maxValues) values in one record, the most Satchel hashes (split the data, or sign it elsewhere)"
                )
            }
        }
    }

    /// What is signed.
    public var hash: [UInt8] { Keccak256.hash([0x19, 0x01] + domainSeparator + messageHash) }

    /// The domain fields in EIP-712's order, used when `types` leaves EIP712Domain out (as
    /// eth-account and wallets do): those of them the domain has.
    static let domainFields: [Field] = [
        Field(name: "name", type: "string"), Field(name: "version", type: "string"), Field(name: "chainId", type: "uint256"),
        Field(name: "verifyingContract", type: "address"), Field(name: "salt", type: "bytes32"),
    ]

    public init(json: JSONObject) throws(EthereumError) {
        for key in json.keys where !["types", "primaryType", "domain", "message"].contains(key) {
            throw .typedData(path: key, reason: "is not a part of typed data (types, primaryType, domain, message)")
        }
        guard case .object(let typeTable)? = json["types"] else {
            throw .typedData(path: "types", reason: "must be an object of struct definitions")
        }
        guard case .string(let primary)? = json["primaryType"] else {
            throw .typedData(path: "primaryType", reason: "must name the message's struct type")
        }
        guard case .object(let domain)? = json["domain"] else {
            throw .typedData(path: "domain", reason: "must be an object (name, version, chainId, verifyingContract, salt)")
        }
        guard case .object(let message)? = json["message"] else { throw .typedData(path: "message", reason: "must be an object") }
        var types = [String: [Field]]()
        for (name, value) in typeTable.pairs {
            guard case .array(let list) = value else { throw .typedData(path: "types.\(name)", reason: "must be an array of {name, type}") }
            var fields = [Field]()
            for (i, item) in list.enumerated() {
                guard case .object(let f) = item, case .string(let fieldName)? = f["name"], case .string(let fieldType)? = f["type"] else {
                    throw .typedData(path: "types.\(name)[\(i)]", reason: "must be {\"name\": …, \"type\": …}")
                }
                guard !fields.contains(where: { $0.name == fieldName }) else {
                    throw .typedData(path: "types.\(name).\(fieldName)", reason: "is defined twice")
                }
                fields.append(Field(name: fieldName, type: fieldType))
            }
            types[name] = fields
            guard types.count <= Self.maxTypes else {
                throw .typedData(path: "types", reason: "defines more than \(Self.maxTypes) struct types")
            }
        }
        if types["EIP712Domain"] == nil {
            for key in domain.keys where !Self.domainFields.contains(where: { $0.name == key }) {
                throw .typedData(
                    path: "domain.\(key)", reason: "is not an EIP-712 domain field; list the domain's fields in types.EIP712Domain")
            }
            types["EIP712Domain"] = Self.domainFields.filter { domain[$0.name] != nil }
        }
        guard primary != "EIP712Domain" else {
            throw .typedData(path: "primaryType", reason: "is EIP712Domain: there is no message to sign")
        }
        guard types[primary] != nil else { throw .typedData(path: "primaryType", reason: "\"\(primary)\" is not defined in types") }
        self.types = types
        self.primaryType = primary
        self.domain = domain
        // Every field type must resolve before anything is hashed.
        for (name, fields) in types {
            for f in fields { try Self.check(f.type, types: types, path: "types.\(name).\(f.name)") }
        }
        let hashing = Hashing(types: types)
        domainSeparator = try Self.hashStruct("EIP712Domain", domain, hashing, path: "domain")
        messageHash = try Self.hashStruct(primary, message, hashing, path: "message")
        typesEncoded = hashing.typeHashes.count
    }

    /// "Name(type name,…)" for the type and then every struct it uses, sorted by name.
    public func encodeType(_ name: String) -> String { Self.encodeType(name, types: types) }

    static func encodeType(_ name: String, types: [String: [Field]]) -> String {
        var found = Set<String>()
        collect(name, types: types, into: &found)
        found.remove(name)
        let order = [name] + found.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        return order.map { t in "\(t)(" + types[t]!.map { "\($0.type) \($0.name)" }.joined(separator: ",") + ")" }.joined()
    }

    static func collect(_ name: String, types: [String: [Field]], into found: inout Set<String>) {
        guard let fields = types[name], found.insert(name).inserted else { return }
        for f in fields { collect(baseType(f.type), types: types, into: &found) }
    }

    /// The element type with every array suffix removed: "Person[][2]" → "Person".
    static func baseType(_ type: String) -> String {
        guard let open = type.firstIndex(of: "[") else { return type }
        return String(type[..<open])
    }

    /// "T[]" → (T, nil), "T[3]" → (T, 3), anything else nil.
    static func arrayType(_ type: String) -> (element: String, count: Int?)? {
        guard type.hasSuffix("]"), let open = type.lastIndex(of: "[") else { return nil }
        let inside = type[type.index(after: open)..<type.index(before: type.endIndex)]
        let element = String(type[..<open])
        if inside.isEmpty { return (element, nil) }
        guard inside.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(inside), String(n) == inside else { return nil }
        return (element, n)
    }

    /// bits of "uintN"/"intN" (N = 8…256 in steps of 8), bytes of "bytesN" (1…32).
    static func sized(_ type: String, prefix: String, range: ClosedRange<Int>, step: Int) -> Int? {
        guard type.hasPrefix(prefix), let n = Int(type.dropFirst(prefix.count)), String(n) == type.dropFirst(prefix.count),
            range.contains(n), n % step == 0
        else { return nil }
        return n
    }

    static func check(_ type: String, types: [String: [Field]], path: String) throws(EthereumError) {
        if let (element, _) = arrayType(type) { return try check(element, types: types, path: path) }
        if types[type] != nil || ["string", "bytes", "bool", "address"].contains(type) { return }
        if sized(type, prefix: "uint", range: 8...256, step: 8) != nil || sized(type, prefix: "int", range: 8...256, step: 8) != nil
            || sized(type, prefix: "bytes", range: 1...32, step: 1) != nil
        {
            return
        }
        throw .typedData(path: path, reason: "type \"\(type)\" is neither an EIP-712 atomic type nor defined in types")
    }

    static func hashStruct(_ name: String, _ value: JSONObject, _ hashing: Hashing, path: String) throws(EthereumError) -> [UInt8] {
        var encoded = hashing.typeHash(name)
        for f in hashing.types[name]! {
            guard let v = value[f.name], v != .null else { throw .typedData(path: "\(path).\(f.name)", reason: "is missing (a \(f.type))") }
            encoded += try encodeField(f.type, v, hashing, path: "\(path).\(f.name)")
        }
        return Keccak256.hash(encoded)
    }

    /// One atomic or dynamic value's 32-byte word (uintN, intN, bytesN, bool, address, string, bytes).
    public static func atomicWord(_ type: String, _ value: JSONValue) throws(EthereumError) -> [UInt8] {
        try encodeField(type, value, Hashing(types: [:]), path: "value")
    }

    /// One field as its 32-byte word.
    static func encodeField(_ type: String, _ value: JSONValue, _ hashing: Hashing, path: String) throws(EthereumError) -> [UInt8] {
        func fail(_ reason: String) -> EthereumError { .typedData(path: path, reason: reason) }
        try hashing.count(path)
        let types = hashing.types
        if let (element, count) = arrayType(type) {
            guard case .array(let items) = value else { throw fail("must be an array (\(type)), not \(value.typeName)") }
            if let count, items.count != count { throw fail("must have \(count) elements (\(type)), not \(items.count)") }
            var words = [UInt8]()
            for (i, item) in items.enumerated() { words += try encodeField(element, item, hashing, path: "\(path)[\(i)]") }
            return Keccak256.hash(words)
        }
        if types[type] != nil {
            guard case .object(let o) = value else { throw fail("must be an object (\(type)), not \(value.typeName)") }
            return try hashStruct(type, o, hashing, path: path)
        }
        switch type {
        case "string":
            guard case .string(let s) = value else { throw fail("must be a string, not \(value.typeName)") }
            return Keccak256.hash(Array(s.utf8))
        case "bytes":
            return Keccak256.hash(try hexBytes(value, path: path))
        case "bool":
            guard case .bool(let b) = value else { throw fail("must be true or false, not \(value.typeName)") }
            return [UInt8](repeating: 0, count: 31) + [b ? 1 : 0]
        case "address":
            do { return [UInt8](repeating: 0, count: 12) + (try EthereumJSON.address(value, field: path)) } catch {
                throw fail(error.message)
            }
        default:
            break
        }
        if let n = sized(type, prefix: "bytes", range: 1...32, step: 1) {
            let b = try hexBytes(value, path: path)
            guard b.count <= n else { throw fail("has \(b.count) bytes, more than a \(type) holds") }
            return b + [UInt8](repeating: 0, count: 32 - b.count)  // left-aligned, as eth-abi pads bytesN
        }
        if let bits = sized(type, prefix: "uint", range: 8...256, step: 8) {
            do { return try EthereumJSON.uint(value, field: path, bits: bits).bytes32 } catch {
                throw fail("must be a \(type): \(error.message)")
            }
        }
        if let bits = sized(type, prefix: "int", range: 8...256, step: 8) {
            return try signedWord(value, bits: bits, type: type, path: path)
        }
        throw fail("type \"\(type)\" is not defined")
    }

    static func hexBytes(_ value: JSONValue, path: String) throws(EthereumError) -> [UInt8] {
        do { return try EthereumJSON.bytes(value, field: path) } catch { throw .typedData(path: path, reason: error.message) }
    }

    /// intN: −2^(N−1) … 2^(N−1) − 1 as a 256-bit two's complement word.
    static func signedWord(_ value: JSONValue, bits: Int, type: String, path: String) throws(EthereumError) -> [UInt8] {
        var text: String
        switch value {
        case .number(let t), .string(let t): text = t
        default: throw .typedData(path: path, reason: "must be a \(type): an integer, not \(value.typeName)")
        }
        let negative = text.hasPrefix("-")
        if negative { text.removeFirst() }
        guard let magnitude = UInt256(parsing: text) else {
            throw .typedData(path: path, reason: "must be a \(type): a whole number, not \"\(text.prefix(80))\"")
        }
        // |v| ≤ 2^(N−1) − 1, or 2^(N−1) when negative.
        let limitBits = bits - 1
        let fits = magnitude.bitWidth <= limitBits || (negative && magnitude == UInt256.power2(limitBits))
        guard fits else { throw .typedData(path: path, reason: "is out of range for a \(type)") }
        guard negative, !magnitude.isZero else { return magnitude.bytes32 }
        // Two's complement: invert and add one.
        var word = magnitude.bytes32.map { ~$0 }
        var i = 31
        while true {
            let (sum, carry) = word[i].addingReportingOverflow(1)
            word[i] = sum
            if !carry || i == 0 { break }
            i -= 1
        }
        return word
    }
}

extension UInt256 {
    static func power2(_ n: Int) -> UInt256 {
        var limbs = [UInt64](repeating: 0, count: 4)
        limbs[n / 64] = 1 << UInt64(n % 64)
        return UInt256(limbs: limbs)
    }
}
