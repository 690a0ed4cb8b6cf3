import Foundation
import SatchelTestSupport
import XCTest

/// Messages that say what to do: the exact option, a missing entry before any prompt, weak
/// entropy said loudly, an output directory made when missing.
final class MessagesTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = try temporaryDirectory("msg")
    }

    func testKeyStoreAndCardNamesAreCheckedBeforeAnyPrompt() throws {
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: "\(dir)/pass", contents: Data("a long test passphrase\n".utf8), attributes: [.posixPermissions: 0o600]))
        let add = try Shell.run(
            "keystore add w --keystore \(dir)/ks --keystore-pass-file \(dir)/pass --kdf interactive",
            stdin: Shell.lines([["seed": "000102030405060708090a0b0c0d0e0f"]]))
        XCTAssertEqual(add.status, 0, add.stderr)
        // No terminal (setsid) and no passphrase option: an unknown name is said first (66),
        // not "cannot prompt".
        for command in [
            "keystore export nosuch", "keystore passwd nosuch", "keystore birthday nosuch btc=1", "keystore destroy nosuch",
            "derive --wallet nosuch", "sign-hash --wallet nosuch", "sign-tx --wallet nosuch", "card-info verify-pin --pairing nosuch",
        ] {
            let r = try Shell.run("setsid -w \(command) --keystore \(dir)/ks < /dev/null")
            XCTAssertEqual(r.status, 66, command + ": " + r.stderr)
            XCTAssertTrue(r.stderr.contains("keystore.unknown_entry"), command + ": " + r.stderr)
        }
        // destroy without a terminal names the option that skips the question; nothing is lost.
        let destroy = try Shell.run("setsid -w keystore destroy w --keystore \(dir)/ks < /dev/null")
        XCTAssertEqual(destroy.status, 64)
        XCTAssertTrue(destroy.stderr.contains("add --yes"), destroy.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: "\(dir)/ks/w.key"))
    }

    func testNetworkNamesAndQRDirectory() throws {
        let seed = Shell.lines([["seed": "000102030405060708090a0b0c0d0e0f"]])
        // One vocabulary in every tool: testnet and mainnet are test and main.
        let testnet = try Shell.run("derive --coin btc --network testnet", stdin: seed)
        let test = try Shell.run("derive --coin btc --network test", stdin: seed)
        XCTAssertEqual(testnet.status, 0, testnet.stderr)
        XCTAssertEqual(test.status, 0, test.stderr)
        XCTAssertEqual(testnet.out, test.out)
        XCTAssertEqual(test.records.first?["network"] as? String, "test")
        let moneroMain = try Shell.run(
            "derive --coin xmr --network main", stdin: Shell.lines([["seed": String(repeating: "01", count: 32)]]))
        let moneroMainnet = try Shell.run(
            "derive --coin xmr --network mainnet", stdin: Shell.lines([["seed": String(repeating: "01", count: 32)]]))
        XCTAssertEqual(moneroMain.status, 0, moneroMain.stderr)
        XCTAssertEqual(moneroMain.out, moneroMainnet.out)
        let stagenet = try Shell.run("derive --coin btc --network stagenet", stdin: seed)
        XCTAssertEqual(stagenet.status, 64)
        XCTAssertEqual(
            stagenet.stderr.split(separator: "\n").first.map(String.init),
            "Error: btc has no network 'stagenet' (btc networks: main, test, signet, regtest)")
        for (command, message) in [
            ("scan-blocks --chain zcash --network stagenet", "--network must be main or test for zcash"),
            ("scan-blocks --network signet", "--network must be main, test or stagenet for monero"),
        ] {
            let r = try Shell.run(command + " < /dev/null")
            XCTAssertEqual(r.status, 64, command)
            XCTAssertEqual(r.stderr.split(separator: "\n").first.map(String.init), "Error: " + message, command)
        }
        for network in ["main", "mainnet", "test", "testnet", "stagenet"] {
            // Past --network's check: what is missing next is the wallet and the source.
            let r = try Shell.run("scan-blocks --network \(network) --birthday 0 < /dev/null")
            XCTAssertEqual(r.status, 64, network)
            XCTAssertTrue(r.stderr.hasPrefix("scan-blocks: scan.missing: 2 things are missing: no wallet"), network + r.stderr)
        }
        let made = try Shell.run("derive --purpose 84 --qr-dir \(dir)/qr/images", stdin: seed)
        XCTAssertEqual(made.status, 0, made.stderr)
        let file = try XCTUnwrap(made.records.first?["qr_file"] as? String)
        XCTAssertEqual(file, "\(dir)/qr/images/\(made.records.first!["address"] as! String).png")
        XCTAssertTrue(FileManager.default.fileExists(atPath: file))
    }

    func testWeakEntropyWarns() throws {
        let inputs: [[String: Any]] = [
            ["entropy": String(repeating: "00", count: 16)], ["entropy": String(repeating: "ff", count: 16)],
            ["dice": String(repeating: "6", count: 140)], ["coins": String(repeating: "1", count: 200)],
            ["entropy": "0c1e24e5917779d297e14d45f14e1a1a"],
        ]
        let r = try Shell.run("mnemonic from-entropy --words 12", stdin: Shell.lines(inputs))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.records.map { $0["warning"] != nil }, [true, true, true, true, false])
        XCTAssertEqual(r.stderr.components(separatedBy: "warning: weak entropy").count - 1, 4, r.stderr)
    }

    /// A Zcash .pb stream given to the Monero scanner: named, with the option, before any
    /// output (it said "not a JSON object").
    func testZcashStreamWithoutChainZcash() throws {
        let pb = TestPaths.fixture("zcash-sapling/compact_blocks.pb").path
        let r = try Shell.run(
            "scan-blocks --blocks \(pb) --state-dir \(dir)/s --birthday 0",
            stdin: Shell.lines([
                ["mnemonic": TestPhrase.abandonAbout]
            ]))
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertEqual(r.out, "")
        XCTAssertEqual(
            r.stderr,
            "scan-blocks: usage: \(pb) is not JSON Lines of Monero blocks (it starts with byte 0xcb): Zcash compact blocks (a .pb stream) are scanned with --chain zcash\n"
        )
    }

    /// A Monero block file whose blocks list transactions it does not hold, and no --txs: said
    /// before any event is written.
    func testMoneroScanWithoutTxs() throws {
        let fixture = TestPaths.fixture("monero-regtest").path
        let keys = (try TestPaths.json(TestPaths.fixture("monero-regtest/expected.json")) as! [String: Any])["keys"] as! [String: Any]
        let key = Shell.lines([["view_key": keys["private_view_key"]!, "public_spend_key": keys["public_spend_key"]!]])
        let r = try Shell.run("scan-blocks --blocks \(fixture)/blocks.jsonl --state-dir \(dir)/s --birthday 0 --progress none", stdin: key)
        XCTAssertEqual(r.status, 65, r.stderr)
        XCTAssertEqual(r.out, "", "no event before the error")
        XCTAssertTrue(r.stderr.hasPrefix("scan-blocks: scan.malformed: block "), r.stderr)
        XCTAssertTrue(
            r.stderr.hasSuffix(
                " is malformed: it lists transactions, and \(fixture)/blocks.jsonl holds no records of them: give the transaction records with --txs FILE (or mix them into the block file: cat txs blocks)\n"
            ), r.stderr)
        // The same files mixed into one stream need no --txs.
        let mixed = try Shell.run(
            "cat \(fixture)/txs.jsonl \(fixture)/blocks.jsonl > \(dir)/mixed.jsonl && scan-blocks --blocks \(dir)/mixed.jsonl --state-dir \(dir)/m --birthday 0 --progress none --lookahead 3,20",
            stdin: key)
        XCTAssertEqual(mixed.status, 0, mixed.stderr)
        XCTAssertEqual(mixed.records.last?["type"] as? String, "balance")
    }

    /// Empty input where records were expected: a warning, and exit 0 for scripts.
    func testEmptyInputWarns() throws {
        for tool in ["derive", "mnemonic validate", "sign-hash verify"] {
            let r = try Shell.run(tool, stdin: Data())
            XCTAssertEqual(r.status, 0, tool)
            XCTAssertEqual(r.out, "", tool)
            let name = tool.split(separator: " ")[0]
            XCTAssertEqual(
                r.stderr,
                "\(name): warning: no input records: stdin was empty (give records, or a phrase where one is read, on stdin or in a file)\n",
                tool)
        }
        XCTAssertTrue(FileManager.default.createFile(atPath: "\(dir)/empty.jsonl", contents: Data()))
        let file = try Shell.run("mnemonic validate \(dir)/empty.jsonl")
        XCTAssertEqual(file.status, 0)
        XCTAssertEqual(
            file.stderr,
            "mnemonic: warning: no input records: \(dir)/empty.jsonl was empty (give records, or a phrase where one is read, on stdin or in a file)\n"
        )
        // One record is enough: no warning.
        let one = try Shell.run(
            "mnemonic validate",
            stdin: Data((TestPhrase.abandonAbout + "\n").utf8))
        XCTAssertEqual(one.status, 0)
        XCTAssertEqual(one.stderr, "")
    }
}
