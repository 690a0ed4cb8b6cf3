import QRRecords
import WalletCore
import WalletUR
import XCTest

/// What a screen (hostile or just moving on) shows the signer's QR input: a BBQr set that
/// fails to inflate, a new set sharing a part's text with one signed, the same UR whole and
/// in parts, a count of ZZ, a UR message that fails its checksum.
final class QRInputTests: XCTestCase {
    private func code(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as URError { return error.code + ": " + error.message } catch { return "\(error)" }
    }

    private func data(_ n: Int, _ seed: UInt8) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) } }

    /// A Z set whose DEFLATE stream is cut short, and the 64 MiB bomb: each dropped when it
    /// fails, so the next set is read as any is and nothing is said to be missing.
    func testSetThatFailsToInflateIsDropped() throws {
        let input = QRInput()
        let good = try BBQr.split(data(3000, 1), type: .psbt, encoding: .zlib, maxCharacters: 200)
        // Cut: the last part keeps the whole 8-character groups of its body but the last
        // (5 bytes of the stream, and the partial group).
        var cut = try BBQr.split(data(3000, 2), type: .psbt, encoding: .zlib, maxCharacters: 200)
        XCTAssertGreaterThan(cut.count, 1)
        let body = cut[cut.count - 1].dropFirst(8)
        cut[cut.count - 1] = String(cut[cut.count - 1].prefix(8) + body.prefix((body.count - 1) / 8 * 8 - 8))
        for text in cut.dropLast() { XCTAssertNil(try input.take(text).message) }
        XCTAssertEqual(
            code { _ = try input.take(cut.last!) },
            "ur.part: the BBQr set of \(cut.count) parts was dropped: its Z data is not raw DEFLATE with a 1 KiB window (zlib status -5)")
        XCTAssertNil(input.unfinished)
        // A set of 64 MiB of zeros (a few hundred parts), beyond the 4 MiB read.
        let bomb = try BBQr.split([UInt8](repeating: 0, count: 64 << 20), type: .psbt, encoding: .zlib, maxCharacters: 1000)
        for text in bomb.dropLast() { XCTAssertNil(try input.take(text).message) }
        XCTAssertEqual(
            code { _ = try input.take(bomb.last!) },
            "ur.too_large: a BBQr Z stream inflates to more than \(FountainDecoder.maxMessageLength) bytes; the set was dropped")
        XCTAssertNil(input.unfinished)
        var message: QRInput.Message?
        for text in good { message = try input.take(text).message ?? message }
        XCTAssertEqual(message?.payload, data(3000, 1))
    }

    /// A second set (a fee bump of the same size) whose last part's text is one of the first
    /// set's: signed, whichever part comes first; the first set shown again is skipped whole.
    func testNewSetSharingAPartsTextIsRead() throws {
        var a = data(600, 3), b = a
        b[0] ^= 0xFF
        let first = try BBQr.split(a, type: .psbt, encoding: .hex, maxCharacters: 500)
        let second = try BBQr.split(b, type: .psbt, encoding: .hex, maxCharacters: 500)
        XCTAssertEqual(first.count, 3)
        XCTAssertEqual(first.last, second.last)
        XCTAssertNotEqual(first.first, second.first)
        let input = QRInput()
        var messages: [[UInt8]] = []
        func show(_ texts: [String]) throws { for t in texts { if let m = try input.take(t).message { messages.append(m.payload) } } }
        try show(first)
        XCTAssertEqual(messages, [a])
        // The camera goes on reading the first set: never signed again.
        try show(first + first.reversed())
        XCTAssertEqual(messages, [a])
        XCTAssertEqual(try input.take(first[0]).progress, "BBQr: 1 of 3 parts (33%)")
        // The second set, its shared last part first, then the others.
        try show([second[2], second[0], second[1], second[2]])
        XCTAssertEqual(messages, [a, b])
        a[300] ^= 1
        // A third after both, its first part the first set's text too; a stale part of the
        // first set where the third already holds its own part 2 is skipped, not an error.
        let third = try BBQr.split(a, type: .psbt, encoding: .hex, maxCharacters: 500)
        XCTAssertNotEqual(third[1], first[1])
        XCTAssertEqual(third[0], first[0])
        XCTAssertEqual(try input.take(third[1]).progress, "BBQr: 1 of 3 parts (33%)")
        XCTAssertEqual(try input.take(third[0]).progress, "BBQr: 2 of 3 parts (66%)")
        XCTAssertEqual(try input.take(first[1]).progress, "BBQr: a part of a set already signed, skipped")
        try show([third[2]])
        XCTAssertEqual(messages, [data(600, 3), b, a])
    }

    /// The same PSBT as a single-part UR, then as parts: signed once.
    func testSameURWholeThenInPartsIsOneMessage() throws {
        let ur = try PSBTPayload.ur(data(400, 4))
        let input = QRInput()
        XCTAssertNotNil(try input.take(ur.text).message)
        var parts = UREncoder(ur, maxFragmentLength: 100)
        for _ in 0..<8 {
            let (message, progress) = try input.take(parts.nextPart())
            XCTAssertNil(message)
            XCTAssertEqual(progress, "a part of a UR already signed, skipped")
        }
        // And the other way round.
        let other = try PSBTPayload.ur(data(400, 5))
        var otherParts = UREncoder(other, maxFragmentLength: 100)
        var signed = 0
        for _ in 0..<otherParts.sequenceLength { if try input.take(otherParts.nextPart()).message != nil { signed += 1 } }
        XCTAssertEqual(signed, 1)
        XCTAssertEqual(try input.take(other.text).progress, "a part of a UR already signed, skipped")
    }

    /// A count of ZZ (1,295 parts) with one part in: 20 missing parts named, and how many more.
    func testMissingPartsAreListedBriefly() throws {
        let input = QRInput()
        _ = try input.take("B$HPZZ00AB")
        XCTAssertEqual(
            input.unfinished,
            "a BBQr set of 1295 parts lacks part(s) " + (2...21).map(String.init).joined(separator: ", ") + " and 1274 more")
    }

    /// Parts whose message fails its checksum: the message is dropped, and nothing is said to
    /// be in progress (not "0 of its 0 fragments").
    func testURMessageThatFailsItsChecksumLeavesNothingInProgress() throws {
        let message = data(90, 6)
        var encoder = FountainEncoder(message: message, maxFragmentLength: 30)
        let input = QRInput()
        var thrown: String?
        for _ in 0..<encoder.sequenceLength {
            let part = encoder.nextPart()
            let lying = FountainPart(
                sequence: part.sequence, sequenceLength: part.sequenceLength, messageLength: part.messageLength,
                checksum: part.checksum ^ 1, data: part.data)
            let text = "ur:bytes/\(part.sequence)-\(part.sequenceLength)/" + Bytewords.encode(lying.cbor, style: .minimal)
            thrown = code { _ = try input.take(text) } ?? thrown
        }
        XCTAssertEqual(thrown, "ur.part: its parts assembled into a message that fails the message checksum; the message was dropped")
        XCTAssertNil(input.unfinished)
    }
}
