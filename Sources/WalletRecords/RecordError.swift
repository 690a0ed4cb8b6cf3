import WalletCore

/// Errors in the shape of a record, before any tool looks at its meaning.
public enum RecordError: WalletError, Equatable {
    case emptyLine
    case invalidUTF8(offset: Int)
    case lineTooLong(limit: Int)
    case invalidJSON(offset: Int, reason: String)
    case missingField(String, expected: String)
    case wrongType(field: String, expected: String, got: String)
    case conflictingFields([String])
    case invalidField(field: String, reason: String)

    public var code: String {
        switch self {
        case .emptyLine: "record.empty_line"
        case .invalidUTF8: "record.invalid_utf8"
        case .lineTooLong: "record.line_too_long"
        case .invalidJSON: "record.invalid_json"
        case .missingField: "record.missing_field"
        case .wrongType: "record.wrong_type"
        case .conflictingFields: "record.conflicting_fields"
        case .invalidField: "record.invalid_field"
        }
    }

    public var message: String {
        switch self {
        case .emptyLine: "empty line; expected a JSON object"
        case .invalidUTF8(let offset): "not valid UTF-8 (byte \(offset + 1))"
        case .lineTooLong(let limit): "line longer than \(limit) bytes; skipped"
        case .invalidJSON(let offset, let reason): "not a JSON object: \(reason) at byte \(offset + 1)"
        case .missingField(let name, let expected): "no \"\(name)\" field (expected \(expected))"
        case .wrongType(let field, let expected, let got): "\"\(field)\" must be \(expected), not \(got)"
        case .conflictingFields(let fields): "give only one of " + fields.map { "\"\($0)\"" }.joined(separator: ", ")
        case .invalidField(let field, let reason): "\"\(field)\": \(reason)"
        }
    }
}

/// Errors of reading and writing streams, and of usage.
public enum CLIError: WalletError, Equatable {
    case cannotOpen(path: String, reason: String)
    case readFailed(path: String, reason: String)
    case writeFailed(reason: String)
    case usage(String)

    public var code: String {
        switch self {
        case .cannotOpen: "io.cannot_open"
        case .readFailed: "io.read_failed"
        case .writeFailed: "io.write_failed"
        case .usage: "usage"
        }
    }

    public var exitStatus: ExitStatus {
        switch self {
        case .cannotOpen: .noInput
        case .readFailed, .writeFailed: .ioError
        case .usage: .usage
        }
    }

    public var message: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open \(path): \(reason)"
        case .readFailed(let path, let reason): "cannot read \(path): \(reason)"
        case .writeFailed(let reason): "cannot write output: \(reason)"
        case .usage(let text): text
        }
    }
}

extension JSONObject {
    /// A required string field, with a precise error when it is absent or of another type.
    public func string(_ key: String, expected: String) throws(RecordError) -> String {
        guard let value = self[key] else { throw .missingField(key, expected: expected) }
        guard case .string(let s) = value else { throw .wrongType(field: key, expected: "a string", got: value.typeName) }
        return s
    }

    /// An optional string field: nil when absent, an error when present with another type.
    public func optionalString(_ key: String) throws(RecordError) -> String? {
        guard let value = self[key] else { return nil }
        guard case .string(let s) = value else { throw .wrongType(field: key, expected: "a string", got: value.typeName) }
        return s
    }

    /// An optional integer field that must lie in `range`: a number from outside is checked
    /// where it is read, before it can trap a conversion or index anything.
    public func optionalInt(_ key: String, in range: ClosedRange<Int>) throws(RecordError) -> Int? {
        guard let value = self[key] else { return nil }
        guard case .number(let text) = value, let n = Int(text), range.contains(n) else {
            if case .number = value {
                throw .invalidField(field: key, reason: "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            throw .wrongType(field: key, expected: "an integer", got: value.typeName)
        }
        return n
    }

    /// An optional true/false field.
    public func optionalBool(_ key: String) throws(RecordError) -> Bool? {
        guard let value = self[key] else { return nil }
        guard case .bool(let b) = value else { throw .wrongType(field: key, expected: "true or false", got: value.typeName) }
        return b
    }

    /// An optional integer field.
    public func optionalInt(_ key: String) throws(RecordError) -> Int? {
        guard let value = self[key] else { return nil }
        guard case .number(let text) = value, let n = Int(text) else {
            throw .wrongType(field: key, expected: "an integer", got: value.typeName)
        }
        return n
    }
}
