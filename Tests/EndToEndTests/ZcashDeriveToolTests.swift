import Foundation
import SatchelTestSupport
import XCTest

/// `derive --coin zec --pool sapling|orchard` and `derive account` on the "abandon … art"
/// wallet of vectors/zcash/generated (its zs1, t1 and keys agree with Zingo's and
/// librustzcash's tests): its u1 (Orchard, Sapling, P2PKH), uview1 and uivk1 come out of the
/// seed alone, string for string.
final class ZcashDeriveToolTests: XCTestCase {
    private func wallet() throws -> (w: [String: Any], sapling: [String: Any], unified: [String: Any]) {
        let w = try XCTUnwrap(TestPaths.json(TestPaths.vector("zcash/generated/wallet_abandon_art_account0.json")) as? [String: Any])
        return (w, try XCTUnwrap(w["sapling"] as? [String: Any]), try XCTUnwrap(w["unified"] as? [String: Any]))
    }

    func testAddressesFromThePhrase() throws {
        let (w, s, u) = try wallet()
        let phrase = Shell.lines([["mnemonic": w["mnemonic"]!, "label": "shop"]])
        let r = try Shell.run("derive --coin zec --pool sapling --count 2 --change both", stdin: phrase)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(
            r.records.map { $0["address"] as? String },
            [
                s["default_address"] as? String, s["diversified_address"] as? String,
                (s["internal"] as? [String: Any])?["default_address"] as? String,
            ])
        XCTAssertEqual(r.records.map { $0["diversifier_index"] as? String }, ["0", "1", "1"])
        XCTAssertEqual(r.records.map { $0["change"] as? Int }, [0, 0, 1])
        XCTAssertEqual(r.records[0]["transparent_address"] as? String, u["transparent_address"] as? String)
        XCTAssertEqual(r.records[0]["unified_address"] as? String, u["ua_orchard_sapling_p2pkh"] as? String)
        XCTAssertEqual(r.records[0]["path"] as? String, "m/32'/133'/0'")
        XCTAssertNil(r.records[2]["unified_address"])
        XCTAssertEqual(r.records.map { $0["label"] as? String }, ["shop", "shop", "shop"])
        XCTAssertFalse(r.out.contains("mnemonic"))
    }

    func testAccountRecordAndWatchOnlyAddresses() throws {
        let (w, s, u) = try wallet()
        let phrase = Shell.lines([["mnemonic": w["mnemonic"]!]])
        let account = try Shell.run("derive account --coin zec --pool sapling", stdin: phrase)
        XCTAssertEqual(account.status, 0, account.stderr)
        let a = try XCTUnwrap(account.records.first)
        XCTAssertEqual(account.records.count, 1)
        XCTAssertEqual(a["extended_full_viewing_key"] as? String, s["extfvk_bech32"] as? String)
        XCTAssertEqual(a["incoming_viewing_key"] as? String, s["ivk_bech32_zcashd"] as? String)
        XCTAssertEqual(a["default_address"] as? String, s["default_address"] as? String)
        XCTAssertEqual(a["transparent_address"] as? String, u["transparent_address"] as? String)
        XCTAssertEqual(a["unified_address"] as? String, u["ua_orchard_sapling_p2pkh"] as? String)
        XCTAssertEqual(a["ufvk"] as? String, u["ufvk"] as? String)
        XCTAssertEqual(a["uivk"] as? String, u["uivk"] as? String)
        XCTAssertNil(a["extended_spending_key"])
        XCTAssertFalse(account.out.contains("secret-extended-key"))
        let secret = try Shell.run("derive account --coin zec --pool sapling --private", stdin: phrase)
        XCTAssertEqual(secret.status, 0, secret.stderr)
        XCTAssertEqual(secret.records.first?["extended_spending_key"] as? String, s["extsk_bech32"] as? String)
        // The spending key never passes on down a pipe.
        let piped = try Shell.run(
            "set -o pipefail; derive account --coin zec --pool sapling --private | derive --count 2 --change both", stdin: phrase)
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertEqual(piped.records.count, 3)
        XCTAssertFalse(piped.out.contains("secret-extended-key"))
        XCTAssertFalse(piped.out.contains("extended_spending_key"))

        // The account record, the file's own uview1, the UIVK and the zxviews key each give the
        // same receive addresses (the zxviews key, Sapling's alone, no Orchard receiver).
        let fromSeed = try Shell.run("derive --coin zec --pool sapling --count 3", stdin: phrase)
        XCTAssertEqual(fromSeed.status, 0, fromSeed.stderr)
        for input: [String: Any] in [a, ["ufvk": u["ufvk"]!], ["uivk": u["uivk"]!], ["extended_full_viewing_key": s["extfvk_bech32"]!]] {
            let r = try Shell.run("derive --count 3", stdin: Shell.lines([input]))
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(r.records.map { $0["address"] as? String }, fromSeed.records.map { $0["address"] as? String }, "\(input.keys)")
            XCTAssertEqual(
                r.records.map { $0["diversifier_index"] as? String }, fromSeed.records.map { $0["diversifier_index"] as? String })
            if input["extended_full_viewing_key"] == nil {
                XCTAssertEqual(
                    r.records.map { $0["unified_address"] as? String }, fromSeed.records.map { $0["unified_address"] as? String })
            }
            XCTAssertNil(r.records.first?["ufvk"])
        }
        // The change address needs the full viewing key.
        let change = try Shell.run("derive --change 1", stdin: Shell.lines([["ufvk": u["ufvk"]!]]))
        XCTAssertEqual(change.status, 0, change.stderr)
        XCTAssertEqual(change.records.first?["address"] as? String, (s["internal"] as? [String: Any])?["default_address"] as? String)
        let noChange = try Shell.run("derive --change 1", stdin: Shell.lines([["uivk": u["uivk"]!]]))
        XCTAssertEqual(noChange.status, 65)
        XCTAssertEqual(noChange.records.first?["type"] as? String, "error")
    }

    func testGeneratedPhraseInAPipe() throws {
        let r = try Shell.run("set -o pipefail; mnemonic generate | derive --coin zec --pool sapling --count 2 --index 5")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.records.count, 2)
        for record in r.records {
            XCTAssertTrue((record["address"] as? String ?? "").hasPrefix("zs1"), "\(record)")
            XCTAssertTrue((record["unified_address"] as? String ?? "").hasPrefix("u1"), "\(record)")
            XCTAssertTrue((record["transparent_address"] as? String ?? "").hasPrefix("t1"), "\(record)")
            XCTAssertGreaterThanOrEqual(Int(record["diversifier_index"] as? String ?? "") ?? -1, 5)
        }
        XCTAssertFalse(r.out.contains("mnemonic"))
        let test = try Shell.run("set -o pipefail; mnemonic generate | derive --coin zec --pool sapling --network test")
        XCTAssertEqual(test.status, 0, test.stderr)
        XCTAssertTrue((test.records.first?["address"] as? String ?? "").hasPrefix("ztestsapling1"), test.out)
        XCTAssertTrue((test.records.first?["unified_address"] as? String ?? "").hasPrefix("utest1"), test.out)
        XCTAssertTrue((test.records.first?["transparent_address"] as? String ?? "").hasPrefix("tm"), test.out)
    }

    /// Bad inputs are error records with their own codes; the good records around them still come.
    /// `--ur zcash-accounts`: the seed's ZIP 32 fingerprint (BLAKE2b-256 "Zcash_HD_Seed_FP" of
    /// the wallet's BIP39 seed, by Python's hashlib) in the record and the UR; refused from a
    /// viewing key, which names no seed, and for other UR types and coins.
    func testPairingUR() throws {
        let (w, _, u) = try wallet()
        let phrase = Shell.lines([["mnemonic": w["mnemonic"]!]])
        let r = try Shell.run("derive account --coin zec --pool orchard --ur zcash-accounts", stdin: phrase)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.records.first?["seed_fingerprint"] as? String, "e62855dc1419972e2d8fd349b740de6a67d8cf6feaafe90cf2f37a2344566ccc")
        XCTAssertEqual(r.records.first?["ufvk"] as? String, u["ufvk"] as? String)
        XCTAssertEqual((r.records.first?["ur"] as? String)?.hasPrefix("ur:zcash-accounts/"), true)
        let view = try Shell.run("derive account --ur zcash-accounts", stdin: Shell.lines([["ufvk": u["ufvk"]!]]))
        XCTAssertEqual(view.status, 65)
        XCTAssertEqual(view.records.first?["code"] as? String, "derive.unsupported")
        let other = try Shell.run("derive account --coin zec --pool orchard --ur crypto-hdkey", stdin: phrase)
        XCTAssertEqual(other.status, 65)
        XCTAssertEqual(
            other.records.first?["message"] as? String,
            "--ur crypto-hdkey exports a BIP32 account; a Zcash account's is --ur zcash-accounts")
        let bitcoin = try Shell.run("derive account --ur zcash-accounts", stdin: phrase)
        XCTAssertEqual(bitcoin.status, 65)
        XCTAssertEqual(
            bitcoin.records.first?["message"] as? String,
            "--ur zcash-accounts is a Zcash account's: give --coin zec --pool orchard or sapling")
    }

    func testErrorRecords() throws {
        let (w, _, _) = try wallet()
        let noSapling = try XCTUnwrap(
            (TestPaths.json(TestPaths.vector("zcash/unified_full_viewing_keys.json")) as? [[Any]])?[2][5] as? String)
        XCTAssertTrue(noSapling.hasPrefix("uview1"))
        let input = Shell.lines([
            ["ufvk": noSapling],
            ["mnemonic": w["mnemonic"]!, "diversifier_index": "309485009821345068724781056"],
            ["mnemonic": w["mnemonic"]!, "diversifier_index": "2"],
            ["ufvk": "uview1qqqq"],
        ])
        let r = try Shell.run("derive --coin zec --pool sapling", stdin: input)
        XCTAssertEqual(r.status, 65)
        XCTAssertEqual(
            r.records.map { $0["code"] as? String ?? $0["type"] as? String },
            ["zcash.no_sapling_item", "zcash.diversifier_index_out_of_range", "address", "zcash.invalid_encoding"])
        XCTAssertEqual(r.records.map { $0["line"] as? Int }, [1, 2, nil, 4])
        // Index 2 of this key is no valid diversifier (sapling_zip32-style d2 is null for about
        // half the keys): the address comes from the next valid index, and says which.
        XCTAssertEqual(r.records[2]["diversifier_index"] as? String, "3")
        XCTAssertFalse(r.out.contains("abandon"))
        XCTAssertFalse(r.stderr.contains("abandon"))
        let usage = try Shell.run("derive --coin btc --pool sapling", stdin: Shell.lines([["mnemonic": w["mnemonic"]!]]))
        XCTAssertEqual(usage.status, 64)
    }

    /// --pool orchard: Orchard-only unified addresses at every index, the same from the seed,
    /// the UFVK and the UIVK; change addresses from the full viewing key only; a Sapling-era
    /// key has no Orchard item.
    func testOrchardAddresses() throws {
        let (w, s, u) = try wallet()
        let phrase = Shell.lines([["mnemonic": w["mnemonic"]!]])
        let r = try Shell.run("derive --coin zec --pool orchard --count 3 --change both", stdin: phrase)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.records.map { $0["pool"] as? String }, Array(repeating: "orchard", count: 6))
        XCTAssertEqual(r.records.map { $0["diversifier_index"] as? String }, ["0", "1", "2", "0", "1", "2"])
        XCTAssertEqual(r.records.map { $0["change"] as? Int }, [0, 0, 0, 1, 1, 1])
        XCTAssertEqual(r.records[0]["orchard_receiver"] as? String, (u["orchard_d"] as! String) + (u["orchard_pk_d"] as! String))
        XCTAssertEqual(Set(r.records.compactMap { $0["address"] as? String }).count, 6)
        XCTAssertTrue(r.records.allSatisfy { ($0["address"] as? String ?? "").hasPrefix("u1") })
        for input: [String: Any] in [["ufvk": u["ufvk"]!], ["uivk": u["uivk"]!]] {
            let view = try Shell.run("derive --pool orchard --coin zec --count 3", stdin: Shell.lines([input]))
            XCTAssertEqual(view.status, 0, view.stderr)
            XCTAssertEqual(
                view.records.map { $0["address"] as? String }, r.records.prefix(3).map { $0["address"] as? String }, "\(input.keys)")
        }
        let change = try Shell.run("derive --pool orchard --coin zec --change 1", stdin: Shell.lines([["ufvk": u["ufvk"]!]]))
        XCTAssertEqual(change.status, 0, change.stderr)
        XCTAssertEqual(change.records.first?["address"] as? String, r.records[3]["address"] as? String)
        let noChange = try Shell.run("derive --pool orchard --coin zec --change 1", stdin: Shell.lines([["uivk": u["uivk"]!]]))
        XCTAssertEqual(noChange.status, 65)
        let sapling = try Shell.run(
            "derive --pool orchard --coin zec", stdin: Shell.lines([["extended_full_viewing_key": s["extfvk_bech32"]!]]))
        XCTAssertEqual(sapling.status, 65)
        XCTAssertEqual(sapling.records.first?["code"] as? String, "zcash.no_orchard_item")
    }

    /// Orchard-only unified viewing keys (the zcash-test-vectors rows with an Orchard item, no
    /// Sapling one and no unknown one): `derive account` from the UFVK writes it back string for
    /// string and gives the row's UIVK, with no Sapling field; --pool orchard gives the same
    /// addresses from the UFVK, the UIVK and the row's seed; Sapling addresses are refused.
    func testOrchardOnlyViewingKeys() throws {
        let ufvks = try XCTUnwrap(TestPaths.json(TestPaths.vector("zcash/unified_full_viewing_keys.json")) as? [[Any]])
        let uivks = try XCTUnwrap(TestPaths.json(TestPaths.vector("zcash/unified_incoming_viewing_keys.json")) as? [[Any]])
        let rows = (2..<ufvks.count).filter { ufvks[$0][1] is NSNull && ufvks[$0][2] is String && ufvks[$0][4] is NSNull }
        XCTAssertEqual(rows.count, 11)
        for i in rows {
            let (ufvk, uivk) = (try XCTUnwrap(ufvks[i][5] as? String), try XCTUnwrap(uivks[i][5] as? String))
            let (seed, account) = (try XCTUnwrap(ufvks[i][6] as? String), try XCTUnwrap(ufvks[i][7] as? Int))
            XCTAssertEqual(uivks[i][6] as? String, seed)
            XCTAssertEqual(uivks[i][7] as? Int, account)
            let a = try Shell.run("derive account --coin zec", stdin: Shell.lines([["ufvk": ufvk], ["uivk": uivk]]))
            XCTAssertEqual(a.status, 0, "row \(i): \(a.stderr)")
            XCTAssertEqual(a.records.count, 2)
            XCTAssertEqual(a.records.first?["ufvk"] as? String, ufvk, "row \(i)")
            XCTAssertEqual(a.records.map { $0["uivk"] as? String }, [uivk, uivk], "row \(i)")
            XCTAssertTrue(a.records.allSatisfy { $0["incoming_viewing_key"] == nil && $0["default_address"] == nil }, "row \(i)")
            XCTAssertEqual(a.records[0]["unified_address"] as? String, a.records[1]["unified_address"] as? String, "row \(i)")
            let fromKeys = try Shell.run(
                "derive --coin zec --pool orchard --count 2", stdin: Shell.lines([["ufvk": ufvk], ["uivk": uivk]]))
            let fromSeed = try Shell.run(
                "derive --coin zec --pool orchard --count 2 --account \(account)", stdin: Shell.lines([["seed": seed]]))
            XCTAssertEqual(fromKeys.status, 0, fromKeys.stderr)
            XCTAssertEqual(fromSeed.status, 0, fromSeed.stderr)
            let addresses = fromSeed.records.map { $0["address"] as? String }
            XCTAssertEqual(addresses.count, 2)
            XCTAssertEqual(fromKeys.records.map { $0["address"] as? String }, addresses + addresses, "row \(i)")
            let sapling = try Shell.run("derive --coin zec", stdin: Shell.lines([["ufvk": ufvk]]))
            XCTAssertEqual(sapling.status, 65)
            XCTAssertEqual(sapling.records.first?["code"] as? String, "zcash.no_sapling_item")
        }
    }
}
