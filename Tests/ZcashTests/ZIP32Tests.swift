import SatchelTestSupport
import WalletCore
import XCTest
@testable import Zcash

final class ZIP32Tests: XCTestCase {
    private let seed = [UInt8](0..<32)

    /// Checks one key of sapling_zip32*.json: every field, the diversifiers at 0, 1, 2 and
    /// 2^88 − 1 (null where invalid), and the internal key's fields.
    private func check(_ xsk: SaplingExtendedSpendingKey?, _ xfvk: SaplingExtendedFullViewingKey, _ v: [String: Any], _ label: String) {
        if let xsk {
            XCTAssertEqual(Hex.encode(xsk.ask.bytes), v.hex("ask"), label)
            XCTAssertEqual(Hex.encode(xsk.nsk.bytes), v.hex("nsk"), label)
            XCTAssertEqual(xsk.bytes.hex, v.hex("xsk"), label)
            XCTAssertEqual(xsk.internal.bytes.hex, v.hex("internal_xsk"), label)
            XCTAssertEqual(Hex.encode(xsk.internal.nsk.bytes), v.hex("internal_nsk"), label)
        } else {
            XCTAssertNil(v["ask"], label)
        }
        let fvk = xfvk.key
        XCTAssertEqual(Hex.encode(fvk.ovk), v.hex("ovk"), label)
        XCTAssertEqual(Hex.encode(fvk.dk), v.hex("dk"), label)
        XCTAssertEqual(Hex.encode(xfvk.chainCode), v.hex("c"), label)
        XCTAssertEqual(Hex.encode(fvk.ak.bytes), v.hex("ak"), label)
        XCTAssertEqual(Hex.encode(fvk.nk.bytes), v.hex("nk"), label)
        XCTAssertEqual(Hex.encode(fvk.incomingViewingKey.ivk.bytes), v.hex("ivk"), label)
        XCTAssertEqual(Hex.encode(xfvk.bytes), v.hex("xfvk"), label)
        XCTAssertEqual(Hex.encode(fvk.fingerprint), v.hex("fp"), label)
        let ivk = fvk.incomingViewingKey
        for (name, index) in [
            ("d0", DiversifierIndex(0)), ("d1", DiversifierIndex(1)), ("d2", DiversifierIndex(2)), ("dmax", DiversifierIndex.max),
        ] {
            XCTAssertEqual(ivk.address(exactly: index).map { Hex.encode($0.diversifier) }, v.hex(name), "\(label) \(name)")
        }
        let internalKey = xfvk.internal
        XCTAssertEqual(Hex.encode(internalKey.key.ovk), v.hex("internal_ovk"), label)
        XCTAssertEqual(Hex.encode(internalKey.key.dk), v.hex("internal_dk"), label)
        XCTAssertEqual(Hex.encode(internalKey.key.nk.bytes), v.hex("internal_nk"), label)
        XCTAssertEqual(Hex.encode(internalKey.key.incomingViewingKey.ivk.bytes), v.hex("internal_ivk"), label)
        XCTAssertEqual(Hex.encode(internalKey.bytes), v.hex("internal_xfvk"), label)
        XCTAssertEqual(Hex.encode(internalKey.key.fingerprint), v.hex("internal_fp"), label)
    }

    /// m, m/1', m/1'/2', m/1'/2'/3' (all hardened, as account keys are).
    func testHardenedChain() throws {
        let rows = try ZcashVectors.rows("sapling_zip32_hard.json")
        XCTAssertEqual(rows.count, 4)
        var key = SaplingExtendedSpendingKey.master(seed: seed)
        for (depth, row) in rows.enumerated() {
            if depth > 0 { key = key.child(0x8000_0000 | UInt32(depth)) }
            check(key, key.extendedFullViewingKey, row, "hard depth \(depth)")
        }
    }

    /// m, m/1, m/1/2', m/1/2' as a viewing key only, m/1/2'/3 from that viewing key:
    /// non-hardened steps from both kinds of key.
    func testMixedChainAndViewingKeyDerivation() throws {
        let rows = try ZcashVectors.rows("sapling_zip32.json")
        XCTAssertEqual(rows.count, 5)
        let m = SaplingExtendedSpendingKey.master(seed: seed)
        let m1 = m.child(1), m12 = m1.child(0x8000_0002), m123 = m12.child(3)
        check(m, m.extendedFullViewingKey, rows[0], "m")
        check(m1, m1.extendedFullViewingKey, rows[1], "m/1")
        check(m12, m12.extendedFullViewingKey, rows[2], "m/1/2'")
        check(nil, m12.extendedFullViewingKey, rows[3], "m/1/2' as xfvk")
        // The last row is derived from the viewing key, so it has no ask or nsk; the spending
        // key's own child must give the same viewing key.
        let fromViewing = try XCTUnwrap(m12.extendedFullViewingKey.child(3))
        check(nil, fromViewing, rows[4], "m/1/2'/3 from the xfvk")
        XCTAssertEqual(Hex.encode(m123.extendedFullViewingKey.bytes), rows[4].hex("xfvk"))
        XCTAssertNil(m12.extendedFullViewingKey.child(0x8000_0003))
    }

    /// Sapling keys from a 32-byte spending key (not ZIP-32): ask, nsk, ovk, ak, nk, ivk, the
    /// default diversifier (the first valid PRF^expand(sk, [3, i])[0..<11]) with its pk_d, and
    /// a note to it: commitment u-coordinate and nullifier.
    func testKeyComponents() throws {
        let rows = try ZcashVectors.rows("sapling_key_components.json")
        XCTAssertEqual(rows.count, 10)
        let values = try ZcashVectors.exactIntegers("sapling_key_components.json", field: "note_v")
        for (n, v) in rows.enumerated() {
            let sk = try XCTUnwrap(v.bytes("sk"))
            let ask = Fr(wide: Blake2.prfExpand(sk, [0])), nsk = Fr(wide: Blake2.prfExpand(sk, [1]))
            XCTAssertEqual(Hex.encode(ask.bytes), v.hex("ask"))
            XCTAssertEqual(Hex.encode(nsk.bytes), v.hex("nsk"))
            XCTAssertEqual(Hex.encode(Array(Blake2.prfExpand(sk, [2])[0..<32])), v.hex("ovk"))
            let fvk = SaplingFullViewingKey(
                ak: SaplingGenerators.spendAuth.times(ask), nk: SaplingGenerators.proofGeneration.times(nsk),
                ovk: [], dk: [])
            XCTAssertEqual(Hex.encode(fvk.ak.bytes), v.hex("ak"), "row \(n)")
            XCTAssertEqual(Hex.encode(fvk.nk.bytes), v.hex("nk"), "row \(n)")
            let ivk = fvk.incomingViewingKey.ivk
            XCTAssertEqual(Hex.encode(ivk.bytes), v.hex("ivk"), "row \(n)")
            var i: UInt8 = 0
            var d = Array(Blake2.prfExpand(sk, [3, i])[0..<11])
            while SaplingDiversifier.base(d) == nil { i += 1; d = Array(Blake2.prfExpand(sk, [3, i])[0..<11]) }
            XCTAssertEqual(Hex.encode(d), v.hex("default_d"), "row \(n)")
            XCTAssertEqual(Hex.encode(try XCTUnwrap(SaplingDiversifier.base(d)).times(ivk).bytes), v.hex("default_pk_d"), "row \(n)")
            // The note to that address: its commitment (Pedersen hash) and nullifier.
            let note = SaplingNote(
                diversifier: d, transmissionKey: try XCTUnwrap(v.bytes("default_pk_d")),
                value: values[n], rcm: try XCTUnwrap(Fr(bytes: try XCTUnwrap(v.bytes("note_r")))))
            XCTAssertEqual(note.commitmentU.map(Hex.encode), v.hex("note_cmu"), "row \(n)")
            XCTAssertEqual(
                note.nullifier(nk: fvk.nk, position: UInt64(try XCTUnwrap(v["note_pos"] as? Int))).map(Hex.encode), v.hex("note_nf"),
                "row \(n)")
        }
    }

    /// FF1-AES256 against the vectors in zcash-test-vectors' ff1.py (consistent with the NIST
    /// reference implementation in Java it names).
    func testFF1() {
        let ff1 = FF1AES256(key: HexString.bytes("2B7E151628AED2A6ABF7158809CF4F3CEF4359D8D580AA4F7F036D6F04FC6A94".lowercased()))
        func bits(_ s: String) -> [UInt8] { s.utf8.map { $0 - 48 } }
        func text(_ b: [UInt8]) -> String { String(decoding: b.map { $0 + 48 }, as: UTF8.self) }
        XCTAssertEqual(
            text(ff1.encrypt(bits: [UInt8](repeating: 0, count: 88))),
            "0000100100110101011101111111110011000001101100111110011101110101011010100100010011001111")
        XCTAssertEqual(
            text(ff1.encrypt(bits: bits("0000100100110101011101111111110011000001101100111110011101110101011010100100010011001111"))),
            "1101101011010001100011110000010011001111110110011101010110100001111001000101011111011000")
        XCTAssertEqual(
            text(ff1.encrypt(bits: (0..<88).map { UInt8($0 % 2) })),
            "0000111101000001111011010111011111110001100101000000001101101110100010010111001100100110")
    }

    func testDiversifierIndexDecimal() {
        XCTAssertEqual(DiversifierIndex(decimal: "309485009821345068724781055"), .max)  // 2^88 − 1
        XCTAssertNil(DiversifierIndex(decimal: "309485009821345068724781056"))
        XCTAssertEqual(DiversifierIndex.max.description, "309485009821345068724781055")
        XCTAssertEqual(DiversifierIndex(decimal: "18446744073709551616"), DiversifierIndex(low: 0, high: 1))
        XCTAssertEqual(DiversifierIndex(low: 0, high: 1).description, "18446744073709551616")
        XCTAssertNil(DiversifierIndex(decimal: "-1"))
        XCTAssertNil(DiversifierIndex(decimal: ""))
    }
}
