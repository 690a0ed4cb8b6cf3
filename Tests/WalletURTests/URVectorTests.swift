import Foundation
import SatchelTestSupport
import WalletCore
import XCTest

@testable import WalletUR

/// Every vector of vectors/ur (bc-ur's test.cpp and the BCR papers, checked against Sparrow's
/// Hummingbird): CRC-32, Bytewords, Xoshiro256**, the sampler, shuffles, fragment lengths,
/// partitions, degrees, fragment choice, fountain parts and UR texts.
final class URVectorTests: XCTestCase {
    private func vectors(_ name: String) throws -> [String: Any] {
        try TestPaths.json(TestPaths.vector("ur/\(name).json")) as! [String: Any]
    }

    private func ints(_ any: Any?) -> [Int] { (any as! [Any]).map { ($0 as! NSNumber).intValue } }

    /// bc-ur's make_message(len, seed).
    private func message(_ length: Int, seed: String = "Wolf") -> [UInt8] {
        var rng = Xoshiro256(seed: Array(seed.utf8))
        return rng.nextData(length)
    }

    func testCRC32() throws {
        let doc = try vectors("crc32")
        let cases = doc["vectors"] as! [[String: String]]
        XCTAssertEqual(cases.count, 2)
        for v in cases {
            XCTAssertEqual(Hex.encode(Bytewords.bigEndian(Bytewords.crc32(Array(v["input_utf8"]!.utf8)))), v["crc32_hex"])
        }
    }

    func testBytewords() throws {
        let doc = try vectors("bytewords")
        let words = doc["wordlist"] as! [String]
        XCTAssertEqual(Bytewords.words, words)
        let cases = doc["vectors"] as! [[String: String]]
        XCTAssertEqual(cases.count, 4)
        for v in cases {
            let input = try Hex.decode(v["input_hex"]!)
            for (style, key) in [(Bytewords.Style.standard, "standard"), (.uri, "uri"), (.minimal, "minimal")] {
                guard let expected = v[key] else { continue }
                XCTAssertEqual(Bytewords.encode(input, style: style), expected, "\(v["name"]!) \(key)")
                XCTAssertEqual(try Bytewords.decode(expected, style: style), input)
                XCTAssertEqual(try Bytewords.decode(expected.uppercased(), style: style), input)
            }
        }
        let invalid = doc["invalid"] as! [[String: String]]
        XCTAssertEqual(invalid.count, 5)
        for v in invalid {
            let style: Bytewords.Style = ["standard": .standard, "uri": .uri, "minimal": .minimal][v["style"]!]!
            XCTAssertThrowsError(try Bytewords.decode(v["encoded"]!, style: style)) { error in
                let code = (error as! URError).code
                XCTAssertEqual(code, v["reason"] == "bad checksum" ? "ur.checksum" : "ur.bytewords", v["encoded"]!)
            }
        }
    }

    func testXoshiro() throws {
        let cases = try vectors("xoshiro256")["vectors"] as! [[String: Any]]
        XCTAssertEqual(cases.count, 4)
        for v in cases {
            let seed: [UInt8] =
                if let hex = v["seed_bytes_hex"] as? String { try Hex.decode(hex) } else { Array((v["seed_utf8"] as! String).utf8) }
            var rng = Xoshiro256(seed: seed)
            switch v["op"] as! String {
            case "next() % 100": XCTAssertEqual((0..<100).map { _ in Int(rng.next() % 100) }, ints(v["expected"]))
            case "next_int(1, 10)": XCTAssertEqual((0..<100).map { _ in rng.nextInt(1, 10) }, ints(v["expected"]))
            default:
                let a = rng.nextData(10), b = rng.nextData(10)
                var x = a
                xor(&x, b)
                XCTAssertEqual([Hex.encode(a), Hex.encode(b), Hex.encode(x)], [v["data1_hex"], v["data2_hex"], v["xor_hex"]] as! [String])
            }
        }
        // The seed of test_rng_2 is CRC-32("Wolf"), big-endian.
        XCTAssertEqual(Hex.encode(Bytewords.bigEndian(Bytewords.crc32(Array("Wolf".utf8)))), "598c84dc")
    }

    func testSamplerShuffleAndFragmentLength() throws {
        let doc = try vectors("fountain")
        let sampler = doc["random_sampler"] as! [String: Any]
        var rng = Xoshiro256(seed: Array("Wolf".utf8))
        let s = RandomSampler((sampler["probs"] as! [NSNumber]).map(\.doubleValue))
        XCTAssertEqual((0..<500).map { _ in s.next(&rng) }, ints(sampler["expected"]))

        let shuffle = doc["shuffle"] as! [String: Any]
        rng = Xoshiro256(seed: Array("Wolf".utf8))
        let values = ints(shuffle["values"])
        XCTAssertEqual((0..<10).map { _ in rng.shuffled(values) }, (shuffle["expected"] as! [Any]).map(ints))

        for v in doc["find_nominal_fragment_length"] as! [[String: Int]] {
            XCTAssertEqual(
                FountainEncoder.fragmentLength(
                    messageLength: v["message_len"]!, minimum: v["min_fragment_len"]!, maximum: v["max_fragment_len"]!),
                v["expected"]!)
        }

        let partition = doc["partition"] as! [String: Any]
        let encoder = FountainEncoder(message: message(1024), maxFragmentLength: 100, minFragmentLength: 10)
        XCTAssertEqual(encoder.fragments.map { Hex.encode($0) }, partition["fragments_hex"] as! [String])

        let degree = doc["choose_degree"] as! [String: Any]
        let degrees = (1...200).map { nonce in
            var rng = Xoshiro256(seed: Array("Wolf-\(nonce)".utf8))
            return RandomSampler((1...encoder.sequenceLength).map { 1 / Double($0) }).next(&rng) + 1
        }
        XCTAssertEqual(degrees, ints(degree["expected"]))

        let choose = doc["choose_fragments"] as! [String: Any]
        let chosen = (1...30).map {
            FountainPart.fragmentIndexes(sequence: UInt32($0), sequenceLength: encoder.sequenceLength, checksum: encoder.checksum)
        }
        XCTAssertEqual(chosen, (choose["expected_sorted_indexes"] as! [Any]).map(ints))
    }

    func testFountainEncoderParts() throws {
        let v = try vectors("fountain")["fountain_encoder"] as! [String: Any]
        var encoder = FountainEncoder(message: message(256), maxFragmentLength: 30, minFragmentLength: 10)
        let expected = v["expected_part_cbor_hex"] as! [String]
        XCTAssertEqual(expected.count, 20)
        for hex in expected {
            let part = encoder.nextPart()
            XCTAssertEqual(Hex.encode(part.cbor), hex)
            XCTAssertEqual(try FountainPart(cbor: try Hex.decode(hex)), part)
        }
        // The descriptions name the same numbers: the first part.
        XCTAssertEqual(
            (v["expected_descriptions"] as! [String])[0].prefix(60), "seqNum:1, seqLen:9, messageLen:256, checksum:23570951, data:")
        XCTAssertEqual(encoder.checksum, 23_570_951)
    }

    func testFountainDecoderRoundTrip() throws {
        let data = message(32767)
        var encoder = FountainEncoder(message: data, maxFragmentLength: 1000, minFragmentLength: 100)
        var decoder = FountainDecoder()
        var parts = 0
        while decoder.message == nil {
            try decoder.receive(encoder.nextPart())
            parts += 1
            XCTAssertLessThan(parts, 200)
        }
        XCTAssertEqual(decoder.message, data)
    }

    func testURTexts() throws {
        let doc = try vectors("ur")
        let single = doc["single_part"] as! [String: Any]
        let ur = try UR(type: "bytes", cbor: CBOR.bytes(message(50)).encoded)
        XCTAssertEqual(ur.text, single["expected"] as! String)
        XCTAssertEqual(try URText((single["expected"] as! String).uppercased()), .single(ur))

        let multi = doc["ur_encoder"] as! [String: Any]
        var encoder = UREncoder(try UR(type: "bytes", cbor: CBOR.bytes(message(256)).encoded), maxFragmentLength: 30)
        let expected = multi["expected_parts"] as! [String]
        XCTAssertEqual(expected.count, 20)
        XCTAssertEqual(expected.map { _ in encoder.nextPart() }, expected)

        // From seq 101 on, as bc-ur's multipart test does.
        let big = try UR(type: "bytes", cbor: CBOR.bytes(message(32767)).encoded)
        var from100 = UREncoder(big, maxFragmentLength: 1000, firstSequence: 100)
        var decoder = URDecoder()
        var n = 0
        while !decoder.isComplete {
            try decoder.receive(from100.nextPart())
            n += 1
            XCTAssertLessThan(n, 200)
        }
        XCTAssertEqual(decoder.result, big)

        let examples = doc["bcr_2020_005_examples"] as! [[String: String]]
        XCTAssertEqual(examples.count, 3)
        for v in examples {
            let text = v["ur"]!
            switch try URText(text) {
            case .single(let ur):
                XCTAssertEqual(ur.text, text)
                if let cborHex = v["cbor_hex"] { XCTAssertEqual(Hex.encode(ur.cbor), cborHex, v["name"]!) }
            case .part(let type, let part):
                // Part 1 of 3 alone: taken, and the message stays incomplete.
                XCTAssertEqual([type, "\(part.sequence)-\(part.sequenceLength)"], ["seed", "1-3"])
                var decoder = URDecoder()
                try decoder.receive(text)
                XCTAssertFalse(decoder.isComplete)
                XCTAssertEqual(decoder.progress.known, 1)
            }
        }
    }
}
