import WalletCore
import XCTest

@testable import WalletUR

/// What a hostile screen can show a fountain decoder: mixed parts of a 10,000-fragment message
/// that never complete. Each part must cost its own degree, not the parts before it (a
/// decoder that reduced every kept part by every other took 38 s for 1,000 such parts), and
/// what is kept must stay bounded. `make bench` (bench/ur_decode.py) measures parts a second.
final class HostileFountainTests: XCTestCase {
    private func forged(_ sequence: UInt32, length: Int, fragment: Int, checksum: UInt32, rng: inout Xoshiro256) -> FountainPart {
        FountainPart(
            sequence: sequence, sequenceLength: length, messageLength: length * fragment, checksum: checksum,
            data: rng.nextData(fragment))
    }

    /// 3,000 mixed parts of a 10,000-fragment message, then its 5,000 first fragments and 3,000
    /// more mixed parts (some now resolve): the work is at most 4 units per fragment index
    /// of each part (drawn, looked up, counted down once, XORed once) and 1 per part, and
    /// the kept parts stay within their bounds.
    func testWorkPerPartIsItsDegree() throws {
        let n = 10_000, fragment = 8, checksum: UInt32 = 0x5A7C_4E11
        var rng = Xoshiro256(seed: Array("hostile".utf8))
        var decoder = FountainDecoder()
        let degrees = DegreeSampler(n)
        var bound = 0
        func give(_ part: FountainPart) throws {
            let degree =
                FountainPart.fragmentIndexes(sequence: part.sequence, sequenceLength: n, checksum: checksum, degrees: degrees).count
            bound += 4 * degree + 1
            try decoder.receive(part)
            XCTAssertLessThanOrEqual(decoder.work, bound)
            XCTAssertLessThanOrEqual(decoder.pendingCount, decoder.maxPending)
        }
        for s in 0..<3_000 { try give(forged(UInt32(n + 1 + s), length: n, fragment: fragment, checksum: checksum, rng: &rng)) }
        XCTAssertGreaterThan(decoder.pendingCount, 0)
        for s in 1...5_000 { try give(forged(UInt32(s), length: n, fragment: fragment, checksum: checksum, rng: &rng)) }
        let known = decoder.fragmentsKnown
        for s in 0..<3_000 { try give(forged(UInt32(n + 5_001 + s), length: n, fragment: fragment, checksum: checksum, rng: &rng)) }
        XCTAssertGreaterThan(decoder.fragmentsKnown, known, "some mixed parts resolved")
        XCTAssertNil(decoder.message)
        XCTAssertEqual(decoder.partsReceived, 11_000)
    }

    /// The shuffle's prefix through the Fenwick tree draws what bc-ur's whole shuffle does, at
    /// every size and degree (its first items are those of the whole).
    func testShuffledPrefixIsTheShufflesPrefix() {
        for n in [1, 2, 3, 7, 64, 100, 1000] {
            for seed in 0..<20 {
                var whole = Xoshiro256(sequence: UInt32(seed), checksum: UInt32(n))
                var prefix = whole
                let k = seed % 3 == 0 ? n : (seed * 37) % n + 1
                XCTAssertEqual(prefix.shuffledPrefix(of: n, taking: k), Array(whole.shuffled(Array(0..<n)).prefix(k)), "\(n), \(k)")
            }
        }
    }

    /// A message whose mixed parts arrive before its fragments still completes from any
    /// order of them, the same as from its fragments alone.
    func testPeelingCompletesFromMixedPartsFirst() throws {
        var rng = Xoshiro256(seed: Array("peel".utf8))
        let message = rng.nextData(2_000)
        var encoder = FountainEncoder(message: message, maxFragmentLength: 20)
        let parts = (0..<(4 * encoder.sequenceLength)).map { _ in encoder.nextPart() }
        var decoder = FountainDecoder()
        // The mixes first, then every other fragment, then the rest of the fragments.
        let fragments = parts.prefix(encoder.sequenceLength)
        for part in parts.dropFirst(encoder.sequenceLength) + fragments.enumerated().filter({ $0.offset % 2 == 0 }).map(\.element)
        where decoder.message == nil {
            try decoder.receive(part)
        }
        for part in fragments where decoder.message == nil { try decoder.receive(part) }
        XCTAssertEqual(decoder.message, message)
    }

    /// A UR's tag names its generation: crypto-psbt is tag 310, psbt is 40310 (or untagged).
    func testPSBTTagMatchesItsURType() throws {
        let psbt: [UInt8] = Array("psbt".utf8) + [0xFF, 0x01, 0x00]
        for (type, tag, ok) in [
            ("crypto-psbt", 310, true), ("psbt", 40310, true), ("crypto-psbt", 40310, false), ("psbt", 310, false),
        ] {
            let ur = try UR(type: type, cbor: CBOR.tagged(UInt64(tag), .bytes(psbt)).encoded)
            if ok {
                XCTAssertEqual(try PSBTPayload.psbt(from: ur), psbt, "\(type) \(tag)")
            } else {
                XCTAssertThrowsError(try PSBTPayload.psbt(from: ur), "\(type) \(tag)") { error in
                    XCTAssertEqual(
                        (error as? URError)?.message,
                        "a PSBT under tag \(tag): a ur:\(type) carries tag \(type == "psbt" ? 40310 : 310) (or none)")
                }
            }
            XCTAssertEqual(try PSBTPayload.psbt(from: try UR(type: type, cbor: CBOR.bytes(psbt).encoded)), psbt)
        }
    }
}
