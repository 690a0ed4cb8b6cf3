import Foundation
import SatchelTestSupport
import WalletCore
import WalletScan
import XCTest
import Bitcoin
@testable import BitcoinScan
import CSHA256
import WalletCrypto

/// The raw-block parser on two real mainnet blocks (one before segwit, one with 2,065 segwit
/// transactions): every txid and wtxid, the merkle root, the witness commitment, and refusals.
final class BitcoinBlockTests: XCTestCase {
    private let blocks = [
        (
            name: "block413567", height: 413_567, hash: "0000000000000000025aff8be8a55df8f89c77296db6198f272d6577325d4069", txs: 1_557,
            segwit: 0
        ),
        (
            name: "block702861", height: 702_861, hash: "000000000000000000000c835b2adcaedc20fdf6ee440009c249452c726dafae", txs: 2_500,
            segwit: 2_065
        ),
    ]

    private func raw(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: TestPaths.fixture("bitcoin-mainnet/\(name).raw")))
    }

    private var expected: [[String: Any]] {
        (try! TestPaths.json(TestPaths.fixture("bitcoin-mainnet/expected-watch.json")) as! [String: Any])["blocks"] as! [[String: Any]]
    }

    /// With the witness commitment checked (every wtxid hashed with the txids) and without
    /// (as the scanner parses: each wtxid hashed when asked for), the same ids.
    func testEveryTxidAndWtxidOfBothBlocks() throws {
        for verify in [false, true] {
            for (i, b) in blocks.enumerated() {
                let block = try Bitcoin.parseBlock(try raw(b.name), what: b.name, verifyWitness: verify)
                XCTAssertEqual(Bitcoin.display(block.id), b.hash)
                XCTAssertEqual(Bitcoin.display(block.previousID), expected[i]["prev_hash"] as? String)
                XCTAssertEqual(Bitcoin.display(block.merkleRoot), expected[i]["merkle_root"] as? String)
                XCTAssertEqual(block.time, (expected[i]["time"] as? NSNumber)?.uint32Value)
                XCTAssertEqual(block.transactions.count, b.txs)
                XCTAssertEqual(block.transactions.filter(\.hasWitness).count, b.segwit)
                XCTAssertEqual(Bitcoin.bip34Height(block.transactions[0]), b.height)
                let lines = try String(contentsOf: TestPaths.fixture("bitcoin-mainnet/\(b.name).txids"), encoding: .utf8).split(
                    separator: "\n")
                XCTAssertEqual(lines.count, b.txs)
                for (tx, line) in zip(block.transactions, lines) {
                    XCTAssertEqual("\(Bitcoin.display(tx.id)) \(Bitcoin.display(tx.wtxid))", String(line))
                }
                let total = block.transactions.flatMap(\.outputs).reduce(UInt64(0)) { $0 + $1.value }
                XCTAssertEqual(
                    String(total),
                    (expected[i]["total_output_value"] as? NSNumber)?.stringValue ?? expected[i]["total_output_value"] as? String)
                XCTAssertTrue(block.transactions[0].isCoinbase)
                XCTAssertEqual(block.transactions[0].spendTags, [])
                XCTAssertEqual(
                    block.transactions[1].spendTags,
                    block.transactions[1].inputs.map { $0.previousTxID + withUnsafeBytes(of: $0.previousIndex.littleEndian) { Array($0) } })
            }
        }
    }

    func testAChangedByteIsCaught() throws {
        let good = try raw("block702861")
        // The last transaction's locktime: its txid, so the merkle root, changes.
        var locktime = good
        locktime[locktime.count - 1] ^= 1
        XCTAssertThrowsError(try Bitcoin.parseBlock(locktime, what: "block 702861")) {
            guard case .hashMismatch(let what, let expected, _)? = $0 as? ScanError else { return XCTFail("\($0)") }
            XCTAssertEqual(what, "block 702861's merkle root")
            XCTAssertEqual(expected, self.expected[1]["merkle_root"] as? String)
        }
        // The coinbase's witness reserved value: txids stay, the witness commitment fails.
        let reserved = try Bitcoin.parseBlock(good, what: "b").transactions[0].firstWitness[0]
        let at = try XCTUnwrap(Self.find([0x01, 0x20] + reserved, in: good)) + 2
        var witness = good
        witness[at] ^= 1
        XCTAssertThrowsError(try Bitcoin.parseBlock(witness, what: "block 702861")) {
            guard case .hashMismatch(let what, _, _)? = $0 as? ScanError else { return XCTFail("\($0)") }
            XCTAssertEqual(what, "block 702861's witness commitment")
        }
        // The scanner's parse leaves the commitment out (it reads no witness): the same
        // block parses, every txid and output as in the good one.
        let unchecked = try Bitcoin.parseBlock(witness, what: "block 702861", verifyWitness: false)
        let checked = try Bitcoin.parseBlock(good, what: "block 702861")
        XCTAssertEqual(unchecked.transactions.map(\.id), checked.transactions.map(\.id))
        XCTAssertEqual(unchecked.transactions.flatMap(\.outputs), checked.transactions.flatMap(\.outputs))
        XCTAssertNotEqual(unchecked.transactions[0].wtxid, checked.transactions[0].wtxid)
        // The coinbase's segwit flag (after 80 + 3 + 4 bytes and the marker).
        XCTAssertEqual(Array(good[87...88]), [0x00, 0x01])
        var flag = good
        flag[88] = 0x02
        XCTAssertThrowsError(try Bitcoin.parseBlock(flag, what: "block 702861")) {
            XCTAssertEqual($0 as? ScanError, .malformed(what: "block 702861 transaction 0", reason: "an unknown transaction flag 0x02"))
        }
        XCTAssertThrowsError(try Bitcoin.parseBlock(Array(good.dropLast()), what: "block 702861")) {
            guard case .truncated? = $0 as? ScanError else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try Bitcoin.parseBlock(good + [0], what: "block 702861")) {
            XCTAssertEqual($0 as? ScanError, .malformed(what: "block 702861", reason: "1 bytes after the last transaction"))
        }
        XCTAssertThrowsError(try Bitcoin.parseBlock(Array(good.prefix(79)), what: "block 702861")) {
            XCTAssertEqual($0 as? ScanError, .truncated(what: "block 702861", offset: 79))
        }
    }

    /// CVE-2012-2459: [a, b, c, c] has the root of [a, b, c]; the repeated pair is told.
    func testMerkleMutationIsTold() {
        let h = (1...3).map { [UInt8](repeating: UInt8($0), count: 32) }
        let three = Bitcoin.merkleRoot(h), four = Bitcoin.merkleRoot(h + [h[2]])
        XCTAssertEqual(three.root, four.root)
        XCTAssertFalse(three.mutated)
        XCTAssertTrue(four.mutated)
        XCTAssertEqual(Bitcoin.merkleRoot([h[0]]).root, h[0])
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        return (0...(haystack.count - needle.count)).first { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}

/// Bitcoin.sha256d and the parser's HashPieces against libsodium's SHA-256 twice, as the
/// oracle: random lengths across block boundaries, given whole and in pieces.
final class DoubleSHA256Tests: XCTestCase {
    func testAgreesWithLibsodium() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3_000 {
            let n = Int.random(in: 0...300, using: &generator)
            let bytes = (0..<n).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let expected = Hash.sha256(Hash.sha256(bytes))
            XCTAssertEqual(bytes.withUnsafeBytes { Bitcoin.sha256d($0) }, expected)
            let cut = Int.random(in: 0...n, using: &generator)
            var pieces = HashPieces()
            pieces.add(0, cut)
            pieces.add(cut, n - cut)
            XCTAssertEqual(HashPieces.sha256d([pieces], in: bytes), expected)
        }
        // The empty message's SHA256d.
        XCTAssertEqual(Hex.encode(Bitcoin.sha256d([])), "5df6e0e2761359d30a8275058e299fcc0381534545f55cf43e41983f5d4c9456")
    }
}

/// Each SHA256d path (eight AVX-512VL lanes, two SHA-NI streams, OpenSSL) against libsodium's
/// SHA-256 twice, on random messages in random pieces, up to 40 at once (the lanes fill, run
/// dry and hand their last messages to one-at-a-time code); merkle levels in place, fewer and
/// more pairs than lanes; NIST's "abc".
final class SHA256dPathTests: XCTestCase {
    override func tearDown() { satchel_sha256_force(-1) }

    private func check(path: Int32) {
        XCTAssertEqual(satchel_sha256_force(path), 1)
        XCTAssertEqual(satchel_sha256_path(), path)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let n = Int.random(in: 0...40, using: &generator)
            // Mostly short messages, some long ones (several blocks past the rest).
            let bodies = (0..<n).map { _ in
                (0..<Int.random(in: 0...(Int.random(in: 0..<5, using: &generator) == 0 ? 5000 : 700), using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
            }
            var digests = [UInt8](repeating: 0, count: 32 * n)
            // Each message in three pieces cut at random places.
            let cuts = bodies.map { b -> (Int, Int) in
                let first = Int.random(in: 0...b.count, using: &generator)
                return (first, Int.random(in: first...b.count, using: &generator))
            }
            let pointers = bodies.map { b -> UnsafeMutablePointer<UInt8> in
                let p = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, b.count))
                p.update(from: b, count: b.count)
                return p
            }
            defer { pointers.forEach { $0.deallocate() } }
            var messages = [satchel_sha_message]()
            for i in 0..<n {
                let p = UnsafePointer(pointers[i]), (a, b) = cuts[i]
                let sizes: (Int, Int, Int, Int) = (a, b - a, bodies[i].count - b, 0)
                messages.append(satchel_sha_message(data: (p, p + a, p + b, nil), size: sizes, count: 3))
            }
            satchel_sha256d_many(messages, n, &digests)
            for i in 0..<n {
                XCTAssertEqual(Array(digests[32 * i..<32 * i + 32]), Hash.sha256(Hash.sha256(bodies[i])), "message \(i) of \(n)")
            }
        }
        // Merkle levels, in place.
        for pairs in [1, 7, 8, 19, 64] {
            var level = (0..<pairs * 64).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let expected = (0..<pairs).flatMap { Hash.sha256(Hash.sha256(Array(level[64 * $0..<64 * $0 + 64]))) }
            level.withUnsafeMutableBufferPointer { satchel_sha256d64($0.baseAddress!, $0.baseAddress!, pairs) }
            XCTAssertEqual(Array(level[0..<pairs * 32]), expected, "\(pairs) pairs")
        }
        // SHA256d("abc"): FIPS 180's SHA-256("abc") hashed again.
        var abc = Array("abc".utf8), out = [UInt8](repeating: 0, count: 32)
        abc.withUnsafeMutableBufferPointer { p in
            var m = satchel_sha_message(data: (UnsafePointer(p.baseAddress!), nil, nil, nil), size: (3, 0, 0, 0), count: 1)
            satchel_sha256d_one(&m, &out)
        }
        XCTAssertEqual(Hex.encode(out), "4f8b42c22dd3729b519ba6f68d2da7cc5b2d606d05daed5ad5128cc03e6c6358")
    }

    func testAVX512Path() throws {
        guard satchel_sha256_has(Int32(SATCHEL_SHA_AVX512)) == 1 else { throw XCTSkip("this CPU has no AVX-512VL") }
        check(path: Int32(SATCHEL_SHA_AVX512))
    }

    func testSHANIPath() throws {
        guard satchel_sha256_has(Int32(SATCHEL_SHA_SHANI)) == 1 else { throw XCTSkip("this CPU has no SHA-NI") }
        check(path: Int32(SATCHEL_SHA_SHANI))
    }

    func testPortablePath() {
        check(path: Int32(SATCHEL_SHA_PORTABLE))
    }

    /// A path the CPU lacks is refused and nothing changes.
    func testForcingAnUnknownPath() {
        XCTAssertEqual(satchel_sha256_force(7), 0)
        XCTAssertEqual(satchel_sha256_force(-1), 1)
        XCTAssertEqual(satchel_sha256_has(7), 0)
        XCTAssertEqual(satchel_sha256_has(Int32(SATCHEL_SHA_PORTABLE)), 1)
    }
}
