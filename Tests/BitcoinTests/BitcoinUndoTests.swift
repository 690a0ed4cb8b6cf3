import Bitcoin
import Foundation
import WalletCore
import XCTest

@testable import BitcoinScan
@testable import WalletScan
import WalletCrypto

/// The undo data's own encodings (the live silent payment test reads a real node's rev files):
/// Bitcoin Core's VARINT, by the table in its serialize.h, and the compressed scripts.
final class BitcoinUndoTests: XCTestCase {
    func testCoreVarIntAsSerializeHTabulatesIt() throws {
        let table: [(UInt64, [UInt8])] = [
            (0, [0x00]), (1, [0x01]), (127, [0x7F]), (128, [0x80, 0x00]), (255, [0x80, 0x7F]), (256, [0x81, 0x00]),
            (16383, [0xFE, 0x7F]), (16384, [0xFF, 0x00]), (16511, [0xFF, 0x7F]), (65535, [0x82, 0xFE, 0x7F]),
            (1 << 32, [0x8E, 0xFE, 0xFE, 0xFF, 0x00]),
        ]
        for (value, bytes) in table {
            var reader = ByteReader(bytes, what: "varint")
            XCTAssertEqual(try reader.coreVarInt(), value, Hex.encode(bytes))
            XCTAssertTrue(reader.isAtEnd)
        }
        var long = ByteReader([UInt8](repeating: 0xFF, count: 11) + [0], what: "varint")
        XCTAssertThrowsError(try long.coreVarInt())
    }

    func testCompressedScripts() throws {
        let hash = [UInt8](repeating: 0xAB, count: 20)
        let g = try Hex.decode("79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798")
        let cases: [([UInt8], [UInt8])] = [
            ([0] + hash, ScriptTemplate.p2pkh(hash)),
            ([1] + hash, [0xA9, 0x14] + hash + [0x87]),
            ([2] + g, [33, 2] + g + [0xAC]),
            // An uncompressed key stored by its x and parity: G, whose y is even.
            ([4] + g, [65] + (try Secp256k1.PublicKey(parsing: [2] + g)).uncompressed + [0xAC]),
            ([6 + 22, 0x00, 0x14] + hash, [0x00, 0x14] + hash),
        ]
        for (stored, script) in cases {
            var reader = ByteReader(stored, what: "script")
            XCTAssertEqual(try BitcoinUndo.decompressedScript(&reader), script, Hex.encode(stored))
            XCTAssertTrue(reader.isAtEnd)
        }
        // One block's undo: two transactions (one input, then two), heights and amounts skipped.
        let undo: [UInt8] = [2, 1, 0x80, 0x02, 0, 0x05, 0] + hash + [2, 0x03, 0, 0x05, 1] + hash + [0x00, 0x05, 0] + hash
        XCTAssertEqual(
            try BitcoinUndo.spentScripts(undo[...], dialect: .bitcoin, what: "undo"),
            [ScriptTemplate.p2pkh(hash), [0xA9, 0x14] + hash + [0x87], ScriptTemplate.p2pkh(hash)])
        XCTAssertThrowsError(try BitcoinUndo.spentScripts((undo + [0])[...], dialect: .bitcoin, what: "undo"))
        // Litecoin: a peg-out's flag in the top bit of the height code (and room for an MWEB tail).
        let pegout: [UInt8] = [1, 1, 0x86, 0xFE, 0xFE, 0xFF, 0x00, 0x05, 0] + hash + [0xEE]  // 0x80000000: height 0, so no dummy
        XCTAssertEqual(try BitcoinUndo.spentScripts(pegout[...], dialect: .litecoin, what: "undo"), [ScriptTemplate.p2pkh(hash)])
    }
    /// A block index record (CDiskBlockIndex) as the node writes it: VARINT client version,
    /// height, status, transaction count, then the file and data position and undo position
    /// its status says it has, then the header (never read here).
    func testBlockIndexRecordsUndoPlace() throws {
        func varint(_ n: UInt64) -> [UInt8] {  // serialize.h's VARINT, most significant group first
            var n = n, out = [UInt8(n & 0x7F)]
            while n > 0x7F {
                n = (n >> 7) - 1
                out.insert(UInt8(n & 0x7F) | 0x80, at: 0)
            }
            return out
        }
        let header = [UInt8](repeating: 7, count: 80)
        // Data and undo (8 | 16, valid to scripts 5): file 3, data at 123,456, undo at 98,765.
        let both = varint(210_000) + varint(124) + varint(29) + varint(2) + varint(3) + varint(123_456) + varint(98_765) + header
        XCTAssertEqual(try NodeBlockIndex.undoPlace(record: both, what: "t"), NodeBlockIndex.UndoPlace(file: 3, position: 98_765))
        // Data only (never connected): no undo place.
        let dataOnly = varint(210_000) + varint(124) + varint(8 | 3) + varint(2) + varint(3) + varint(123_456) + header
        XCTAssertNil(try NodeBlockIndex.undoPlace(record: dataOnly, what: "t"))
        // Cut short before the undo position: malformed, not a guess.
        XCTAssertThrowsError(try NodeBlockIndex.undoPlace(record: Array(both.prefix(9)), what: "t"))
    }
}
