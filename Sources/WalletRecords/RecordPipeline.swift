#if canImport(Glibc)
    import Glibc
#endif
import WalletCore
import WalletKeys

/// Where an error happened, for the error record and the stderr line.
public struct RecordLocation: Sendable {
    public let file: String?
    public let line: Int?

    public init(file: String?, line: Int?) {
        self.file = file
        self.line = line
    }
}

/// Every record a tool writes starts with "type" (what the record is) and "v", the version of
/// Satchel's record formats: a consumer checks v before it reads anything else.
public enum RecordSchema {
    public static let version = 1

    public static func stamped(_ record: JSONObject) -> JSONObject {
        var r = record
        r["v"] = .number(String(version))
        return r.leading(["type", "v"])
    }

    /// An upstream tool's record passing through: its own "v" kept (its format is that tool's),
    /// this version's when it has none (written by hand); "type" and "v" first either way, so
    /// every line a tool writes starts as a consumer expects.
    public static func passedOn(_ record: JSONObject) -> JSONObject {
        var r = record
        if r["v"] == nil { r["v"] = .number(String(version)) }
        return r.leading(["type", "v"])
    }
}

/// The shared core of every tool: JSON Lines in, JSON Lines out, one error record per bad
/// input line, and the run's exit status.
///
/// Results go to stdout; a short diagnostic for each error also goes to stderr. Neither
/// carries secrets: error messages are built from positions and codes, never from input text.
public final class RecordPipeline {
    public let tool: String
    public let output: OutputStream
    public let diagnostics: OutputStream
    public let maxLineBytes: Int
    /// The worst outcome so far (see ExitStatus's ordering).
    public private(set) var status = ExitStatus.ok
    /// The line whose error ended the run (a card lost): no record after it is tried.
    private var endedBy: Int?
    /// For tools that read seed phrases: a line that is not JSON (does not start with { or [)
    /// is a phrase, as typed or pasted, and becomes {"mnemonic": line}.
    public var phraseLines = false
    /// For tools that read other texts among the records (sign-tx: QR codes as `zbarcam --raw`
    /// prints them): a line this returns a record for is that record; nil leaves it to JSON.
    public var textLine: ((String) -> JSONObject?)?

    public init(
        tool: String, output: OutputStream = .standardOutput, diagnostics: OutputStream = .standardError,
        maxLineBytes: Int = 1 << 20
    ) {
        self.tool = tool
        self.output = output
        self.diagnostics = diagnostics
        self.maxLineBytes = maxLineBytes
    }

    /// Output made but not yet written. It is written before the tool waits for input, when it
    /// passes 64 KiB, when it is 20 ms old, and at the end: a reader downstream never waits on a
    /// record this tool has finished, and 100,000 records do not cost 100,000 system calls.
    private var pending = [UInt8]()
    private var pendingSince: UInt64 = 0
    private static let flushBytes = 1 << 16
    private static let flushNanoseconds: UInt64 = 20_000_000

    /// Writes one result record, stamped with the record schema version.
    public func emit(_ record: JSONObject) throws(CLIError) {
        try emitAsIs(RecordSchema.stamped(record))
    }

    /// Writes a record unchanged (an upstream tool's error record passing through).
    func emitAsIs(_ record: JSONObject) throws(CLIError) {
        if pending.isEmpty { pendingSince = Self.now() }
        JSONWriter.serialize(record, into: &pending)
        pending.append(0x0A)
        if pending.count >= Self.flushBytes || Self.now() - pendingSince >= Self.flushNanoseconds { try flush() }
    }

    /// Writes out every pending record (wiping the buffer: records may hold seeds).
    public func flush() throws(CLIError) {
        guard !pending.isEmpty else { return }
        defer { SecureBytes.wipe(&pending); pending.removeAll(keepingCapacity: true) }
        try output.write(pending)
    }

    private static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    deinit { try? flush() }

    /// Writes an error record to stdout and its message to stderr, and raises the exit status.
    public func report(_ error: any WalletError, at location: RecordLocation = RecordLocation(file: nil, line: nil)) throws(CLIError) {
        status = max(status, error.exitStatus)
        var record = JSONObject()
        record["type"] = .string("error")
        record["code"] = .string(error.code)
        record["message"] = .string(error.message)
        if let file = location.file { record["file"] = .string(file) }
        if let line = location.line { record["line"] = .number(String(line)) }
        for (key, value) in error.details {
            switch value {
            case .int(let n): record[key] = .number(String(n))
            case .string(let s): record[key] = .string(s)
            case .strings(let a): record[key] = .array(a.map { .string($0) })
            }
        }
        var place = location.file ?? "<stdin>"
        if let line = location.line { place += ":\(line)" }
        try? diagnostics.write("\(tool): \(place): \(error.code): \(error.message)\n")
        try emit(record)
        try flush()  // an error is worth seeing at once, beside its stderr line
    }

    /// A warning on stderr ("tool: warning: …"): something the user must know that is no error.
    public func warn(_ message: String) {
        try? diagnostics.write("\(tool): warning: \(message)\n")
    }

    /// A command whose body emits records and throws WalletErrors (keystore, card-info): a
    /// failure is reported on stderr and ends the process with its exit status, as does an
    /// error record the body reported.
    public static func reporting(tool: String, _ body: (RecordPipeline) throws -> Void) throws {
        let pipeline = RecordPipeline(tool: tool)
        do {
            try body(pipeline)
            try pipeline.flush()
            try pipeline.status.exitIfFailed()
        } catch let error as any WalletError {
            try pipeline.fail(error).exitIfFailed()
        }
    }

    /// Reports a fatal error that ends the run (I/O, usage) on stderr only.
    public func fail(_ error: any WalletError) -> ExitStatus {
        try? flush()
        status = max(status, error.exitStatus)
        try? diagnostics.write("\(tool): \(error.code): \(error.message)\n")
        return status
    }

    /// Runs `transform` over every record of the inputs (paths; "-" or none means stdin).
    /// A record that throws becomes an error record and the run goes on; an I/O error stops it.
    public func run(inputs: [String], _ transform: (JSONObject) throws -> JSONObject) -> ExitStatus {
        run(inputs: inputs) { (record: JSONObject, emit: (JSONObject) throws(CLIError) -> Void) throws in
            try emit(try transform(record))
        }
    }

    /// As `run`, for a transform that makes any number of records from one (derive: many
    /// addresses from one seed). `emit` writes each at once, so memory stays flat.
    public func run(inputs: [String], _ transform: (JSONObject, _ emit: (JSONObject) throws(CLIError) -> Void) throws -> Void) -> ExitStatus
    {
        if let status = runPromptedPhrase(inputs: inputs, transform) { return status }
        let paths = inputs.isEmpty ? ["-"] : inputs
        var empty = [String]()
        for path in paths {
            let fd: Int32
            if path == "-" {
                fd = 0
            } else {
                fd = open(path, O_RDONLY | O_CLOEXEC)
                if fd < 0 { return fail(CLIError.cannotOpen(path: path, reason: String(cString: strerror(errno)))) }
            }
            defer { if fd != 0 { close(fd) } }
            let name = path == "-" ? nil : path
            var reader = LineReader(
                fd: fd, name: name ?? "<stdin>", maxLineBytes: maxLineBytes,
                beforeRead: { [unowned self] () throws(CLIError) in try self.flush() })
            do {
                var lines = 0
                while let item = try reader.next() {
                    lines += 1
                    try process(item, file: name, transform)
                    if let ended = endedBy {
                        // One error for the cause, not one per record still to come.
                        try flush()
                        try? diagnostics.write(
                            "\(tool): stopped at \(name ?? "<stdin>"):\(ended): the records after it were not processed\n")
                        return status
                    }
                }
                if lines == 0 { empty.append(name ?? "stdin") }
            } catch {
                return fail(error)
            }
        }
        do { try flush() } catch { return fail(error) }
        // Nothing to do is not an error (a script's empty batch), but a person who forgot the
        // input should not be left wondering why nothing came out.
        if !empty.isEmpty && empty.count == paths.count {
            warn(
                "no input records: \(empty.joined(separator: ", ")) \(empty.count == 1 ? "was" : "were") empty (give records, or a phrase where one is read, on stdin or in a file)"
            )
        }
        return status
    }

    private func process(
        _ item: LineReader.Item, file: String?, _ transform: (JSONObject, (JSONObject) throws(CLIError) -> Void) throws -> Void
    ) throws(CLIError) {
        switch item {
        case .tooLong(let number):
            try report(RecordError.lineTooLong(limit: maxLineBytes), at: RecordLocation(file: file, line: number))
        case .line(let number, let bytes):
            // The reader wipes these bytes when asked for the next line.
            let location = RecordLocation(file: file, line: number)
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
                return try report(RecordError.emptyLine, at: location)
            }
            if let bad = Self.firstInvalidUTF8(bytes) {
                return try report(RecordError.invalidUTF8(offset: bad), at: location)
            }
            let record: JSONObject
            if let textLine, let first = bytes.first, first != UInt8(ascii: "{"),
                let typed = textLine(String(decoding: bytes, as: UTF8.self).trimmingBlanks)
            {
                record = typed
            } else if phraseLines, let typed = PhraseLine.record(bytes) {
                record = typed
            } else {
                do {
                    record = try JSONParser.parseObject(PhraseLine.jsonPart(bytes))
                } catch {
                    return try report(RecordError.invalidJSON(offset: error.offset, reason: error.reason), at: location)
                }
            }
            // An error record from a tool upstream travels on, so it reaches the end of the
            // pipeline with its own line number; it is not this tool's error. Its secret fields
            // (a tool upstream may have copied the input into it) do not travel with it.
            if record["type"] == .string("error") { return try emitAsIs(RecordSchema.passedOn(SecretFields.removed(from: record))) }
            try apply(transform, to: record, at: location)
        }
    }

    private func apply(
        _ transform: (JSONObject, (JSONObject) throws(CLIError) -> Void) throws -> Void,
        to record: JSONObject, at location: RecordLocation
    ) throws(CLIError) {
        do {
            try transform(record, emit)
        } catch let error as CLIError where error.exitStatus == .ioError {
            throw error
        } catch let error as any WalletError {
            try report(error, at: location)
            if error.endsRun { endedBy = location.line ?? 0 }
        } catch {
            try report(InternalError(typeName: String(describing: type(of: error))), at: location)
        }
    }

    /// With `phraseLines`, no input files and a terminal on stdin: asks for the phrase without
    /// echo and runs `transform` on it, instead of waiting silently for JSON. Returns nil when
    /// the input is not a terminal (read it as usual).
    public func runPromptedPhrase(
        inputs: [String], _ transform: (JSONObject, _ emit: (JSONObject) throws(CLIError) -> Void) throws -> Void
    ) -> ExitStatus? {
        guard phraseLines, inputs.isEmpty || inputs == ["-"], isatty(0) != 0 else { return nil }
        let record: JSONObject
        do { record = try PhraseLine.prompted() } catch { return fail(error) }
        return runOnce(record, transform)
    }

    /// Runs `transform` once on `record` without reading any input (derive --wallet: the key
    /// comes from the key store, not from stdin).
    public func runOnce(
        _ record: JSONObject, _ transform: (JSONObject, _ emit: (JSONObject) throws(CLIError) -> Void) throws -> Void
    ) -> ExitStatus {
        do {
            try apply(transform, to: record, at: RecordLocation(file: nil, line: nil))
            try flush()
        } catch {
            return fail(error)
        }
        return status
    }

    /// The offset of the first byte that is not part of well-formed UTF-8, if any.
    static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b < 0x80 { i += 1; continue }
            let length: Int
            var lower: UInt8 = 0x80, upper: UInt8 = 0xBF
            switch b {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; upper = 0x9F
            case 0xF0: length = 4; lower = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; upper = 0x8F
            default: return i
            }
            guard i + length <= bytes.count else { return i }
            for k in 1..<length {
                let c = bytes[i + k]
                let (lo, hi) = k == 1 ? (lower, upper) : (UInt8(0x80), UInt8(0xBF))
                if c < lo || c > hi { return i }
            }
            i += length
        }
        return nil
    }
}

/// One record read alone (a key record for keystore add or scan-blocks), with the same checks
/// as a pipeline line: nil at end of input; too long, not UTF-8, or not an object are errors.
/// With `phraseLines`, a line that is not JSON is a phrase ({"mnemonic": line}), and a
/// terminal on stdin is asked for one without echo.
public enum SingleRecord {
    public static func read(fd: Int32 = 0, maxLineBytes: Int = 1 << 16, phraseLines: Bool = false) throws -> JSONObject? {
        if phraseLines && fd == 0 && isatty(0) != 0 { return try PhraseLine.prompted() }
        var reader = LineReader(fd: fd, name: "<stdin>", maxLineBytes: maxLineBytes)
        switch try reader.next() {
        case nil: return nil
        case .tooLong?: throw RecordError.lineTooLong(limit: maxLineBytes)
        case .line(_, let bytes)?:
            if let bad = RecordPipeline.firstInvalidUTF8(bytes) { throw RecordError.invalidUTF8(offset: bad) }
            if phraseLines, let typed = PhraseLine.record(bytes) { return typed }
            return try JSONParser.parseRecord(PhraseLine.jsonPart(bytes))
        }
    }
}

/// A line as typed or pasted: a seed phrase unless it starts (after blanks) with { or [.
/// Blanks include what editors and web pages put before text unseen: a byte-order mark,
/// no-break and zero-width spaces (a JSON record behind one is still JSON, not a phrase).
public enum PhraseLine {
    public static func phrase(_ bytes: [UInt8]) -> String? {
        guard let first = bytes[leadingInvisibles(bytes)...].first(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }),
            first != UInt8(ascii: "{"), first != UInt8(ascii: "[")
        else {
            return nil
        }
        var text = String(decoding: bytes, as: UTF8.self)
        while text.last == "\r" || text.last == " " || text.last == "\t" { text.removeLast() }
        return text
    }

    /// A line as typed or pasted, as the record it stands for: a lone key under the field
    /// `KeyTokens` names for it, else a phrase ({"mnemonic": line});
    /// nil for a JSON line. A key is one token and a phrase has several words, so a key is
    /// never read as a one-word phrase.
    public static func record(_ bytes: [UInt8]) -> JSONObject? {
        guard let text = phrase(bytes) else { return nil }
        let token = String(text.drop(while: { $0 == " " || $0 == "\t" }))
        if !token.contains(where: { $0 == " " || $0 == "\t" }), let field = KeyTokens.field(of: token) {
            return JSONObject([field: .string(token)])
        }
        return JSONObject(["mnemonic": .string(text)])
    }

    /// A JSON line without the invisible characters before it.
    public static func jsonPart(_ bytes: [UInt8]) -> [UInt8] {
        let skip = leadingInvisibles(bytes)
        return skip == 0 ? bytes : Array(bytes[skip...])
    }

    /// How many leading bytes are blanks, BOMs (EF BB BF), no-break spaces (C2 A0) or
    /// zero-width spaces (E2 80 8B).
    static func leadingInvisibles(_ bytes: [UInt8]) -> Int {
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x20 || bytes[i] == 0x09 { i += 1; continue }
            let rest = bytes[i...]
            if rest.starts(with: [0xEF, 0xBB, 0xBF]) || rest.starts(with: [0xE2, 0x80, 0x8B]) { i += 3; continue }
            if rest.starts(with: [0xC2, 0xA0]) { i += 2; continue }
            break
        }
        return i
    }

    /// The phrase asked for on the terminal without echo, as a phrase record.
    public static func prompted() throws(SecretInputError) -> JSONObject {
        let phrase = try SecretInput.read(.prompt(label: "Seed phrase (not shown): ", confirm: false))
        return JSONObject(["mnemonic": .string(String(decoding: phrase.bytes, as: UTF8.self))])
    }
}

/// An error that is a bug in Satchel, not in the input. It names only the error's type.
public struct InternalError: WalletError {
    public let typeName: String
    public var code: String { "internal" }
    public var message: String { "internal error (\(typeName)); please report it" }
    public var exitStatus: ExitStatus { .software }
}

extension String {
    /// Without the spaces, tabs and carriage return a line may end (or start) with.
    var trimmingBlanks: String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        return String(self.drop(while: blank).reversed().drop(while: blank).reversed())
    }
}
