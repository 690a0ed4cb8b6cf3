import Foundation
import SatchelTestSupport
import WalletCore
import XCTest
@testable import Zcash
@testable import ZcashScan

/// fixtures/zcash-orchard (50 blocks, 459 Orchard actions; the "abandon … art" wallet): the
/// account-0 Orchard keys from the seed find exactly its 16 Orchard notes — value, position
/// (from the blocks' Orchard tree sizes), address, rseed, nullifier, memo — in the .jsonl and the .pb alike; the 4 spent ones are spent by
/// later actions' nullifiers; the 5 look-alikes are refused; the external key alone finds the
/// 12 external notes.
final class OrchardFixtureTests: XCTestCase {
    let fixture = TestPaths.fixture("zcash-orchard")

    struct Found: Equatable, CustomStringConvertible {
        let height: Int, txIndex: Int, actionIndex: Int, position: UInt64?
        let scope: String, value: UInt64, diversifier: String, pkd: String, rseed: String, nullifier: String, memo: String?
        var description: String { "\(height)/\(txIndex)/\(actionIndex) \(scope) \(value)" }
    }

    /// A field as text: the files write some numbers as strings and some as numbers.
    private func text(_ value: Any?) -> String { value as? String ?? (value as? NSNumber)?.stringValue ?? "" }

    private func lines(_ name: String) throws -> [[String: Any]] {
        try String(contentsOf: fixture.appendingPathComponent(name), encoding: .utf8).split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    private func keys() throws -> OrchardFullViewingKey {
        let wallet = try XCTUnwrap(TestPaths.json(fixture.appendingPathComponent("wallet.json")) as? [String: Any])
        let seed = try Hex.decode(try XCTUnwrap(wallet["bip39_seed"] as? String))
        return try OrchardExtendedSpendingKey.account(seed: seed, coinType: 133, account: 0).fullViewingKey()
    }

    /// Every action of every block tried with the given keys (external first).
    private func scan(
        _ file: String, keys: [(scope: String, key: OrchardIncomingViewingKey)], nk: PallasBase
    ) throws
        -> (found: [Found], nullifiers: [String: Int])
    {
        let memos = Dictionary(
            uniqueKeysWithValues: try lines("orchard_actions_full.jsonl").map {
                ("\(text($0["txid"]))/\(text($0["actionIndex"]))", try Hex.decode(text($0["encCiphertext"])))
            })
        let source = try CompactBlockFileSource(path: fixture.appendingPathComponent(file).path)
        var found = [Found]()
        var nullifiers = [String: Int]()
        for data in try source.blocks(from: 2_950_000, count: 100) {
            let block = try ZcashCompactBlock.parse(data.blob, expectedHeight: data.height)
            for tx in block.transactions {
                for (i, action) in tx.actions.enumerated() {
                    nullifiers[Hex.encode(action.nullifier)] = data.height
                    for (scope, key) in keys {
                        guard let note = OrchardDecryptor(key: key).tryDecrypt(action) else { continue }
                        let full = try XCTUnwrap(memos["\(Hex.encode(tx.id))/\(i)"])
                        let memo = SaplingMemo.plaintext(encCiphertext: full, key: note.key).map { Hex.encode(Array($0[52..<564])) }
                        found.append(
                            Found(
                                height: data.height, txIndex: Int(tx.index), actionIndex: i,
                                position: tx.firstActionPosition.map { $0 + UInt64(i) }, scope: scope, value: note.note.value,
                                diversifier: Hex.encode(note.note.address.diversifier), pkd: Hex.encode(note.note.address.transmissionKey),
                                rseed: Hex.encode(note.note.rseed),
                                nullifier: note.note.nullifier(nk: nk).map { Hex.encode($0.bytes) } ?? "",
                                memo: memo))
                        break
                    }
                }
            }
        }
        return (found, nullifiers)
    }

    func testTheWalletsOrchardNotesExactly() throws {
        let fvk = try keys()
        let external = fvk.incomingViewingKey(change: false), internalKey = fvk.incomingViewingKey(change: true)
        let expectedRows = try lines("expected_notes.jsonl").filter { $0["pool"] as? String == "orchard" }
        XCTAssertEqual(expectedRows.count, 16)
        let expected = expectedRows.map { r in
            Found(
                height: Int(text(r["height"]))!, txIndex: Int(text(r["txIndex"]))!, actionIndex: Int(text(r["actionIndex"]))!,
                position: UInt64(text(r["position"]))!, scope: text(r["scope"]), value: UInt64(text(r["value"]))!,
                diversifier: text(r["diversifier"]),
                pkd: text(r["pk_d"]), rseed: text(r["rseed"]), nullifier: text(r["nullifier"]), memo: r["memo_hex"] as? String)
        }
        for file in ["compact_blocks.jsonl", "compact_blocks.pb"] {
            let (found, nullifiers) = try scan(file, keys: [("external", external), ("internal", internalKey)], nk: fvk.nk)
            XCTAssertEqual(found, expected, file)
            XCTAssertEqual(nullifiers.count, 459, file)
            // Spent exactly when a later action reveals the note's nullifier.
            for row in expectedRows {
                let spentAt = nullifiers[text(row["nullifier"])]
                if let spent = row["spent"] as? [String: Any] {
                    XCTAssertEqual(spentAt.map(String.init), text(spent["height"]), text(row["id"]))
                } else {
                    XCTAssertNil(spentAt, row["id"] as? String ?? "")
                }
            }
            // The external key alone: the 12 payments.
            let (payments, _) = try scan(file, keys: [("external", external)], nk: fvk.nk)
            XCTAssertEqual(payments, expected.filter { $0.scope == "external" }, file)
            XCTAssertEqual(payments.count, 12)
        }
        let summary = try XCTUnwrap(TestPaths.json(fixture.appendingPathComponent("expected_summary.json")) as? [String: Any])
        XCTAssertEqual(expected.reduce(0) { $0 + $1.value }, UInt64(try XCTUnwrap(summary["totalReceivedOrchard"] as? Int)))
    }

    /// scan-blocks with Orchard-only unified viewing keys of the fixture's wallet (made here,
    /// as derive writes no such key): the UFVK finds the 16 Orchard notes with their positions
    /// and the 4 spends, the UIVK the 12 payments and no spend; balances name Orchard alone.
    func testOrchardOnlyViewingKeysInScanBlocks() throws {
        let fvk = try keys()
        let summary = try XCTUnwrap(TestPaths.json(fixture.appendingPathComponent("expected_summary.json")) as? [String: Any])
        let expected = try lines("expected_notes.jsonl").filter { $0["pool"] as? String == "orchard" }
        let ufvk = UnifiedEncoding.encode([(UnifiedEncoding.Typecode.orchard, fvk.bytes)], kind: .fullViewingKey, network: .main)
        let uivk = UnifiedEncoding.encode(
            [(UnifiedEncoding.Typecode.orchard, fvk.incomingViewingKey(change: false).bytes)],
            kind: .incomingViewingKey, network: .main)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-oo-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (field, key) in [("ufvk", ufvk), ("uivk", uivk)] {
            let r = try Shell.run(
                "scan-blocks --chain zcash --blocks \(fixture.path)/compact_blocks.pb --birthday 2950000 --state-dir \(dir)/\(field) --progress none",
                stdin: Shell.lines([[field: key]]))
            XCTAssertEqual(r.status, 0, r.stderr)
            let received = r.records.filter { $0["type"] as? String == "received" }
            let full = field == "ufvk"
            let wanted = full ? expected : expected.filter { $0["scope"] as? String == "external" }
            XCTAssertEqual(
                received.map {
                    "\($0["pool"] ?? "")/\($0["txid"] ?? "")/\($0["index"] ?? "")/\($0["position"] ?? "")/\($0["amount"] ?? "")"
                },
                wanted.map { "orchard/\(text($0["txid"]))/\(text($0["actionIndex"]))/\(text($0["position"]))/\(text($0["value"]))" }, field)
            XCTAssertEqual(received.map { $0["nullifier"] as? String }, wanted.map { full ? text($0["nullifier"]) : nil }, field)
            XCTAssertEqual(r.records.filter { $0["type"] as? String == "spent" }.count, full ? 4 : 0, field)
            let balance = try XCTUnwrap(r.records.last)
            XCTAssertEqual(balance["spends_known"] as? Bool, full, field)
            XCTAssertEqual(
                balance["total"] as? String, text(summary[full ? "unspentBalanceOrchard" : "totalReceivedOrchardExternalOnly"]), field)
            // An Orchard key scans both Orchard-protocol pools (this chain is before NU6.3: Ironwood empty).
            XCTAssertEqual((balance["pools"] as? [String: Any]).map { Set($0.keys) }, ["orchard", "ironwood"], field)
            XCTAssertEqual((balance["pools"] as? [String: [String: String]])?["ironwood"]?["total"], "0", field)
        }
        // Neither shielded item: refused before anything is scanned.
        let generator = "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"  // secp256k1's G: a valid transparent item
        let transparentOnly = try Shell.run(
            "scan-blocks --chain zcash --blocks \(fixture.path)/compact_blocks.pb --birthday 2950000 --state-dir \(dir)/t --progress none",
            stdin: Shell.lines([
                [
                    "uivk": UnifiedEncoding.encode(
                        [(UnifiedEncoding.Typecode.p2pkh, [UInt8](repeating: 3, count: 32) + (try Hex.decode(generator)))],
                        kind: .incomingViewingKey, network: .main)
                ]
            ]))
        XCTAssertEqual(transparentOnly.status, 65, transparentOnly.stderr)
        XCTAssertTrue(transparentOnly.stderr.contains("zcash.no_shielded_item"), transparentOnly.stderr)
    }

    /// The look-alikes (a cmx or epk that does not recompute, another lead byte, a wrong rho,
    /// a note to account 1) are not notes of account 0; each is an action of the chain.
    func testNegativeCases() throws {
        let fvk = try keys()
        let decryptors = [fvk.incomingViewingKey(change: false), fvk.incomingViewingKey(change: true)].map(OrchardDecryptor.init)
        let cases = try lines("negative_cases.jsonl").filter { $0["pool"] as? String == "orchard" }
        XCTAssertEqual(
            Set(cases.compactMap { $0["reason"] as? String }),
            ["cmx_mismatch", "epk_mismatch", "lead_byte", "rho_mismatch", "other_account"])
        let source = try CompactBlockFileSource(path: fixture.appendingPathComponent("compact_blocks.jsonl").path)
        let blocks = try source.blocks(from: 2_950_000, count: 100).map { try ZcashCompactBlock.parse($0.blob, expectedHeight: $0.height) }
        for c in cases {
            let height = Int(text(c["height"]))!, txid = text(c["txid"]), index = Int(text(c["actionIndex"]))!
            let tx = try XCTUnwrap(blocks.first { Int($0.height) == height }?.transactions.first { Hex.encode($0.id) == txid })
            let action = tx.actions[index]
            XCTAssertEqual(Hex.encode(action.cmx), c["cmx"] as? String)
            for d in decryptors { XCTAssertNil(d.tryDecrypt(action), c["reason"] as? String ?? "") }
        }
    }

    /// A block's epks are decoded when it is parsed, all together (`ephemeralPoints`), as each
    /// action's own decoding does: the fixture's 459, and in a block of its actions with some
    /// ephemeral keys made no point, the identity or non-canonical, exactly those are nil.
    func testEphemeralPointsDecodedWithTheBlock() throws {
        let source = try CompactBlockFileSource(path: fixture.appendingPathComponent("compact_blocks.jsonl").path)
        let data = try source.blocks(from: 2_950_000, count: 100)
        var actions = 0
        for d in data {
            for tx in try ZcashCompactBlock.parse(d.blob, expectedHeight: d.height).transactions {
                XCTAssertEqual(tx.ephemeralPoints.map { $0?.bytes }, tx.actions.map { OrchardDecryptor.ephemeralPoint($0)?.bytes })
                XCTAssertTrue(tx.ephemeralPoints.allSatisfy { $0 != nil })
                actions += tx.actions.count
            }
        }
        XCTAssertEqual(actions, 459)
        // All actions in one block's one transaction, every third epk broken in turn.
        var wire = try WireCompactBlock(serializedBytes: data[0].blob)
        var tx = WireCompactTx()
        tx.txid = Data(repeating: 3, count: 32)
        tx.actions = try data.flatMap { try WireCompactBlock(serializedBytes: $0.blob).vtx.flatMap(\.actions) }
        let p = PallasBaseModulus.modulus.littleEndianBytes
        let broken: [[UInt8]] = [[UInt8](repeating: 0, count: 32), p, [UInt8](repeating: 0xFF, count: 32)]
        var noPoint = [UInt8](repeating: 0, count: 32)
        noPoint[0] = 1
        while PallasPoint(bytes: noPoint) != nil { noPoint[0] += 1 }
        for i in stride(from: 1, to: tx.actions.count, by: 3) {
            tx.actions[i].ephemeralKey = Data((broken + [noPoint])[(i / 3) % 4])
        }
        wire.vtx = [tx]
        wire.clearChainMetadata()
        let parsed = try XCTUnwrap(ZcashCompactBlock.from(wire, expectedHeight: data[0].height).transactions.first)
        XCTAssertEqual(parsed.ephemeralPoints.count, 459)
        XCTAssertEqual(parsed.ephemeralPoints.indices.filter { parsed.ephemeralPoints[$0] == nil }, Array(stride(from: 1, to: 459, by: 3)))
        XCTAssertEqual(parsed.ephemeralPoints.map { $0?.bytes }, parsed.actions.map { OrchardDecryptor.ephemeralPoint($0)?.bytes })
    }
}
