import Foundation
import KeySources
import ScanRecords
import XCTest
import WalletRecords

/// A secret file read a line at a time (a --wallets file): no size limit, the same checks as
/// a whole secret file, each line's own limit.
final class SecretLinesTests: XCTestCase {
    var path = ""

    override func setUpWithError() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-lines-\(UUID().uuidString)").path
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: path) }

    private func write(_ bytes: [UInt8], mode: Int = 0o600) {
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes), attributes: [.posixPermissions: mode]))
    }

    private func lines() throws -> [(String, Int)] {
        var got = [(String, Int)]()
        try SecretInput.forEachLine(ofFile: path) { got.append((String(decoding: $0, as: UTF8.self), $1)) }
        return got
    }

    func testLinesOfALargeFile() throws {
        // 3 MB in lines of 100 bytes, CRLF on some, the last without a newline.
        var text = ""
        for i in 0..<30_000 { text += String(repeating: "x", count: 90) + String(format: "%09d", i) + (i % 7 == 0 ? "\r\n" : "\n") }
        text += "last"
        write(Array(text.utf8))
        let got = try lines()
        XCTAssertEqual(got.count, 30_001)
        XCTAssertEqual(got[12_345].0, String(repeating: "x", count: 90) + "000012345")
        XCTAssertEqual(got[14].1, 15)
        XCTAssertTrue(got[14].0.hasSuffix("000000014"))
        XCTAssertEqual(got.last?.0, "last")
        XCTAssertEqual(got.last?.1, 30_001)
        XCTAssertTrue(got.allSatisfy { !$0.0.contains("\r") })
    }

    func testRefusals() throws {
        write(Array("a\n".utf8), mode: 0o644)
        XCTAssertThrowsError(try lines()) { XCTAssertEqual($0 as? SecretInputError, .readableByOthers(path: path, mode: "644")) }
        try FileManager.default.removeItem(atPath: path)
        write(Array("short\n".utf8) + [UInt8](repeating: 0x61, count: SecretInput.maxBytes + 1) + [0x0A])
        var seen = 0
        XCTAssertThrowsError(try SecretInput.forEachLine(ofFile: path) { _, _ in seen += 1 }) {
            XCTAssertEqual($0 as? SecretInputError, .tooLong(limit: SecretInput.maxBytes))
        }
        XCTAssertEqual(seen, 1)
        try FileManager.default.removeItem(atPath: path)
        write([0x61, 0x0A, 0xFF, 0x0A])
        XCTAssertThrowsError(try lines()) { XCTAssertEqual($0 as? SecretInputError, .notUTF8) }
        XCTAssertThrowsError(try SecretInput.forEachLine(ofFile: path + ".missing") { _, _ in }) {
            guard case .cannotOpen? = $0 as? SecretInputError else { return XCTFail("\($0)") }
        }
    }
}
