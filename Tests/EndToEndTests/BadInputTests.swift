import Foundation
import SatchelTestSupport
import XCTest

/// Inputs found by fuzzing and by independent checks: numeric options out of range, huge
/// words and keys, secrets riding along in error records.
final class BadInputTests: XCTestCase {
    static let phrase = TestPhrase.abandonAbout

    /// Every numeric option is range-checked: a usage error (64), never an overflow trap (132).
    func testNumericOptionsOutOfRangeAreUsageErrors() throws {
        let commands = [
            "derive --coin-type 2147483648", "derive account --coin-type 2147483648",
            "derive discover --used /dev/null --coin-type 2147483648", "derive discover --used /dev/null --gap 4294967295",
            "derive discover --used /dev/null --max-accounts 4294967295",
            "sign-hash --chain-id 9223372036854775807", "sign-hash --chain-id 18446744073709551615",
            "scan-blocks --blocks /dev/null --until-height 9223372036854775807",
            "scan-blocks --blocks /dev/null --birthday 9223372036854775807",
            "scan-blocks --blocks /dev/null --max-blocks 9223372036854775807",
            "scan-blocks --node 127.0.0.1:1 --follow --interval nan",
            "keystore add w --birthday xmr=9223372036854775807", "mnemonic generate --store w --birthday xmr=9223372036854775807",
            "card-info init --pin-retries 200", "card-info info --wait 1e300",
        ]
        for command in commands {
            let r = try Shell.run("timeout 30 \(command) < /dev/null")
            XCTAssertEqual(r.status, 64, command + ": " + r.stderr)
        }
        // The largest allowed chain id still signs, with v = chain_id·2 + 35 + recovery id.
        let hash = String(repeating: "11", count: 32)
        let r = try Shell.run(
            "sign-hash --chain-id 9223372036854775771 --path m/0",
            stdin: Shell.lines([["mnemonic": Self.phrase, "hash": hash]]))
        XCTAssertEqual(r.status, 0, r.stderr)
        let v = try XCTUnwrap(r.records.first?["eth_v"] as? NSNumber, r.out)
        XCTAssertTrue([18_446_744_073_709_551_577, 18_446_744_073_709_551_578].contains(v.uint64Value), "\(v)")
    }

    /// A megabyte-long unknown word gets no suggestions and is answered at once (it took
    /// minutes); a 50,000-character xpub is refused before Base58 decoding (quadratic).
    func testHugeWordsAndKeysAreRefusedQuickly() throws {
        let word = String(repeating: "x", count: 1_000_000)
        let r = try Shell.run(
            "timeout 60 mnemonic validate", stdin: Shell.lines([["mnemonic": Self.phrase.replacingOccurrences(of: "about", with: word)]]))
        XCTAssertEqual(r.status, 65, r.stderr)
        XCTAssertEqual(r.records.first?["code"] as? String, "mnemonic.unknown_word")
        XCTAssertEqual(r.records.first?["position"] as? Int, 12)
        XCTAssertEqual(r.records.first?["suggestions"] as? [String], [])
        // An ordinary typo still gets its suggestions.
        let typo = try Shell.run(
            "mnemonic validate", stdin: Shell.lines([["mnemonic": Self.phrase.replacingOccurrences(of: "about", with: "abuot")]]))
        XCTAssertEqual(typo.records.first?["suggestions"] as? [String], ["about", "abuse", "adult"])

        let xpub = "xpub" + String(repeating: "z", count: 50_000)
        let key = try Shell.run("timeout 60 derive --purpose 84", stdin: Shell.lines([["xpub": xpub]]))
        XCTAssertEqual(key.status, 65, key.stderr)
        XCTAssertEqual(key.records.first?["code"] as? String, "derive.invalid_extended_key")
        let wif = try Shell.run(
            "timeout 60 sign-hash",
            stdin: Shell.lines([["wif": String(repeating: "5", count: 50_000), "hash": String(repeating: "11", count: 32)]]))
        XCTAssertEqual(wif.status, 65, wif.stderr)
        XCTAssertEqual(wif.records.first?["code"] as? String, "derive.invalid_wif")
        // A WIF with a changed character: its own code, not an extended key's.
        let bad = try Shell.run(
            "sign-hash",
            stdin: Shell.lines([["wif": "5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTj", "hash": String(repeating: "11", count: 32)]])
        )
        XCTAssertEqual(bad.status, 65, bad.stderr)
        XCTAssertEqual(bad.records.first?["code"] as? String, "derive.invalid_wif")
        let good = try Shell.run(
            "sign-hash",
            stdin: Shell.lines([["wif": "5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ", "hash": String(repeating: "11", count: 32)]])
        )
        XCTAssertEqual(good.status, 0, good.stderr)
    }

    /// An error record from upstream travels on, but without the secret fields in it, and
    /// starting with "type" and "v" like every line a tool writes (found by the records fuzz
    /// target: one written by hand, without "v", came out without it).
    func testSecretFieldsDoNotPassThroughInErrorRecords() throws {
        let upstream: [String: Any] = [
            "type": "error", "code": "upstream.failed", "line": 3, "id": "w1",
            "mnemonic": Self.phrase, "seed": "000102030405060708090a0b0c0d0e0f",
            "xprv": "xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi",
            "passphrase": "TREZOR", "private_view_key": String(repeating: "0", count: 64),
        ]
        for command in ["derive", "derive account", "sign-hash", "sign-hash verify", "sign-tx", "mnemonic validate", "mnemonic to-seed"] {
            let r = try Shell.run(command, stdin: Shell.lines([upstream]))
            XCTAssertEqual(r.status, 0, command + ": " + r.stderr)
            XCTAssertEqual(r.records.count, 1, command)
            let record = try XCTUnwrap(r.records.first)
            XCTAssertEqual(Set(record.keys), ["type", "v", "code", "line", "id"], command)
            XCTAssertTrue(r.out.hasPrefix("{\"type\":\"error\",\"v\":1,"), command + ": " + r.out)
            XCTAssertEqual(record["code"] as? String, "upstream.failed", command)
            XCTAssertFalse(r.out.contains("abandon"), command)
        }
    }
}
