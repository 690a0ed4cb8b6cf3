import Foundation
import SatchelTestSupport
import XCTest

/// scan-blocks --chain bitcoin over a real mainnet block (413567) and broken copies of it: each
/// break is an error record naming the block, exit 65, and nothing of the bad block is kept.
final class BitcoinScanToolTests: XCTestCase {
    var dir = ""
    static let hash = "0000000000000000025aff8be8a55df8f89c77296db6198f272d6577325d4069"
    /// A watch-only account (BIP84 account 0 of the BIP39 test phrase): none of its scripts is in the block.
    var key = Data()

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-btc-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let phrase = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
        let account = try Shell.run("derive account --coin btc --purpose 84", stdin: Shell.lines([["mnemonic": phrase]]))
        XCTAssertEqual(account.status, 0, account.stderr)
        key = Shell.lines([["descriptor": try XCTUnwrap(account.records.first?["descriptor"] as? String)]])
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    private var block: [UInt8] { Array(try! Data(contentsOf: TestPaths.fixture("bitcoin-mainnet/block413567.raw"))) }

    private func record(_ height: Int, _ bytes: [UInt8], hash: String = hash) -> [String: Any] {
        ["height": height, "hash": hash, "hex": bytes.map { String(format: "%02x", $0) }.joined()]
    }

    private func scan(_ records: [[String: Any]], state: String = "state") throws -> Shell.Result {
        try Shell.lines(records).write(to: URL(fileURLWithPath: "\(dir)/blocks.jsonl"))
        return try Shell.run("scan-blocks --chain bitcoin --birthday 0 --progress none --state-dir \(dir)/\(state) --blocks \(dir)/blocks.jsonl", stdin: key)
    }

    func testBadBlocks() throws {
        let good = block
        var flagged = good
        flagged.insert(contentsOf: [0x00, 0x02], at: 80 + 3 + 4)  // marker and flag 0x02 before the coinbase's inputs
        var altered = good
        altered[altered.count - 5] ^= 0x01  // in the last transaction's last output: its txid, so the merkle root
        let cases: [(String, [[String: Any]], String)] = [
            ("truncated", [record(0, Array(good.dropLast(100)))], "block 0 is malformed: a count of 107 at byte 999702 exceeds the data"),
            ("merkle", [record(0, altered)], "block 0's merkle root hashes to 5efb9b8f8f0da4d5423fb7563cfe8715ce2a28086a0ffae27f44e2c7b674454e, not 64a50c649fc816baaa2effda230c39cacf1504e4e616a2863685b72aaa7dce05"),
            ("flag", [record(0, flagged)], "block 0 transaction 0 is malformed: an unknown transaction flag 0x02"),
            ("unlinked", [record(0, good), record(1, good)], "block 1 is malformed: its parent is not block 0 of the same source"),
        ]
        for (name, records, message) in cases {
            let r = try scan(records, state: name)
            XCTAssertEqual(r.status, 65, name + r.stderr)
            XCTAssertTrue(r.stderr.contains(message), name + ": " + r.stderr)
            XCTAssertEqual(r.records.filter { $0["type"] as? String == "balance" }.count, 0, name)
            // Nothing of the bad block was kept: the good block alone scans as on a fresh state.
            let after = try scan([record(0, good)], state: name)
            XCTAssertEqual(after.status, 0, name + after.stderr)
            let balance = after.records.last
            XCTAssertEqual(balance?["type"] as? String, "balance", name)
            XCTAssertEqual(balance?["height"] as? Int, 0, name)  // the tip's height
            XCTAssertEqual(balance?["total"] as? String, "0", name)
        }
    }
}
