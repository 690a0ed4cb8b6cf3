import WalletCore
import XCTest

@testable import WalletUR

/// What a reader of QR frames meets: parts in any order, twice, of another message, misread,
/// or lying; and CBOR that is not in its one deterministic form.
final class URDecoderTests: XCTestCase {
    private func bytes(_ n: Int, seed: String) -> [UInt8] {
        var rng = Xoshiro256(seed: Array(seed.utf8))
        return rng.nextData(n)
    }

    private func code(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as URError { return error.code } catch { return "\(error)" }
    }

    func testCBORRoundTripAndStrictReading() throws {
        let item = CBOR.map([
            (.unsigned(1), .tagged(40303, .array([.unsigned(0), .unsigned(23), .unsigned(24), .unsigned(255), .unsigned(256)]))),
            (.unsigned(2), .bytes([1, 2, 3])), (.unsigned(3), .text("Satchel ✓")), (.unsigned(4), .negative(0)),
            (.unsigned(5), .bool(true)), (.unsigned(6), .null), (.unsigned(7), .unsigned(1 << 40)),
        ])
        let encoded = item.encoded
        XCTAssertEqual(
            Hex.encode(encoded),
            "a701d99d6f850017181818ff1901000243010203036b5361746368656c20e29c93042005f506f6071b0000010000000000")
        XCTAssertEqual(try CBOR(decoding: encoded), item)
        XCTAssertEqual(item[2], .bytes([1, 2, 3]))
        // A map of 100,000 distinct keys reads back whole (duplicates are found through a set
        // of the keys' encodings).
        let big = CBOR.map((0..<100_000).map { (CBOR.unsigned(UInt64($0)), CBOR.null) })
        XCTAssertEqual(try CBOR(decoding: big.encoded), big)
        for (hex, why) in [
            ("1817", "a small number in a long head"), ("190017", "a two-byte head for a one-byte number"),
            ("5f4101ff", "an indefinite byte string"), ("9f01ff", "an indefinite array"), ("f93c00", "a half float"),
            ("0101", "a byte after the item"), ("a2010101 02".replacingOccurrences(of: " ", with: ""), "truncated map"),
            ("a201010102", "a key twice"), ("43 0102".replacingOccurrences(of: " ", with: ""), "a byte string past the end"),
            ("62c328", "a text string that is not UTF-8"), ("9b00000000ffffffff", "an array longer than the data"),
            ("1c", "a reserved head"), (String(repeating: "81", count: 40) + "00", "too deep"),
            ("a2" + "4101" + "00" + "4101" + "01", "a byte-string key twice"),
        ] {
            XCTAssertEqual(code { _ = try CBOR(decoding: try Hex.decode(hex)) }, "ur.cbor", why)
        }
    }

    func testPartsShuffledDuplicatedAtSeveralSizes() throws {
        for (length, fragment) in [(1, 10), (100, 10), (1000, 30), (5000, 200), (20000, 1000)] {
            let message = bytes(length, seed: "m\(length)")
            let ur = try UR(type: "crypto-psbt", cbor: CBOR.bytes(message).encoded)
            var encoder = UREncoder(ur, maxFragmentLength: fragment)
            // Twice as many parts as fragments, shuffled, each given twice; a reader that
            // misses the first half of the pure fragments still completes from the mixes.
            let count = 2 * encoder.sequenceLength + 4
            var texts = (0..<count).map { _ in encoder.nextPart() }
            if !encoder.isSinglePart { texts.removeFirst(encoder.sequenceLength / 2) }
            var rng = Xoshiro256(seed: Array("order\(length)".utf8))
            texts = rng.shuffled(texts + texts)
            var decoder = URDecoder()
            var used = 0
            for text in texts where !decoder.isComplete {
                try decoder.receive(used % 2 == 0 ? text : text.uppercased())
                used += 1
            }
            XCTAssertEqual(decoder.result, ur, "\(length) bytes in \(fragment)-byte fragments")
            XCTAssertEqual(encoder.isSinglePart, length + 3 <= fragment)
        }
    }

    func testOtherMessageIsRefusedAndTheOneInProgressKept() throws {
        var first = UREncoder(try UR(type: "crypto-psbt", cbor: CBOR.bytes(bytes(300, seed: "a")).encoded), maxFragmentLength: 50)
        var other = UREncoder(try UR(type: "crypto-psbt", cbor: CBOR.bytes(bytes(300, seed: "b")).encoded), maxFragmentLength: 50)
        var otherType = UREncoder(try UR(type: "bytes", cbor: CBOR.bytes(bytes(300, seed: "a")).encoded), maxFragmentLength: 50)
        var decoder = URDecoder()
        try decoder.receive(first.nextPart())
        XCTAssertEqual(code { try decoder.receive(other.nextPart()) }, "ur.other_message")
        XCTAssertEqual(code { try decoder.receive(otherType.nextPart()) }, "ur.other_message")
        XCTAssertEqual(decoder.progress.parts, 1)
        while !decoder.isComplete { try decoder.receive(first.nextPart()) }
        XCTAssertEqual(decoder.result, first.ur)
    }

    func testMisreadPartIsAChecksumErrorAndChangesNothing() throws {
        var encoder = UREncoder(try UR(type: "bytes", cbor: CBOR.bytes(bytes(200, seed: "c")).encoded), maxFragmentLength: 40)
        var decoder = URDecoder()
        let good = encoder.nextPart()
        // One letter of the body changed to another byteword's: the Bytewords CRC catches it.
        var letters = Array(good)
        let at = letters.count - 12
        letters[at] = letters[at] == "a" ? "b" : "a"
        XCTAssertNotEqual(code { try decoder.receive(String(letters)) }, nil)
        XCTAssertEqual(decoder.progress.parts, 0)
        try decoder.receive(good)
        XCTAssertEqual(decoder.progress.parts, 1)
    }

    /// Parts whose own checksums hold but whose data is not the message's: every fragment
    /// arrives, the whole fails the message checksum, nothing is returned.
    func testLyingPartsNeverAssemble() throws {
        let message = bytes(120, seed: "d")
        var encoder = FountainEncoder(message: message, maxFragmentLength: 40)
        var decoder = FountainDecoder()
        var thrown: String?
        for i in 0..<encoder.sequenceLength {
            let part = encoder.nextPart()
            var data = part.data
            if i == 1 { data[0] ^= 1 }
            let forged = FountainPart(
                sequence: part.sequence, sequenceLength: part.sequenceLength, messageLength: part.messageLength,
                checksum: part.checksum, data: data)
            thrown = code { try decoder.receive(forged) } ?? thrown
        }
        XCTAssertEqual(thrown, "ur.part")
        XCTAssertNil(decoder.message)
        XCTAssertNil(decoder.expected)
    }

    func testBoundsAndSyntax() throws {
        // A part claiming 20,000 fragments, or a 5 MiB message, is refused before anything is held.
        let tooMany = CBOR.array([.unsigned(1), .unsigned(20000), .unsigned(20000), .unsigned(7), .bytes([0])]).encoded
        XCTAssertEqual(code { _ = try FountainPart(cbor: tooMany) }, "ur.too_large")
        let tooLong = CBOR.array([.unsigned(1), .unsigned(2), .unsigned(5 << 20), .unsigned(7), .bytes([0])]).encoded
        XCTAssertEqual(code { _ = try FountainPart(cbor: tooLong) }, "ur.too_large")
        let misfit = CBOR.array([.unsigned(1), .unsigned(2), .unsigned(100), .unsigned(7), .bytes([0])]).encoded
        XCTAssertEqual(code { _ = try FountainPart(cbor: misfit) }, "ur.part")
        for text in [
            "ur:", "ur:bytes", "ur:by_tes/aeadaolazmjendeoti", "ur:bytes/1-x/aeadaolazmjendeoti", "ur:bytes/a/b/c/d", "bytes/aead",
        ] {
            XCTAssertEqual(code { _ = try URText(text) }, "ur.syntax", text)
        }
        // The path's seq-len must be the body's.
        var encoder = UREncoder(try UR(type: "bytes", cbor: CBOR.bytes(bytes(100, seed: "e")).encoded), maxFragmentLength: 30)
        let part = encoder.nextPart()
        XCTAssertEqual(code { _ = try URText(part.replacingOccurrences(of: "/1-", with: "/2-")) }, "ur.part")
    }
}
