import Foundation
import WalletCore
import SatchelTestSupport
import XCTest
@testable import Zcash

/// Orchard keys against zcash-test-vectors: orchard_key_components (from a raw sk: ask, ak,
/// nk, rivk, ivk, ovk, dk, the default address, the internal keys, a note's cmx and
/// nullifier) and orchard_zip32 (the hardened chain from a seed).
final class OrchardKeyTests: XCTestCase {

    func testKeyComponents() throws {
        let rows = try ZcashVectors.rows("orchard/orchard_key_components.json")
        let values = try ZcashVectors.exactIntegers("orchard/orchard_key_components.json", field: "note_v")
        XCTAssertEqual(rows.count, 10)
        for (row, value) in zip(rows, values) {
            let sk = try XCTUnwrap(row.bytes("sk"), "sk")
            let fvk = try OrchardFullViewingKey(spendingKey: sk)
            XCTAssertEqual(Hex.encode(OrchardFullViewingKey.ask(spendingKey: sk).bytes), row["ask"] as? String)
            XCTAssertEqual(Hex.encode(fvk.ak.bytes), row["ak"] as? String)
            XCTAssertEqual(Hex.encode(fvk.nk.bytes), row["nk"] as? String)
            XCTAssertEqual(Hex.encode(fvk.rivk.bytes), row["rivk"] as? String)
            let external = fvk.incomingViewingKey(change: false)
            XCTAssertEqual(Hex.encode(external.ivk.bytes), row["ivk"] as? String)
            XCTAssertEqual(Hex.encode(external.dk), row["dk"] as? String)
            XCTAssertEqual(Hex.encode(fvk.outgoingViewingKey(change: false)), row["ovk"] as? String)
            let address = external.address(at: DiversifierIndex(0))
            XCTAssertEqual(Hex.encode(address.diversifier), row["default_d"] as? String)
            XCTAssertEqual(Hex.encode(address.transmissionKey), row["default_pk_d"] as? String)
            let change = fvk.incomingViewingKey(change: true)
            XCTAssertEqual(Hex.encode(fvk.internalRivk.bytes), row["internal_rivk"] as? String)
            XCTAssertEqual(Hex.encode(change.ivk.bytes), row["internal_ivk"] as? String)
            XCTAssertEqual(Hex.encode(change.dk), row["internal_dk"] as? String)
            XCTAssertEqual(Hex.encode(fvk.outgoingViewingKey(change: true)), row["internal_ovk"] as? String)
            // The 96-byte form reads back; the 64-byte ivk form too.
            XCTAssertEqual(try OrchardFullViewingKey(bytes: fvk.bytes), fvk)
            XCTAssertEqual(OrchardIncomingViewingKey(bytes: external.bytes), external)
            // The note to the default address.
            let rho = try XCTUnwrap(PallasBase(bytes: try XCTUnwrap(row.bytes("note_rho"), "note_rho")))
            let note = OrchardNote(address: address, value: value, rho: rho, rseed: try XCTUnwrap(row.bytes("note_rseed"), "note_rseed"))
            XCTAssertEqual(note.cmx.map { Hex.encode($0.bytes) }, row["note_cmx"] as? String)
            XCTAssertEqual(note.nullifier(nk: fvk.nk).map { Hex.encode($0.bytes) }, row["note_nf"] as? String)
        }
    }

    /// ZIP 2005's V3 note (the Ironwood pool's): zcash/orchard's note_qr_rcm and note_qr_cmx
    /// for the 10 keys' notes, beside their V2 cmx; the nullifier's rule is the pool's own
    /// only through cm, so a V3 note's differs.
    func testV3NoteRcmAndCmx() throws {
        // A list of objects (not zcash-test-vectors' layout); note_v read exactly (it passes 2^63).
        let data = try Data(contentsOf: TestPaths.vector("zcash/ironwood/orchard_note_qr.json"))
        let rows = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        guard case .array(let exact) = try JSONParser.parse(Array(data)) else { return XCTFail("not a list") }
        let values = try exact.map { item throws -> UInt64 in
            guard case .object(let o) = item, case .number(let text)? = o["note_v"], let v = UInt64(text) else {
                throw VectorError("note_v")
            }
            return v
        }
        XCTAssertEqual(rows.count, 10)
        for (row, value) in zip(rows, values) {
            let fvk = try OrchardFullViewingKey(spendingKey: try XCTUnwrap(row.bytes("sk"), "sk"))
            let address = fvk.incomingViewingKey(change: false).address(at: DiversifierIndex(0))
            XCTAssertEqual(Hex.encode(address.diversifier), row["default_d"] as? String)
            XCTAssertEqual(Hex.encode(address.transmissionKey), row["default_pk_d"] as? String)
            let rho = try XCTUnwrap(PallasBase(bytes: try XCTUnwrap(row.bytes("note_rho"), "note_rho")))
            let rseed = try XCTUnwrap(row.bytes("note_rseed"), "note_rseed")
            let v2 = OrchardNote(address: address, value: value, rho: rho, rseed: rseed)
            let v3 = OrchardNote(address: address, value: value, rho: rho, rseed: rseed, version: .v3)
            XCTAssertEqual(v2.cmx.map { Hex.encode($0.bytes) }, row["note_cmx"] as? String)
            XCTAssertEqual(v2.nullifier(nk: fvk.nk).map { Hex.encode($0.bytes) }, row["note_nf"] as? String)
            XCTAssertEqual(Hex.encode(v3.rcm.bytes), row["note_qr_rcm"] as? String)
            XCTAssertEqual(v3.cmx.map { Hex.encode($0.bytes) }, row["note_qr_cmx"] as? String)
            XCTAssertNotEqual(v3.nullifier(nk: fvk.nk)?.bytes, v2.nullifier(nk: fvk.nk)?.bytes)
        }
    }

    func testZIP32() throws {
        let rows = try ZcashVectors.rows("orchard/orchard_zip32.json")
        XCTAssertEqual(rows.count, 4)
        var key = OrchardExtendedSpendingKey.master(seed: (0..<32).map(UInt8.init))
        for (i, row) in rows.enumerated() {
            if i > 0 { key = key.child(0x8000_0000 | UInt32(i)) }
            XCTAssertEqual(key.spendingKey.withUnsafeBytes { Hex.encode(Array($0)) }, row["sk"] as? String)
            XCTAssertEqual(Hex.encode(key.chainCode), row["c"] as? String)
            XCTAssertEqual(key.bytes.withUnsafeBytes { Hex.encode(Array($0)) }, row["xsk"] as? String)
            XCTAssertEqual(Hex.encode(try key.fullViewingKey().fingerprint), row["fp"] as? String)
        }
    }

    /// ZIP 2005's two rivk rules on fixtures/zcash-ironwood's account 2 (m/32'/133'/2' of the
    /// "abandon … art" seed), whose wallet.json gives both: qsk and qk (BLAKE3's derive_key),
    /// then ak, nk, rivk, ivk, dk, ovk and the internal scope's rivk, ivk, dk, ovk under each
    /// rule. The rules share ak and nk and differ from rivk on; account 0's keys stay those of
    /// the standard rule.
    func testBothRivkRulesOfZIP2005() throws {
        let wallet = try XCTUnwrap(TestPaths.json(TestPaths.fixture("zcash-ironwood/wallet.json")) as? [String: Any])
        let orchard = try XCTUnwrap(wallet["orchard"] as? [String: Any])
        let account2 = try XCTUnwrap(orchard["account2"] as? [String: Any])
        let seed = HexString.bytes(try XCTUnwrap(wallet["bip39_seed"] as? String))
        let key = OrchardExtendedSpendingKey.account(seed: seed, coinType: 133, account: 2)
        let sk = key.spendingKey.withUnsafeBytes { Array($0) }
        XCTAssertEqual(Hex.encode(sk), account2["sk"] as? String)
        let quantum = try XCTUnwrap(account2["use_qsk_true"] as? [String: Any])
        let (qsk, qk) = OrchardRivkRule.quantumKeys(spendingKey: sk)
        XCTAssertEqual(Hex.encode(qsk), quantum["qsk"] as? String)
        XCTAssertEqual(Hex.encode(qk), quantum["qk"] as? String)
        for rule in OrchardRivkRule.allCases {
            let values = try XCTUnwrap(account2[rule.useQsk ? "use_qsk_true" : "use_qsk_false"] as? [String: Any])
            let inner = try XCTUnwrap(values["internal"] as? [String: Any])
            let fvk = try key.fullViewingKey(rivkRule: rule)
            XCTAssertEqual(try OrchardFullViewingKey(spendingKey: sk, rivkRule: rule), fvk)
            XCTAssertEqual(Hex.encode(fvk.ak.bytes), values["ak"] as? String, "\(rule)")
            XCTAssertEqual(Hex.encode(fvk.nk.bytes), values["nk"] as? String, "\(rule)")
            XCTAssertEqual(Hex.encode(fvk.rivk.bytes), values["rivk"] as? String, "\(rule)")
            XCTAssertEqual(Hex.encode(fvk.bytes), values["fvk_bytes"] as? String, "\(rule)")
            XCTAssertEqual(Hex.encode(fvk.incomingViewingKey(change: false).ivk.bytes), values["ivk"] as? String, "\(rule)")
            XCTAssertEqual(Hex.encode(fvk.incomingViewingKey(change: false).dk), values["dk"] as? String, "\(rule)")
            XCTAssertEqual(Hex.encode(fvk.outgoingViewingKey(change: false)), values["ovk"] as? String, "\(rule)")
            XCTAssertEqual(Hex.encode(fvk.internalRivk.bytes), inner["rivk"] as? String, "\(rule)")
            XCTAssertEqual(Hex.encode(fvk.incomingViewingKey(change: true).ivk.bytes), inner["ivk"] as? String, "\(rule)")
            XCTAssertEqual(Hex.encode(fvk.incomingViewingKey(change: true).dk), inner["dk"] as? String, "\(rule)")
            XCTAssertEqual(Hex.encode(fvk.outgoingViewingKey(change: true)), inner["ovk"] as? String, "\(rule)")
        }
        XCTAssertNotEqual(try key.fullViewingKey(rivkRule: .standard).rivk, try key.fullViewingKey(rivkRule: .quantumSecure).rivk)
        XCTAssertEqual(
            Hex.encode(try OrchardExtendedSpendingKey.account(seed: seed, coinType: 133, account: 0).fullViewingKey().rivk.bytes),
            orchard["rivk"] as? String)
    }

    /// Keys that are no keys: a zero ivk, an ak that is no point's x, non-canonical parts.
    func testRefusedViewingKeys() throws {
        let fvk = try OrchardFullViewingKey(spendingKey: [UInt8](repeating: 7, count: 32))
        var bytes = fvk.bytes
        bytes[0] ^= 1
        // About half of all x have a point: flip until one has none.
        while PallasPoint(bytes: Array(bytes[0..<32])) != nil { bytes[1] &+= 1 }
        XCTAssertThrowsError(try OrchardFullViewingKey(bytes: bytes))
        XCTAssertThrowsError(try OrchardFullViewingKey(bytes: Array(fvk.bytes.prefix(95))))
        var high = fvk.bytes
        high[63] = 0xFF  // nk ≥ p
        XCTAssertThrowsError(try OrchardFullViewingKey(bytes: high))
        XCTAssertNil(OrchardIncomingViewingKey(bytes: [UInt8](repeating: 1, count: 32) + [UInt8](repeating: 0, count: 32)))
    }

    /// The Orchard items of the unified_* vectors come from their root seed and account by
    /// ZIP-32 (mainnet, coin type 133): full and incoming viewing keys, and the receiver at
    /// the row's diversifier index.
    func testUnifiedVectorsOrchardItemsFromTheirSeeds() throws {
        var checked = 0
        for (file, field) in [
            ("unified_full_viewing_keys.json", "orchard_fvk_bytes"), ("unified_incoming_viewing_keys.json", "orchard_ivk_bytes"),
            ("unified_address.json", "orchard_raw_addr"),
        ] {
            let rows = try ZcashVectors.rows(file)
            let accounts = try ZcashVectors.exactIntegers(file, field: "account")
            let indexes =
                file == "unified_address.json" ? try ZcashVectors.exactIntegers(file, field: "diversifier_index") : accounts.map { _ in 0 }
            for ((row, account), index) in zip(zip(rows, accounts), indexes) {
                guard let expected = row[field] as? String else { continue }
                let key = OrchardExtendedSpendingKey.account(
                    seed: try XCTUnwrap(row.bytes("root_seed"), "root_seed"), coinType: 133, account: UInt32(account))
                let fvk = try key.fullViewingKey()
                let got: [UInt8]
                switch field {
                case "orchard_fvk_bytes": got = fvk.bytes
                case "orchard_ivk_bytes": got = fvk.incomingViewingKey(change: false).bytes
                default: got = fvk.incomingViewingKey(change: false).address(at: DiversifierIndex(index)).bytes
                }
                XCTAssertEqual(Hex.encode(got), expected, "\(file) account \(account)")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 40)
    }
}
