import XCTest
import WalletCore
@testable import WalletRecords

final class JSONTests: XCTestCase {
    private func parse(_ text: String) throws -> JSONObject { try JSONParser.parseObject(Array(text.utf8)) }

    func testKeepsKeyOrderAndNumberText() throws {
        let text = #"{"z":1,"a":18446744073709551616123,"m":-0.5e+10,"s":"x\"\\\/\n\u00e9\ud83d\ude00","n":null,"b":[true,false,{}]}"#
        let object = try parse(text)
        XCTAssertEqual(object.keys, ["z", "a", "m", "s", "n", "b"])
        XCTAssertEqual(object["a"], .number("18446744073709551616123"))
        XCTAssertEqual(object["s"], .string("x\"\\/\n\u{e9}😀"))
        let written = String(decoding: JSONWriter.line(object), as: UTF8.self)
        XCTAssertEqual(written, #"{"z":1,"a":18446744073709551616123,"m":-0.5e+10,"s":"x\"\\/\né😀","n":null,"b":[true,false,{}]}"# + "\n")
        XCTAssertEqual(try parse(String(written.dropLast())), object)
    }

    func testWriterEscapesControlCharacters() {
        var object = JSONObject()
        object["k"] = .string("a\u{0}b\u{1f}c\u{7f}\r\t")
        XCTAssertEqual(String(decoding: JSONWriter.line(object), as: UTF8.self), #"{"k":"a\u0000b\u001fc\u007f\r\t"}"# + "\n")
    }

    func testRejectsWhatIsNotAJSONObject() {
        let bad = [
            "", "[]", "\"x\"", "{", "{\"a\":}", "{\"a\":1,}", "{\"a\":01}", "{\"a\":1.}", "{\"a\":+1}",
            "{\"a\":\"\\x\"}", "{\"a\":\"\\ud800\"}", "{\"a\":\"\\udc00\"}", "{\"a\":tru}", "{\"a\":1} x",
            "{\"a\":1,\"a\":2}", "{a:1}", "{\"a\":\"tab\there\"}", "{'a':1}",
            String(repeating: "{\"a\":", count: 70) + "1" + String(repeating: "}", count: 70),
        ]
        for text in bad {
            XCTAssertThrowsError(try parse(text), text.prefix(30).description)
        }
    }

    func testSyntaxErrorOffset() {
        XCTAssertThrowsError(try parse(#"{"a": nope}"#)) {
            XCTAssertEqual(($0 as? JSONSyntaxError)?.offset, 6)
        }
        XCTAssertThrowsError(try parse(#"{"a":1,"a":2}"#)) {
            XCTAssertEqual(($0 as? JSONSyntaxError)?.reason, #"duplicate key "a""#)
        }
    }

    func testUTF8Validation() {
        XCTAssertNil(RecordPipeline.firstInvalidUTF8(Array("plain é 漢 😀".utf8)))
        XCTAssertEqual(RecordPipeline.firstInvalidUTF8([0x41, 0xC3]), 1)  // truncated
        XCTAssertEqual(RecordPipeline.firstInvalidUTF8([0x41, 0xC0, 0x80]), 1)  // overlong
        XCTAssertEqual(RecordPipeline.firstInvalidUTF8([0xED, 0xA0, 0x80]), 0)  // surrogate
        XCTAssertEqual(RecordPipeline.firstInvalidUTF8([0xF4, 0x90, 0x80, 0x80]), 0)  // > U+10FFFF
        XCTAssertEqual(RecordPipeline.firstInvalidUTF8([0x20, 0xFF]), 1)
    }
}

final class LineReaderTests: XCTestCase {
    /// Feeds `input` through a pipe and collects what the reader makes of it.
    private func lines(_ input: [UInt8], max: Int) throws -> [String] {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        let (readEnd, writeEnd) = (fds[0], fds[1])
        let writer = Thread {
            var offset = 0
            while offset < input.count {
                let n = input.withUnsafeBytes { write(writeEnd, $0.baseAddress! + offset, min(4096, input.count - offset)) }
                if n <= 0 { break }
                offset += n
            }
            close(writeEnd)
        }
        writer.start()
        defer { close(readEnd) }
        var reader = LineReader(fd: readEnd, name: "test", maxLineBytes: max)
        var out = [String]()
        while let item = try reader.next() {
            switch item {
            case .line(let n, let bytes): out.append("\(n):\(String(decoding: bytes, as: UTF8.self))")
            case .tooLong(let n): out.append("\(n):TOO LONG")
            }
        }
        return out
    }

    func testSplitsLinesAndStripsCRLF() throws {
        XCTAssertEqual(try lines(Array("a\r\nbc\n\nlast".utf8), max: 100), ["1:a", "2:bc", "3:", "4:last"])
        XCTAssertEqual(try lines(Array("a\n".utf8), max: 100), ["1:a"])
        XCTAssertEqual(try lines([], max: 100), [])
    }

    func testLongLinesAreSkippedWithoutBuffering() throws {
        let long = [UInt8](repeating: 0x41, count: 3_000_000)
        let input = Array("ok\n".utf8) + long + Array("\nafter\n".utf8)
        XCTAssertEqual(try lines(input, max: 1 << 20), ["1:ok", "2:TOO LONG", "3:after"])
        XCTAssertEqual(try lines(Array("12345\n123456\n".utf8), max: 5), ["1:12345", "2:TOO LONG"])
    }
}
