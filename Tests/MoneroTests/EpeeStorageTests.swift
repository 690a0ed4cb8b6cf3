import XCTest
@testable import Monero
import WalletScan
@testable import MoneroScan

final class EpeeStorageTests: XCTestCase {
    func testPackedSizes() {
        XCTAssertEqual(EpeeStorage.packed(0), [0x00])
        XCTAssertEqual(EpeeStorage.packed(63), [0xFC])
        XCTAssertEqual(EpeeStorage.packed(64), [0x01, 0x01])
        XCTAssertEqual(EpeeStorage.packed(16384), [0x02, 0x00, 0x01, 0x00])
    }

    /// A request parses back; a reply shaped like get_blocks_by_height.bin's parses; damage is an error.
    func testRoundTripAndDamage() throws {
        let request = EpeeStorage.request("heights", uint64s: [1, 300, 1 << 40])
        guard case .array(let heights)? = try EpeeStorage.parse(request)["heights"] else { return XCTFail() }
        XCTAssertEqual(heights.count, 3)
        if case .uint(let v) = heights[2] { XCTAssertEqual(v, 1 << 40) } else { XCTFail() }
        // {"blocks":[{"block":"ab","txs":["cd"]}],"status":"OK"}
        var reply = EpeeStorage.header + EpeeStorage.packed(2)
        reply += [6] + Array("blocks".utf8) + [0x0C | 0x80] + EpeeStorage.packed(1)
        reply += EpeeStorage.packed(2)
        reply += [5] + Array("block".utf8) + [0x0A] + EpeeStorage.packed(1) + [0xAB]
        reply += [3] + Array("txs".utf8) + [0x0A | 0x80] + EpeeStorage.packed(1) + EpeeStorage.packed(1) + [0xCD]
        reply += [6] + Array("status".utf8) + [0x0A] + EpeeStorage.packed(2) + Array("OK".utf8)
        let parsed = try EpeeStorage.parse(reply)
        let block = try XCTUnwrap(parsed["blocks"]?.array?.first)
        XCTAssertEqual(block["block"]?.string, [0xAB])
        XCTAssertEqual(block["txs"]?.array?.first?.string, [0xCD])
        for cut in [0, 5, 12, reply.count - 1] { XCTAssertThrowsError(try EpeeStorage.parse(Array(reply.prefix(cut))), "cut \(cut)") }
        var huge = EpeeStorage.header + EpeeStorage.packed(1) + [1] + Array("a".utf8) + [0x0A] + EpeeStorage.packed(1 << 20)
        huge += [0]
        XCTAssertThrowsError(try EpeeStorage.parse(huge))
    }
}
