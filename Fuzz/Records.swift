#if canImport(Glibc)
    import Glibc
#endif
import DeriveRecords
import KeySources
import ScanRecords
import WalletCore
import WalletRecords

/// JSON Lines: the line reader, the JSON parser and writer, and a whole record pipeline.
enum RecordTargets {
    static let all = [
        FuzzTarget(name: "line-reader", covers: "LineReader: lines of at most 64 bytes from a file", run: lineReader),
        FuzzTarget(name: "json", covers: "JSONParser and JSONWriter", run: json),
        FuzzTarget(name: "records", covers: "RecordPipeline: lines, phrases, JSON records, error records", run: records),
    ]

    /// Every input line comes out as split(separator: "\n") says, "\r" stripped, or as too long.
    static func lineReader(_ bytes: [UInt8]) {
        let fd = scratch.input(bytes)
        var reader = LineReader(fd: fd, name: "fuzz", maxLineBytes: 64)
        var expected = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { Array($0) }
        if expected.last == [] { expected.removeLast() }
        var number = 0
        while let item = try! reader.next() {
            holds(number < expected.count, "more lines than the input has")
            var line = expected[number]
            number += 1
            if line.last == 0x0D { line.removeLast() }
            switch item {
            case .line(let n, let got):
                holds(n == number && got == line, "line \(number) read as \(got.count) bytes, not its \(line.count)")
            case .tooLong(let n):
                holds(n == number && line.count > 64, "line \(number) of \(line.count) bytes called too long")
            }
        }
        holds(number == expected.count, "\(number) lines read of \(expected.count)")
    }

    /// write ∘ parse is a fixed point after one round: what we write, we read back unchanged.
    static func json(_ bytes: [UInt8]) {
        guard let value = try? JSONParser.parse(bytes) else { return }
        var once = [UInt8]()
        JSONWriter.serialize(value, into: &once)
        let again: JSONValue
        do { again = try JSONParser.parse(once) } catch { holds(false, "our own output does not parse: \(error.reason)"); return }
        holds(again == value, "a value changed on a write and read")
        var twice = [UInt8]()
        JSONWriter.serialize(again, into: &twice)
        holds(twice == once, "writing the same value twice gave different bytes")
    }

    /// One output line per input line, each a JSON object that starts with "type" and "v", and
    /// the last ends in a newline: no line lost, none made twice, none half-written.
    static func records(_ bytes: [UInt8]) {
        // A whole pipeline per input: 1 KiB (lines longer than the 256-byte limit among them)
        // keeps it at hundreds of inputs a second.
        guard bytes.count <= 1024 else { return }
        let input = scratch.input(bytes)
        let output = scratch.output()
        let pipeline = RecordPipeline(
            tool: "fuzz", output: OutputStream(fd: output), diagnostics: OutputStream(fd: scratch.null), maxLineBytes: 256)
        pipeline.phraseLines = bytes.first.map { $0 & 1 == 1 } ?? false
        _ = pipeline.run(inputs: ["/proc/self/fd/\(input)"]) { (record: JSONObject) throws -> JSONObject in
            var echoed = record
            echoed["type"] = .string("echo")
            return echoed
        }
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).count
        if bytes.last == 0x0A || bytes.isEmpty { lines -= 1 }
        let written = scratch.read(output)
        holds(written.isEmpty || written.last == 0x0A, "the output ends inside a line")
        let out = written.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast()
        holds(out.count == lines, "\(lines) input lines gave \(out.count) records")
        for line in out {
            guard let record = try? JSONParser.parseObject(Array(line)) else { holds(false, "an output line is not a JSON object"); return }
            holds(
                record.keys.count >= 2 && record.keys[0] == "type" && record.keys[1] == "v",
                "a record does not start with type and v: \(record.keys)")
        }
    }
}

/// Unlinked temporary files, reused across inputs (a file per input would be the fuzzer's cost).
enum scratch {
    nonisolated(unsafe) static var files: (input: Int32, output: Int32)?
    static let null = open("/dev/null", O_WRONLY)

    static func make() -> Int32 {
        var template = Array("/tmp/satchel-fuzz-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        precondition(fd >= 0, "mkstemp failed")
        unlink(template)
        return fd
    }

    static func pair() -> (input: Int32, output: Int32) {
        if let files { return files }
        let made = (make(), make())
        files = made
        return made
    }

    static func input(_ bytes: [UInt8]) -> Int32 {
        let fd = pair().input
        precondition(ftruncate(fd, 0) == 0 && pwrite(fd, bytes, bytes.count, 0) == bytes.count && lseek(fd, 0, SEEK_SET) == 0)
        return fd
    }

    static func output() -> Int32 {
        let fd = pair().output
        precondition(ftruncate(fd, 0) == 0 && lseek(fd, 0, SEEK_SET) == 0)
        return fd
    }

    static func read(_ fd: Int32) -> [UInt8] {
        let size = Int(lseek(fd, 0, SEEK_END))
        var out = [UInt8](repeating: 0, count: size)
        precondition(pread(fd, &out, size, 0) == size)
        return out
    }
}
