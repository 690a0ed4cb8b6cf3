/// A JSON value that keeps what a pass-through tool must not change: the order of object
/// keys and the exact text of numbers (an amount like 18446744073709551616 survives).
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    /// The number's literal text, already checked against the JSON grammar.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }

    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// A JSON object with its keys in input order. Duplicate keys are refused by the parser:
/// `{"mnemonic":"a…","mnemonic":"b…"}` has no single meaning.
public struct JSONObject: Equatable, Sendable {
    public private(set) var keys: [String] = []
    private var values: [String: JSONValue] = [:]

    public init() {}

    public init(_ pairs: KeyValuePairs<String, JSONValue>) {
        for (k, v) in pairs { self[k] = v }
    }

    public subscript(key: String) -> JSONValue? {
        get { values[key] }
        set {
            if let newValue {
                if values.updateValue(newValue, forKey: key) == nil { keys.append(key) }
            } else if values.removeValue(forKey: key) != nil {
                keys.removeAll { $0 == key }
            }
        }
    }

    public var isEmpty: Bool { keys.isEmpty }

    /// The same object with these keys (those present) first, in this order.
    public func leading(_ first: [String]) -> JSONObject {
        var out = JSONObject()
        for key in first where values[key] != nil { out[key] = values[key] }
        for key in keys where out[key] == nil { out[key] = values[key] }
        return out
    }
    public var pairs: [(key: String, value: JSONValue)] { keys.map { ($0, values[$0]!) } }

    public static func == (a: JSONObject, b: JSONObject) -> Bool { a.keys == b.keys && a.values == b.values }
}

/// Why a line is not a JSON object. Offsets are 0-based byte offsets in the line; the
/// message never quotes the input (it may be a secret).
public struct JSONSyntaxError: Error, Equatable, Sendable {
    public let offset: Int
    public let reason: String
}

/// A strict RFC 8259 parser over UTF-8 bytes.
public struct JSONParser {
    private let bytes: [UInt8]
    private var position = 0
    private var depth = 0
    private static let maxDepth = 64

    public static func parseObject(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONObject {
        var parser = JSONParser(bytes: bytes)
        parser.skipWhitespace()
        guard parser.peek() == UInt8(ascii: "{") else {
            throw JSONSyntaxError(offset: parser.position, reason: parser.peek() == nil ? "empty line" : "a record must be a JSON object")
        }
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.position == bytes.count else { throw parser.error("unexpected text after the object") }
        guard case .object(let object) = value else { throw parser.error("a record must be a JSON object") }
        return object
    }

    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.position == bytes.count else { throw parser.error("unexpected text after the value") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func peek() -> UInt8? { position < bytes.count ? bytes[position] : nil }
    private func error(_ reason: String) -> JSONSyntaxError { JSONSyntaxError(offset: position, reason: reason) }

    private mutating func skipWhitespace() {
        while let c = peek(), c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { position += 1 }
    }

    private mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        guard let c = peek() else { throw error("unexpected end of line") }
        switch c {
        case UInt8(ascii: "{"): return .object(try parseObject())
        case UInt8(ascii: "["): return .array(try parseArray())
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected character")
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let start = position
        for expected in UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount) {
            guard peek() == expected else { throw JSONSyntaxError(offset: start, reason: "unexpected character") }
            position += 1
        }
    }

    private mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        guard depth <= Self.maxDepth else { throw error("nested deeper than \(Self.maxDepth) levels") }
    }

    private mutating func parseObject() throws(JSONSyntaxError) -> JSONObject {
        try enter()
        defer { depth -= 1 }
        position += 1
        var object = JSONObject()
        skipWhitespace()
        if peek() == UInt8(ascii: "}") { position += 1; return object }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw error("expected a key in double quotes") }
            let keyOffset = position
            let key = try parseString()
            guard object[key] == nil else { throw JSONSyntaxError(offset: keyOffset, reason: "duplicate key \"\(key.prefix(40))\"") }
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else { throw error("expected ':' after a key") }
            position += 1
            skipWhitespace()
            object[key] = try parseValue()
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"): position += 1; return object
            default: throw error("expected ',' or '}' in an object")
            }
        }
    }

    private mutating func parseArray() throws(JSONSyntaxError) -> [JSONValue] {
        try enter()
        defer { depth -= 1 }
        position += 1
        var array = [JSONValue]()
        skipWhitespace()
        if peek() == UInt8(ascii: "]") { position += 1; return array }
        while true {
            skipWhitespace()
            array.append(try parseValue())
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"): position += 1; return array
            default: throw error("expected ',' or ']' in an array")
            }
        }
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> String {
        let start = position
        if peek() == UInt8(ascii: "-") { position += 1 }
        guard let first = peek(), first >= 0x30, first <= 0x39 else { throw error("a number needs a digit") }
        if first == 0x30 { position += 1 } else { skipDigits() }
        if peek() == UInt8(ascii: ".") {
            position += 1
            guard let d = peek(), d >= 0x30, d <= 0x39 else { throw error("a fraction needs a digit") }
            skipDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            position += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { position += 1 }
            guard let d = peek(), d >= 0x30, d <= 0x39 else { throw error("an exponent needs a digit") }
            skipDigits()
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    private mutating func skipDigits() {
        while let c = peek(), c >= 0x30, c <= 0x39 { position += 1 }
    }

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        position += 1
        // Most strings (hex blobs, names) have no escape: find the closing quote and make the
        // String from the bytes in one go, with no copy to wipe.
        let start = position
        let plainEnd = bytes.withUnsafeBufferPointer { b -> Int? in
            var i = start
            while i < b.count {
                let c = b[i]
                if c == UInt8(ascii: "\"") { return i }
                if c == UInt8(ascii: "\\") || c < 0x20 { return nil }
                i += 1
            }
            return nil
        }
        if let plainEnd {
            position = plainEnd + 1
            return String(decoding: bytes[start..<plainEnd], as: UTF8.self)
        }
        var out = [UInt8]()
        defer { SecureBytes.wipe(&out) }  // string values may be phrases
        while true {
            guard let c = peek() else { throw error("unterminated string") }
            switch c {
            case UInt8(ascii: "\""):
                position += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                position += 1
                guard let e = peek() else { throw error("unterminated string") }
                position += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard peek() == UInt8(ascii: "\\"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "u") else {
                            throw error("unpaired UTF-16 surrogate in \\u escape")
                        }
                        position += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired UTF-16 surrogate in \\u escape") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw error("unpaired UTF-16 surrogate in \\u escape")
                    }
                    out.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
                default:
                    position -= 1
                    throw error("invalid escape in string")
                }
            case 0x00..<0x20:
                throw error("control character in string (must be escaped)")
            default:
                out.append(c)
                position += 1
            }
        }
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let c = peek() else { throw error("unterminated \\u escape") }
            let digit: UInt32
            switch c {
            case 0x30...0x39: digit = UInt32(c - 0x30)
            case 0x41...0x46: digit = UInt32(c - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(c - 0x61 + 10)
            default: throw error("invalid \\u escape")
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }
}

/// Compact JSON text, one line: no newline can appear inside (control characters are escaped).
public enum JSONWriter {
    public static func serialize(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): out.append(contentsOf: n.utf8)
        case .string(let s): serialize(string: s, into: &out)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (i, v) in a.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                serialize(v, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o): serialize(o, into: &out)
        }
    }

    public static func serialize(_ object: JSONObject, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        for (i, pair) in object.pairs.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            serialize(string: pair.key, into: &out)
            out.append(UInt8(ascii: ":"))
            serialize(pair.value, into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    public static func line(_ object: JSONObject) -> [UInt8] {
        var out = [UInt8]()
        serialize(object, into: &out)
        out.append(0x0A)
        return out
    }

    private static let hex = Array("0123456789abcdef".utf8)

    static func serialize(string: String, into out: inout [UInt8]) {
        out.append(0x22)
        // Most values (hex, addresses, codes) need no escaping: copy them whole.
        var s = string
        let plain = s.withUTF8 { utf8 -> Bool in
            guard !utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F }) else { return false }
            out.append(contentsOf: utf8)
            return true
        }
        if plain { out.append(0x22); return }
        for b in string.utf8 {
            switch b {
            case 0x22: out.append(contentsOf: [0x5C, 0x22])
            case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x00..<0x20, 0x7F:
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 0xF)]])
            default: out.append(b)
            }
        }
        out.append(0x22)
    }
}
