import Foundation
import SatchelTestSupport
import WalletCore
import WalletKeys
import WalletScan
import XCTest
import Bitcoin
@testable import BitcoinScan

/// Matching a watch list against the two real blocks: exactly the outputs and spends the
/// fixture lists (computed independently, re-checked with python-bitcoinlib), and nothing for
/// decoys that share a watched key's HASH160 in another script.
final class BitcoinMatchTests: XCTestCase {
    private func block(_ entry: [String: Any]) throws -> BitcoinBlock {
        let bytes = Array(try Data(contentsOf: TestPaths.fixture("bitcoin-mainnet/" + (entry["file"] as! String))))
        return try Bitcoin.parseBlock(bytes, what: entry["file"] as! String)
    }

    private var blocks: [[String: Any]] {
        (try! TestPaths.json(TestPaths.fixture("bitcoin-mainnet/expected-watch.json")) as! [String: Any])["blocks"] as! [[String: Any]]
    }

    /// The scan tests each script and outpoint by the filter slot the parse kept, never by the
    /// bytes: every kept slot must be the one ByteFilter gives those bytes, where they lie.
    func testTheParseKeepsEachScriptsAndOutpointsFilterSlot() throws {
        var outputs = 0, outpoints = 0
        for entry in blocks {
            let tables = try block(entry).tables
            for output in tables.outputs {
                let script = tables.bytes[Int(output.offset)..<Int(output.offset) + Int(output.length)]
                XCTAssertEqual(output.slot, ByteFilter.slot(of: script))
                outputs += 1
            }
            XCTAssertEqual(tables.outpointSlots.count, tables.outpoints.count)
            for (at, slot) in zip(tables.outpoints, tables.outpointSlots) {
                XCTAssertEqual(slot, ByteFilter.slot(of: tables.bytes[Int(at)..<Int(at) + 36]))
                outpoints += 1
            }
        }
        // Both fixture blocks, every output and input (counted by bench/bitcoin_scan.py's parser).
        XCTAssertEqual(outputs, 9_596)
        XCTAssertEqual(outpoints, 11_405)
    }

    func testTheWatchListFindsExactlyWhatTheFixtureSays() throws {
        var checkedSpends = 0, checkedIntraBlock = 0
        for entry in blocks {
            let block = try block(entry)
            let watch = entry["watch"] as! [[String: Any]]
            let scripts = Set(try watch.map { try Hex.decode($0["script_pubkey"] as! String) })
            let known = entry["known_outpoints_spent_here"] as? [[String: Any]] ?? []
            let owned = Set(
                try known.map {
                    Bitcoin.outpoint(try Bitcoin.internalBytes(ofDisplayed: $0["prev_txid"] as! String), UInt32($0["prev_vout"] as! Int))
                })
            let found = block.findings(watching: scripts, owned: owned)

            var expectedReceived = [String]()
            var expectedSpent = [String]()
            for w in watch {
                for r in w["received"] as! [[String: Any]] {
                    expectedReceived.append("\(r["txid"]!):\(r["vout"]!) \(r["value"]!) \(r["coinbase"] as! Bool) \(w["script_pubkey"]!)")
                }
                for s in w["spent_in_block"] as? [[String: Any]] ?? [] {
                    expectedSpent.append("\(s["txid"]!):\(s["vin"]!) spends \(s["prev_txid"]!):\(s["prev_vout"]!)")
                    checkedIntraBlock += 1
                }
            }
            for k in known {
                expectedSpent.append("\(k["spent_in_txid"]!):\(k["vin"]!) spends \(k["prev_txid"]!):\(k["prev_vout"]!)")
            }
            let receivedText = found.received.map {
                "\(Bitcoin.display($0.txid)):\($0.vout) \($0.value) \($0.coinbase) \(Hex.encode($0.script))"
            }
            let spentText = found.spent.map {
                "\(Bitcoin.display($0.txid)):\($0.vin) spends \(Bitcoin.display(Array($0.outpoint.prefix(32)))):\(UInt32(littleEndian: $0.outpoint[32...].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }))"
            }
            XCTAssertEqual(receivedText.sorted(), expectedReceived.sorted(), entry["file"] as! String)
            XCTAssertEqual(spentText.sorted(), expectedSpent.sorted(), entry["file"] as! String)
            checkedSpends += expectedSpent.count
            let total = watch.reduce(UInt64(0)) { $0 + UInt64($1["total_received"] as! String)! }
            XCTAssertEqual(found.received.reduce(UInt64(0)) { $0 + $1.value }, total)

            // Decoys: the same HASH160 in another script kind is not the watched script.
            let decoys = try (entry["decoys_expect_no_match"] as? [[String: Any]] ?? []).map {
                try Self.scriptPubKey(of: $0["address"] as! String)
            }
            XCTAssertFalse(decoys.isEmpty)
            let hash160s = Set(scripts.filter { $0.count == 25 }.map { Array($0[3..<23]) })
            XCTAssertTrue(
                decoys.allSatisfy { hash160s.contains(Array($0.dropFirst(2).prefix(20))) }, "each decoy shares a watched key's hash")
            XCTAssertEqual(block.findings(watching: Set(decoys), owned: []).received.count, 0)
        }
        XCTAssertGreaterThan(checkedIntraBlock, 0, "the fixture has an output spent in its own block")
        XCTAssertGreaterThan(checkedSpends, checkedIntraBlock)
    }

    /// P2SH and P2WPKH scriptPubKeys of an address (the decoys' kinds).
    static func scriptPubKey(of address: String) throws -> [UInt8] {
        let a = try SignerAddress(parsing: address)
        switch a.script {
        case .p2shP2wpkh: return [0xA9, 0x14] + a.program + [0x87]
        case .p2wpkh: return [0x00, 0x14] + a.program
        case .p2pkh: return [0x76, 0xA9, 0x14] + a.program + [0x88, 0xAC]
        default: throw DerivationError.unsupported("not a decoy kind: \(address)")
        }
    }
}
