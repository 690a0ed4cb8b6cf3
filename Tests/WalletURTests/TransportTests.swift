import Foundation
import SatchelTestSupport
import WalletCore
import XCTest

@testable import WalletUR

/// Every PSBT and Ethereum fixture through UR and BBQr at several fragment sizes — parts
/// shuffled, duplicated, mixed with another message's — and both transports against the
/// independent Python codec (scripts/qr-oracle.py) both ways.
final class TransportTests: XCTestCase {
    private func psbts() throws -> [[UInt8]] {
        let text = try String(contentsOf: TestPaths.fixtures.appendingPathComponent("psbt/rpc_psbt-valid.txt"), encoding: .utf8)
        let all = text.split(separator: "\n").map { Array(Data(base64Encoded: String($0))!) }
        XCTAssertEqual(all.count, 18)
        return all
    }

    private func ethereum() throws -> [[UInt8]] {
        let text = try String(contentsOf: TestPaths.fixtures.appendingPathComponent("ethereum/eth-account-vectors.jsonl"), encoding: .utf8)
        let all = try text.split(separator: "\n").map { line -> [UInt8] in
            let doc = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            let expect = doc["expect"] as! [String: Any]
            let raw = (expect["raw"] ?? expect["signature"] ?? expect["hash"]) as! String
            return try Hex.decode(String(raw.dropFirst(2)))
        }
        XCTAssertEqual(all.count, 71)
        return all
    }

    private func shuffledTwice(_ items: [String], seed: String) -> [String] {
        var rng = Xoshiro256(seed: Array(seed.utf8))
        return rng.shuffled(items + items)
    }

    func testEveryFixtureThroughURAndBBQr() throws {
        let path = KeyPath(path: [0x8000_002C, 0x8000_003C, 0x8000_0000, 0, 0], sourceFingerprint: 0x7375_6b6f)
        var payloads = try psbts().map { try PSBTPayload.ur($0) }
        payloads += try ethereum().enumerated().map { i, data in
            try EthSignRequest(
                requestId: Array(repeating: UInt8(i), count: 16), signData: data, dataType: .typedTransaction, chainId: 1, path: path,
                address: nil, origin: "test"
            ).ur()
        }
        let other = try PSBTPayload.ur(Array(repeating: 0x55, count: 700))
        for (n, ur) in payloads.enumerated() {
            for size in [20, 100, 400] {
                var encoder = UREncoder(ur, maxFragmentLength: size)
                var noise = UREncoder(other, maxFragmentLength: size)
                var texts = (0..<(encoder.sequenceLength * 2 + 2)).map { _ in encoder.nextPart() }
                texts = shuffledTwice(texts, seed: "\(n)-\(size)")
                var decoder = URDecoder()
                for (i, text) in texts.enumerated() where !decoder.isComplete {
                    try decoder.receive(i % 3 == 0 ? text.uppercased() : text)
                    // Another message's part, now and then: refused, and nothing lost.
                    if i % 5 == 2, !decoder.isComplete, !encoder.isSinglePart {
                        XCTAssertThrowsError(try decoder.receive(noise.nextPart()))
                    }
                }
                XCTAssertEqual(decoder.result, ur, "payload \(n), fragments of \(size)")
            }
            for (encoding, chars) in [(BBQr.Encoding.hex, 60), (.base32, 200), (.zlib, 1000)] {
                let parts = try BBQr.split(ur.cbor, type: .cbor, encoding: encoding, maxCharacters: chars)
                XCTAssertTrue(parts.allSatisfy { $0.count <= chars && $0.count > 8 }, "payload \(n)")
                var joiner = BBQrJoiner()
                for part in shuffledTwice(parts, seed: "b\(n)") { try joiner.receive(part) }
                XCTAssertEqual(joiner.result, ur.cbor, "payload \(n), BBQr \(encoding)")
            }
        }
    }

    func testBBQrMissingPartOtherSetAndBadData() throws {
        let data = (0..<3000).map { UInt8($0 % 251) }
        let parts = try BBQr.split(data, type: .psbt, encoding: .hex, maxCharacters: 500)
        XCTAssertEqual(parts.count, 13)
        XCTAssertEqual(String(parts[0].prefix(8)), "B$HP0D00")
        XCTAssertEqual(Set(parts.dropLast().map(\.count)).count, 1)
        var joiner = BBQrJoiner()
        for (i, part) in parts.enumerated() where i != 4 && i != 11 { try joiner.receive(part) }
        XCTAssertNil(joiner.result)
        XCTAssertEqual(joiner.missing, [4, 11])
        let other = try BBQr.split(data, type: .transaction, encoding: .hex, maxCharacters: 500)
        XCTAssertEqual((error { try joiner.receive(other[4]) })?.code, "ur.other_message")
        var changed = Array(parts[4])
        changed[20] = changed[20] == "A" ? "B" : "A"
        XCTAssertEqual((error { try joiner.receive(String(changed)) }), nil)
        XCTAssertEqual((error { try joiner.receive(parts[4]) })?.code, "ur.other_message")
        XCTAssertEqual(joiner.missing, [11])
        try joiner.receive(parts[11])
        XCTAssertNotEqual(joiner.result, data)
        // Base32 whose last bits are not zero, and a Z stream written with a 32 KiB window.
        XCTAssertEqual((error { _ = try Base32.decode("AB") })?.code, "ur.part")
        XCTAssertEqual(Base32.encode(Array("foobar".utf8)), "MZXW6YTBOI")
        XCTAssertEqual(try Base32.decode("mzxw6ytboi"), Array("foobar".utf8))
        let wide = try Shell.run(
            "python3 -c 'import zlib,sys; c=zlib.compressobj(9,zlib.DEFLATED,-15); import random; d=random.Random(1).randbytes(2000)*3; sys.stdout.write((c.compress(d)+c.flush()).hex())'"
        )
        XCTAssertEqual(wide.status, 0, wide.stderr)
        XCTAssertThrowsError(try BBQr.inflateRaw(try Hex.decode(wide.out), limit: 1 << 20))
        // A small stream that would inflate past the limit.
        XCTAssertEqual(
            (error { _ = try BBQr.inflateRaw(try BBQr.deflateRaw([UInt8](repeating: 0, count: 100_000)), limit: 50_000) })?.code,
            "ur.too_large")
    }

    private func error(_ body: () throws -> Void) -> URError? {
        do {
            try body()
            return nil
        } catch { return error as? URError }
    }

    private func oracle(_ args: String, _ input: String) throws -> [String] {
        let result = try Shell.run("python3 scripts/qr-oracle.py \(args)", stdin: Data(input.utf8))
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.lines
    }

    func testAgreesWithTheIndependentPythonCodec() throws {
        for (n, psbt) in try psbts().enumerated() {
            let ur = try PSBTPayload.ur(psbt)
            // Ours → theirs: parts from the mixed region on (seq seqLen+3 …), so their fountain
            // decoding is exercised too.
            var encoder = UREncoder(ur, maxFragmentLength: 60, firstSequence: 3)
            let ours = (0..<(encoder.sequenceLength * 3)).map { _ in encoder.nextPart() }
            XCTAssertEqual(try oracle("ur-decode", ours.joined(separator: "\n")), ["crypto-psbt " + Hex.encode(ur.cbor)], "psbt \(n)")
            // Theirs → ours, byte for byte the same parts as ours from seq 1.
            let theirs = try oracle("ur-encode crypto-psbt 60 \(max(2 * encoder.sequenceLength, 1))", Hex.encode(ur.cbor))
            var fromOne = UREncoder(ur, maxFragmentLength: 60)
            XCTAssertEqual(theirs, theirs.map { _ in fromOne.nextPart() }, "psbt \(n)")
            var decoder = URDecoder()
            for text in theirs.reversed() where !decoder.isComplete { try decoder.receive(text) }
            XCTAssertEqual(decoder.result, ur)

            for encoding in ["H", "2", "Z"] {
                let split = try BBQr.split(psbt, type: .psbt, encoding: BBQr.Encoding(rawValue: Character(encoding))!, maxCharacters: 300)
                XCTAssertEqual(try oracle("bbqr-join", split.joined(separator: "\n")), ["P " + Hex.encode(psbt)], "psbt \(n) \(encoding)")
                let theirParts = try oracle("bbqr-split P \(encoding) 300", Hex.encode(psbt))
                var joiner = BBQrJoiner()
                for part in theirParts.reversed() { try joiner.receive(part) }
                XCTAssertEqual(joiner.result, psbt, "psbt \(n) \(encoding)")
            }
        }
    }
}
