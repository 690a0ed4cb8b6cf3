import Foundation
import SatchelTestSupport
import WalletCore
import WalletKeys
import XCTest
@testable import Monero
import WalletScan
@testable import MoneroScan
import WalletCrypto

/// The Monero regtest chain made by monerod 0.18, against the wallet's own answers.
final class MoneroFixtureTests: XCTestCase {
    nonisolated(unsafe) static let blocks = try! TestPaths.jsonLines(TestPaths.fixture("monero-regtest/blocks.jsonl"))
    nonisolated(unsafe) static let txs = try! TestPaths.jsonLines(TestPaths.fixture("monero-regtest/txs.jsonl"))
    nonisolated(unsafe) static let expected = try! TestPaths.json(TestPaths.fixture("monero-regtest/expected.json")) as! [String: Any]

    func testBlockAndTransactionIDs() throws {
        var previous = [UInt8](repeating: 0, count: 32)
        for (height, b) in Self.blocks.enumerated() {
            let block = try MoneroBlock(blob: try Hex.decode(b["blob"] as! String))
            XCTAssertEqual(Hex.encode(block.id), b["hash"] as? String, "block \(height)")
            XCTAssertEqual(Hex.encode(block.minerTransaction.id), b["miner_tx_hash"] as? String, "miner tx \(height)")
            XCTAssertEqual(block.transactionIDs.map { Hex.encode($0) }, b["tx_hashes"] as? [String])
            XCTAssertEqual(block.majorVersion, UInt64(b["major_version"] as! Int))
            if height > 0 { XCTAssertEqual(block.previousID, previous, "chain link at \(height)") }
            previous = block.id
            // The miner transaction alone parses to the same id (the genesis export has none).
            if let hex = b["miner_tx_hex"] as? String, !hex.isEmpty {
                XCTAssertEqual(try MoneroTransaction(blob: try Hex.decode(hex)).id, block.minerTransaction.id)
            }
        }
        for t in Self.txs {
            let tx = try MoneroTransaction(blob: try Hex.decode(t["hex"] as! String))
            XCTAssertEqual(Hex.encode(tx.id), t["tx_hash"] as? String)
            XCTAssertEqual(tx.rctType, 6)
            XCTAssertTrue(tx.outputs.allSatisfy { $0.viewTag != nil })
        }
    }

    func testTreeHash() {
        let leaves = (0..<9).map { Keccak256.hash([UInt8($0)]) }
        // Three leaves: the last two are paired first (tree-hash.c).
        XCTAssertEqual(
            MoneroBlock.treeHash(Array(leaves.prefix(3))),
            Keccak256.hash(leaves[0] + Keccak256.hash(leaves[1] + leaves[2])))
        XCTAssertEqual(
            MoneroBlock.treeHash(Array(leaves.prefix(4))),
            Keccak256.hash(Keccak256.hash(leaves[0] + leaves[1]) + Keccak256.hash(leaves[2] + leaves[3])))
    }

    func testBadBlobsAreErrorsNotCrashes() throws {
        let blob = try Hex.decode(Self.blocks[5]["blob"] as! String)
        for cut in [0, 1, 10, 43, blob.count / 2, blob.count - 1] {
            XCTAssertThrowsError(try MoneroBlock(blob: Array(blob.prefix(cut))), "cut \(cut)")
        }
        XCTAssertThrowsError(try MoneroBlock(blob: blob + [0]))
        let tx = try Hex.decode(Self.txs[0]["hex"] as! String)
        let id = try MoneroTransaction(blob: tx).id
        for cut in [0, 3, 60] { XCTAssertThrowsError(try MoneroTransaction(blob: Array(tx.prefix(cut))), "cut \(cut)") }
        // The prunable part is hashed, not parsed: a cut there shows as a different id, which
        // the scanner compares with the id the block lists.
        for cut in [tx.count / 3, tx.count - 1] { XCTAssertNotEqual(try? MoneroTransaction(blob: Array(tx.prefix(cut))).id, id) }
        // A huge count must not allocate: 0xff… varint as the input count.
        XCTAssertThrowsError(try MoneroTransaction(blob: [0x02, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F]))
    }

    private func wallet() throws -> MoneroKeys {
        let keys = Self.expected["keys"] as! [String: Any]
        let phrase = try MoneroSeed().parse(keys["mnemonic"] as! String, language: nil)
        return try MoneroKeys(seed: try MoneroSeed().seed(of: phrase, passphrase: nil))
    }

    /// All transactions of the chain in order, then the mempool one.
    private func chainTransactions() throws -> [(height: Int?, tx: MoneroTransaction)] {
        var out = [(Int?, MoneroTransaction)]()
        let byID = Dictionary(uniqueKeysWithValues: Self.txs.map { ($0["tx_hash"] as! String, $0) })
        for (height, b) in Self.blocks.enumerated() {
            let block = try MoneroBlock(blob: try Hex.decode(b["blob"] as! String))
            out.append((height, block.minerTransaction))
            for id in block.transactionIDs {
                out.append((height, try MoneroTransaction(blob: try Hex.decode(byID[Hex.encode(id)]!["hex"] as! String))))
            }
        }
        for t in Self.txs where t["in_pool"] as? Bool == true {
            out.append((nil, try MoneroTransaction(blob: try Hex.decode(t["hex"] as! String))))
        }
        return out
    }

    /// The filtered scan (X25519 view-tag candidates, exact derivation only on a match) finds
    /// exactly what the exact scan finds, transaction by transaction, and it does skip work:
    /// the candidates of a key the wallet does not own match few view tags.
    func testFilteredScanEqualsTheExactScan() throws {
        let full = try wallet()
        for keys in [full, try MoneroKeys(viewSecret: full.viewSecret, spendPublic: full.spendPublic)] {
            let detector = try MoneroDetector(keys: keys, majors: 3, minors: 10)
            let txs = try chainTransactions().map(\.tx)
            let filtered = detector.scan(txs)
            XCTAssertEqual(filtered, txs.map { detector.scan($0) })
            XCTAssertEqual(filtered.joined().count, 13)
        }
        // For the wallet's own keys, one of the two candidates is the exact derivation.
        let filter = ViewTagFilter(viewSecret: full.viewSecret)
        let keys = try chainTransactions().compactMap { $0.tx.extraFields.main }
        for (key, pair) in zip(keys, filter.candidates(keys)) {
            let exact = try XCTUnwrap(Ed25519.moneroDerivation(secret: full.viewSecret, publicKey: key))
            let pair = try XCTUnwrap(pair)
            XCTAssertTrue(pair.even == exact || pair.odd == exact)
        }
    }

    /// Every owned output Monero's wallet reports, and no other: keys, amounts, subaddresses.
    func testDetectsExactlyTheWalletsOutputs() throws {
        for viewOnly in [false, true] {
            let full = try wallet()
            let keys = viewOnly ? try MoneroKeys(viewSecret: full.viewSecret, spendPublic: full.spendPublic) : full
            let detector = try MoneroDetector(keys: keys, majors: 3, minors: 10)
            var found = [MoneroOwnedOutput]()
            for (_, tx) in try chainTransactions() { found += detector.scan(tx) }
            let expectedOutputs = Self.expected["incoming_transfers"] as! [[String: Any]]
            // incoming_transfers lists confirmed outputs; the mempool output is the 13th.
            XCTAssertEqual(found.count, expectedOutputs.count + 1, "view-only \(viewOnly)")
            for e in expectedOutputs {
                let match = found.first { Hex.encode($0.outputKey) == e["pubkey"] as? String }
                XCTAssertNotNil(match, "output \(e["pubkey"]!)")
                guard let match else { continue }
                XCTAssertEqual(Hex.encode(match.txID), e["tx_hash"] as? String)
                XCTAssertEqual(match.amount, (e["amount"] as? NSNumber)?.uint64Value)
                let sub = e["subaddr_index"] as! [String: Int]
                XCTAssertEqual([Int(match.major), Int(match.minor)], [sub["major"]!, sub["minor"]!])
            }
        }
    }

    /// The detection math's intermediate values, output by output.
    func testIntermediateValues() throws {
        let detector = try MoneroDetector(keys: try wallet(), majors: 3, minors: 10)
        var found = [String: MoneroOwnedOutput]()
        for (_, tx) in try chainTransactions() { for o in detector.scan(tx) { found[Hex.encode(o.outputKey)] = o } }
        let rows = try TestPaths.jsonLines(TestPaths.fixture("monero-regtest/scan_intermediates.jsonl"))
        XCTAssertEqual(rows.count, 13)
        for row in rows {
            let o = try XCTUnwrap(found[row["output_key"] as! String])
            XCTAssertEqual(Hex.encode(o.derivation), row["derivation"] as? String)
            XCTAssertEqual(Hex.encode(o.sharedScalar), row["derivation_scalar_Hs"] as? String)
            XCTAssertEqual(o.amount, (row["amount"] as? NSNumber)?.uint64Value)
            XCTAssertEqual(o.outputIndex, row["output_index"] as? Int)
        }
    }

    /// Each received payment's id as the wallet shows it (get_transfers "in" and "pool"): the
    /// integrated-address payment its own, the others the dummy zero id. (Outputs of the
    /// wallet's own spends are change: their id was encrypted for the payee, and the
    /// synchronizer drops it; SynchronizerTests checks that.)
    func testPaymentIDs() throws {
        let detector = try MoneroDetector(keys: try wallet(), majors: 3, minors: 10)
        let transfers = Self.expected["get_transfers"] as! [String: [[String: Any]]]
        let wanted = Dictionary((transfers["in"]! + transfers["pool"]!).map { ($0["txid"] as! String, $0["payment_id"] as! String) }) {
            a, _ in a
        }
        let own = Set(transfers["out"]!.map { $0["txid"] as! String })
        var got = [String: String]()
        for (_, tx) in try chainTransactions() where !own.contains(Hex.encode(tx.id)) {
            // The wallet shows a transaction without a payment id as the zero id.
            for o in detector.scan(tx) { got[Hex.encode(tx.id)] = o.paymentID.map { Hex.encode($0) } ?? "0000000000000000" }
        }
        XCTAssertEqual(got, wanted)
        XCTAssertEqual(Set(got.values), [(Self.expected["integrated_address"] as! [String: String])["payment_id"]!, "0000000000000000"])
    }

    func testTableGrowsNearItsEdge() throws {
        var detector = try MoneroDetector(keys: try wallet(), majors: 2, minors: 3)
        XCTAssertEqual(detector.tableSize, 6)
        try detector.noteUsed(major: 1, minor: 2, margin: 5)
        XCTAssertEqual(detector.minors, 8)
        XCTAssertEqual(detector.majors, 7)
        XCTAssertEqual(detector.tableSize, 56)
    }
}
