import Foundation
import SatchelTestSupport
import WalletCore
import WalletScan
import XCTest
import Bitcoin
@testable import BitcoinScan
import WalletCrypto

/// Litecoin's MWEB serialization on blocks and mempool transactions that the real node
/// (Debian's litecoind 0.21.2.1, regtest) wrote: the HogEx, peg-outs, the extension block
/// skipped, the MWEB part of a mempool transaction left out of its txid and wtxid.
final class LitecoinMWEBTests: XCTestCase {
    private func file(_ name: String) throws -> [UInt8] {
        let text = try String(contentsOf: TestPaths.projectFixture("litecoin-regtest/\(name)"), encoding: .utf8)
        return try Hex.decode(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    private var expected: [String: [String: Any]] {
        try! TestPaths.json(TestPaths.projectFixture("litecoin-regtest/expected.json")) as! [String: [String: Any]]
    }

    func testTheFilesAreTheRecordedOnes() throws {
        let readme = try String(contentsOf: TestPaths.projectFixture("litecoin-regtest/README.md"), encoding: .utf8)
        var pinned = 0
        for line in readme.split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count == 2, parts[0].count == 64 else { continue }
            let data = try Data(contentsOf: TestPaths.projectFixture("litecoin-regtest/\(parts[1])"))
            XCTAssertEqual(Hex.encode(Hash.sha256(Array(data))), String(parts[0]), String(parts[1]))
            pinned += 1
        }
        XCTAssertEqual(pinned, 6)
    }

    func testEveryBlockAsTheNodeSawIt() throws {
        for height in [432, 434, 436] {
            let want = expected[String(height)]!
            let block = try Bitcoin.parseBlock(try file("block\(height).hex"), what: "block \(height)", dialect: .litecoin)
            XCTAssertEqual(Bitcoin.display(block.id), want["hash"] as? String)
            XCTAssertEqual(Bitcoin.display(block.previousID), want["previousblockhash"] as? String)
            XCTAssertEqual(Bitcoin.display(block.merkleRoot), want["merkleroot"] as? String)
            XCTAssertTrue(block.hasMWEB)
            let txs = want["tx"] as! [[String: Any]]
            XCTAssertEqual(block.transactions.count, txs.count)
            for (tx, w) in zip(block.transactions, txs) {
                XCTAssertEqual(Bitcoin.display(tx.id), w["txid"] as? String, "block \(height)")
                XCTAssertEqual(Bitcoin.display(tx.wtxid), w["hash"] as? String, "block \(height)")
                let outputs = (w["outputs"] as! [[Any]]).map { "\($0[0]) \($0[1]) \($0[2])" }
                XCTAssertEqual(tx.outputs.enumerated().map { "\($0.offset) \($0.element.value) \(Hex.encode($0.element.script))" }, outputs)
            }
            XCTAssertEqual(block.transactions.map(\.isHogEx), [false] + [Bool](repeating: false, count: txs.count - 2) + [true])
        }
        // Block 434's HogEx pays a peg-out: output 1, 1.25 LTC to a P2WPKH script.
        let pegOut = try Bitcoin.parseBlock(try file("block434.hex"), what: "block 434", dialect: .litecoin).transactions[1]
        XCTAssertEqual(pegOut.outputs[1].value, 125_000_000)
        XCTAssertEqual(Array(pegOut.outputs[1].script.prefix(2)), [0x00, 0x14])
    }

    func testBitcoinRulesRefuseTheHogEx() throws {
        XCTAssertThrowsError(try Bitcoin.parseBlock(try file("block432.hex"), what: "block 432")) { error in
            XCTAssertEqual(
                (error as? ScanError)?.message,
                ScanError.malformed(what: "block 432 transaction 2", reason: "an unknown transaction flag 0x08").message)
        }
    }

    func testMempoolTransactionsLeaveTheirMWEBPartOut() throws {
        let pegIn = try Bitcoin.parseTransaction(try file("mempool-pegin.hex"), what: "the peg-in", dialect: .litecoin)
        XCTAssertEqual(Bitcoin.display(pegIn.id), expected["mempool-pegin"]!["txid"] as? String)
        XCTAssertEqual(Bitcoin.display(pegIn.wtxid), expected["mempool-pegin"]!["hash"] as? String)
        XCTAssertEqual(pegIn.inputs.count, 1)
        XCTAssertEqual(pegIn.outputs.count, 1)
        XCTAssertFalse(pegIn.isHogEx)

        let mwebOnly = try Bitcoin.parseTransaction(try file("mempool-mweb-only.hex"), what: "the MWEB transaction", dialect: .litecoin)
        XCTAssertEqual(mwebOnly.inputs.count, 0)
        XCTAssertEqual(mwebOnly.outputs.count, 0)
        XCTAssertEqual(mwebOnly.spendTags, [])
    }

    func testBrokenMWEBFramingIsRefused() throws {
        var block = try file("block434.hex")
        // The extension block's presence byte sits right after the HogEx's locktime.
        let hogEx = try Bitcoin.parseBlock(block, what: "b", dialect: .litecoin).transactions.count - 1
        XCTAssertEqual(hogEx, 1)
        let marker = try presenceByteOffset(block)
        block[marker] = 2
        XCTAssertThrowsError(try Bitcoin.parseBlock(block, what: "block 434", dialect: .litecoin)) { error in
            XCTAssertEqual(
                (error as? ScanError)?.message,
                ScanError.malformed(what: "block 434", reason: "an MWEB presence byte of 2 after the transactions").message)
        }
        // Cut right after the presence byte: the extension block is missing.
        let cut = Array(try file("block434.hex")[..<(marker + 1)])
        XCTAssertThrowsError(try Bitcoin.parseBlock(cut, what: "block 434", dialect: .litecoin)) { error in
            XCTAssertEqual((error as? ScanError)?.message, ScanError.truncated(what: "block 434", offset: marker + 1).message)
        }
        // An MWEB part among a block's transactions (the HogEx's mweb_tx_present byte, just
        // before its locktime, set) is refused.
        var withPart = try file("block434.hex")
        XCTAssertEqual(withPart[marker - 5], 0)
        withPart[marker - 5] = 1
        XCTAssertThrowsError(try Bitcoin.parseBlock(withPart, what: "block 434", dialect: .litecoin)) { error in
            XCTAssertEqual(
                (error as? ScanError)?.message,
                ScanError.malformed(
                    what: "block 434 transaction 1", reason: "an MWEB part among a block's transactions (the extension block holds them)"
                ).message)
        }
        // A mempool transaction cut inside its inputs.
        let pegIn = try file("mempool-pegin.hex")
        XCTAssertThrowsError(try Bitcoin.parseTransaction(Array(pegIn[..<10]), what: "t", dialect: .litecoin)) { error in
            XCTAssertEqual(
                (error as? ScanError)?.message, ScanError.malformed(what: "t", reason: "a count of 1 at byte 6 exceeds the data").message)
        }
    }

    /// Where block 434's `has_mweb` byte is: after its two transactions.
    private func presenceByteOffset(_ block: [UInt8]) throws -> Int {
        var reader = ByteReader(block, what: "b")
        try reader.skip(80)
        let count = try reader.compactSize(maximum: 10)
        var builder = TableBuilder(count: count)
        for i in 0..<count { try reader.transactionPieces(index: i, dialect: .litecoin, inBlock: true, into: &builder) }
        return reader.offset
    }
}
