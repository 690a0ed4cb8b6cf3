import Foundation
import SatchelTestSupport
import XCTest

/// Every record a tool writes starts with "type" and "v" (the record schema version, 1);
/// address records made from an account record carry the address's own fields only.
final class RecordSchemaTests: XCTestCase {
    static let about = TestPhrase.abandonAbout

    func assertStamped(_ r: Shell.Result, _ types: [String], _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(r.records.map { $0["type"] as? String }, types, label + r.stderr, file: file, line: line)
        XCTAssertEqual(r.records.map { $0["v"] as? Int }, types.map { _ in 1 }, label, file: file, line: line)
        // "type" and "v" lead each line.
        for text in r.lines { XCTAssertTrue(text.hasPrefix("{\"type\":"), label + text, file: file, line: line) }
    }

    func testEveryToolStampsItsRecords() throws {
        let dir = try temporaryDirectory("schema")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: "\(dir)/pass", contents: Data("a long test passphrase\n".utf8), attributes: [.posixPermissions: 0o600]))
        let ks = "--keystore \(dir)/ks --keystore-pass-file \(dir)/pass --kdf interactive"
        let phrase = Shell.lines([["mnemonic": Self.about]])
        let hash = String(repeating: "ab", count: 32)

        assertStamped(try Shell.run("mnemonic generate --count 2"), ["mnemonic", "mnemonic"], "generate")
        assertStamped(
            try Shell.run("mnemonic validate", stdin: phrase + Shell.lines([["mnemonic": "bad"]])), ["mnemonic", "error"], "validate")
        assertStamped(try Shell.run("mnemonic to-seed", stdin: phrase), ["seed"], "to-seed")
        assertStamped(try Shell.run("mnemonic to-entropy", stdin: phrase), ["entropy"], "to-entropy")
        assertStamped(
            try Shell.run("mnemonic from-entropy --words 12", stdin: Shell.lines([["entropy": String(repeating: "7f", count: 16)]])),
            ["mnemonic"], "from-entropy")
        assertStamped(try Shell.run("derive --purpose 84 --count 2", stdin: phrase), ["address", "address"], "derive")
        assertStamped(try Shell.run("derive account --purpose 84", stdin: phrase), ["account"], "account")
        assertStamped(
            try Shell.run("derive --coin xmr", stdin: Shell.lines([["seed": String(repeating: "01", count: 32), "scheme": "monero"]])),
            ["address"], "xmr")
        XCTAssertTrue(FileManager.default.createFile(atPath: "\(dir)/used.txt", contents: Data()))
        assertStamped(try Shell.run("derive discover --purpose 84 --used \(dir)/used.txt", stdin: phrase), ["discovery"], "discover")
        let signed = try Shell.run("sign-hash --path m/44h/60h/0h/0/0", stdin: Shell.lines([["mnemonic": Self.about, "hash": hash]]))
        assertStamped(signed, ["signature"], "sign")
        assertStamped(try Shell.run("sign-hash verify", stdin: signed.stdout), ["verification"], "verify")
        assertStamped(try Shell.run("sign-hash recover", stdin: signed.stdout), ["recovery"], "recover")
        let tx: [String: Any] = ["mnemonic": Self.about, "eth_tx": ["chainId": 1, "nonce": 0, "gas": 21000, "gasPrice": 1]]
        assertStamped(
            try Shell.run("sign-tx --path m/44h/60h/0h/0/0", stdin: Shell.lines([tx, ["mnemonic": Self.about, "message": "m"]])),
            ["eth_tx_summary", "eth_tx", "message_signature"], "sign-tx")
        assertStamped(try Shell.run("keystore add w \(ks)", stdin: phrase), ["entry"], "add")
        assertStamped(try Shell.run("keystore list \(ks)"), ["entry"], "list")
        assertStamped(try Shell.run("keystore export w \(ks)"), ["key"], "export")
        assertStamped(try Shell.run("keystore birthday w btc=1 \(ks)"), ["entry"], "birthday")
        assertStamped(try Shell.run("keystore destroy w --yes \(ks)"), ["destroyed"], "destroy")
        let fixture = TestPaths.fixture("monero-regtest").path
        let keys = (try TestPaths.json(TestPaths.fixture("monero-regtest/expected.json")) as! [String: Any])["keys"] as! [String: Any]
        let scan = try Shell.run(
            "scan-blocks --blocks \(fixture)/blocks.jsonl --txs \(fixture)/txs.jsonl --state-dir \(dir)/scan --lookahead 3,20 --birthday 0",
            stdin: Shell.lines([["view_key": keys["private_view_key"]!, "address": keys["primary_address"]!]]))
        assertStamped(scan, Array(repeating: "received", count: 12) + ["pending", "balance"], "scan-blocks")
    }

    /// From an account record (derive account), an address record keeps the user's own fields
    /// and gets the address's: no xpub, descriptor or fingerprint of the account.
    func testAddressRecordsFromAnAccountRecordAreTheAddresses() throws {
        let r = try Shell.run(
            "set -o pipefail; derive account --purpose 84 | derive --purpose 84",
            stdin: Shell.lines([["id": "w1", "label": "savings", "mnemonic": Self.about]]))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.records.count, 1)
        let record = try XCTUnwrap(r.records.first)
        XCTAssertEqual(Set(record.keys), ["type", "v", "id", "label", "coin", "network", "script", "path", "address", "public_key"])
        XCTAssertEqual(record["path"] as? String, "m/84'/0'/0'/0/0")
        XCTAssertEqual(record["address"] as? String, "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu")
        XCTAssertEqual(record["public_key"] as? String, "0330d54fd0dd420a6e5f8d3624f5f3482cae350f79d5f0753bf5beef9c2d91af3c")
        XCTAssertEqual(record["id"] as? String, "w1")
        XCTAssertEqual(record["label"] as? String, "savings")
        XCTAssertLessThan(r.lines[0].utf8.count, 300)
    }
}
