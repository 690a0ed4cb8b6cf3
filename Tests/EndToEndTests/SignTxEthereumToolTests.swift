import Foundation
import SatchelTestSupport
import XCTest

/// sign-tx's Ethereum records through the built tool: every case of the eth-account fixture, then
/// fresh random cases that eth-account (PyPI) signs in the same run, then the refusals.
final class SignTxEthereumToolTests: XCTestCase {
    static let phrase = TestPhrase.abandonAbout

    private func keyFile() throws -> String {
        let dir = URL(fileURLWithPath: try temporaryDirectory("signtx"))
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("key.json")
        try Shell.lines([["mnemonic": Self.phrase]]).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
        return url.path
    }

    /// Feeds each vector's case to sign-tx and holds every signed record to what eth-account
    /// made; a transaction's or typed data's summary comes first and names the same signer.
    /// sign-tx runs in a network namespace of its own, with no interface but a down loopback:
    /// an offline signer needs no network.
    private func check(_ vectors: [[String: Any]], label: String) throws {
        let key = try keyFile()
        let r = try Shell.run("unshare --net sign-tx --key-file \(key)", stdin: Shell.lines(vectors.map { $0["case"] as! [String: Any] }))
        XCTAssertEqual(r.status, 0, r.stderr)
        var records = r.records[...]
        let lines = r.lines
        for (n, v) in vectors.enumerated() {
            let c = v["case"] as! [String: Any], expect = v["expect"] as! [String: String]
            let here = "\(label) case \(n + 1): \(c)"
            if c["eth_tx"] != nil || c["typed_data"] != nil {
                let summary = records.popFirst() ?? [:]
                XCTAssertEqual(summary["type"] as? String, c["eth_tx"] != nil ? "eth_tx_summary" : "typed_data_summary", here)
                XCTAssertEqual(summary["from"] as? String, expect["from"], here)
            }
            let signed = records.popFirst() ?? [:]
            XCTAssertEqual(signed["from"] as? String, expect["from"], here)
            XCTAssertEqual(signed["v"] as? Int, 1, here)
            if c["eth_tx"] != nil {
                XCTAssertEqual(signed["type"] as? String, "eth_tx", here)
                for field in ["raw", "hash", "r", "s"] { XCTAssertEqual(signed[field] as? String, expect[field], "\(here) \(field)") }
                // v may pass 2^64 / 2 (a large chain id): read as written, not as a Double.
                XCTAssertEqual(Self.numberText("eth_v", in: lines[records.startIndex - 1]), expect["eth_v"], here)
            } else {
                XCTAssertEqual(signed["type"] as? String, c["typed_data"] != nil ? "typed_data_signature" : "message_signature", here)
                XCTAssertEqual(signed["hash"] as? String, expect["hash"], here)
                XCTAssertEqual(signed["signature"] as? String, expect["signature"], here)
            }
        }
        XCTAssertTrue(records.isEmpty, "\(label): \(records.count) records more than the cases")
        XCTAssertFalse(r.out.contains("abandon"), "the phrase must not be written out")
    }

    static func numberText(_ field: String, in line: String) -> String? {
        guard let range = line.range(of: "\"\(field)\":") else { return nil }
        return String(line[range.upperBound...].prefix { $0.isNumber })
    }

    func testTheEthAccountFixture() throws {
        let vectors = try TestPaths.jsonLines(TestPaths.projectFixture("ethereum/eth-account-vectors.jsonl"))
        XCTAssertEqual(vectors.count, 71)
        try check(vectors, label: "fixture")
    }

    /// eth-account itself, installed from PyPI into .build once, signs 150 new random cases
    /// (a seed from the clock, printed on failure); sign-tx must give the same bytes.
    func testFreshRandomCasesAgainstEthAccount() throws {
        let venv = TestPaths.packageRoot.appendingPathComponent(".build/eth-account-venv").path
        if !FileManager.default.fileExists(atPath: venv + "/bin/python") {
            let made = try Shell.run("/usr/bin/python3 -m venv \(venv) && \(venv)/bin/pip install -q eth-account==0.13.7")
            XCTAssertEqual(made.status, 0, "eth-account could not be installed from PyPI: " + made.stderr)
        }
        let seed = Int(Date().timeIntervalSince1970)
        let made = try Shell.run("\(venv)/bin/python scripts/eth-account-vectors.py --random-only --count 150 --seed \(seed)")
        XCTAssertEqual(made.status, 0, made.stderr)
        let vectors = made.records
        XCTAssertEqual(vectors.count, 150)
        try check(vectors, label: "seed \(seed)")
    }

    func testEachBadRecordIsNamedAndTheRestAreSigned() throws {
        let key = try keyFile()
        let input = Data(
            """
            {"message":"ok","path":"m/44h/60h/0h/0/0"}
            {"eth_tx":{"chainId":1,"nonce":0,"gas":21000,"gasPrice":1,"gasLimit":5},"path":"m/44h/60h/0h/0/0"}
            {"message":"a","typed_data":{},"path":"m/0"}
            {"hash":"00"}
            {"eth_tx":{"chainId":1,"nonce":0,"gas":21000,"gasPrice":1},"path":"m/44h/60h/0h/0/0","mnemonic":"\(Self.phrase)"}
            {"message":"ok"}

            """.utf8)
        let r = try Shell.run("sign-tx --key-file \(key)", stdin: input)
        XCTAssertEqual(r.status, 65, r.stderr)
        let types = r.records.map { $0["type"] as? String ?? "?" }
        XCTAssertEqual(types, ["message_signature", "error", "error", "error", "error", "error"])
        let errors = r.records.filter { $0["type"] as? String == "error" }
        XCTAssertEqual(errors.map { $0["line"] as? Int }, [2, 3, 4, 5, 6])
        XCTAssertEqual(
            errors.map { $0["code"] as? String },
            ["eth.unknown_field", "record.conflicting_fields", "record.missing_field", "record.conflicting_fields", "record.missing_field"])
        XCTAssertFalse(r.out.contains("abandon"))
        XCTAssertEqual(r.records.first?["from"] as? String, "0x9858EfFD232B4033E47d90003D41EC34EcaEda94")
    }

    /// sign-tx --confirm on a pseudo-terminal, answering `answer` to every question: the
    /// terminal's text, the exit status and the output records' types.
    func confirmed(
        _ record: String, key: String, options: String = "", answer: String
    ) throws -> (terminal: String, status: Int32, types: [String?]) {
        let dir = URL(fileURLWithPath: try temporaryDirectory("confirm"))
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        try (record + "\n").write(to: dir.appendingPathComponent("in.jsonl"), atomically: true, encoding: .utf8)
        let (shown, status) = try Terminal.run(
            "sign-tx --confirm --key-file \(key) \(options) < \(dir.path)/in.jsonl > \(dir.path)/out.jsonl",
            waitFor: "[y/N]", type: answer)
        let out = try String(contentsOf: dir.appendingPathComponent("out.jsonl"), encoding: .utf8)
        let types = out.split(separator: "\n").map {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["type"] as? String
        }
        return (shown, status, types)
    }

    /// --confirm asks on the terminal: "n" signs nothing (an error record, exit 65), "y" signs;
    /// without a terminal it is a usage error before anything is read.
    func testConfirmAsksOnTheTerminal() throws {
        let key = try keyFile()
        let tx =
            #"{"eth_tx":{"chainId":1,"nonce":0,"gas":21000,"gasPrice":1,"to":"0xF0109fC8DF283027b6285cc889F5aA624EaC1F55","value":"5"},"path":"m/44h/60h/0h/0/0"}"#
        let noTTY = try Shell.run("setsid sign-tx --confirm --key-file \(key) < /dev/null", stdin: Data())
        XCTAssertEqual(noTTY.status, 64, noTTY.stderr)
        for (answer, status, lastType) in [("n", 65, "error"), ("yes", 0, "eth_tx")] {
            let r = try confirmed(tx, key: key, answer: answer)
            XCTAssertEqual(r.status, Int32(status), r.terminal)
            XCTAssertTrue(r.terminal.contains("  value_wei: 5\r\n"), r.terminal)
            XCTAssertTrue(r.terminal.contains("  to: 0xF0109fC8DF283027b6285cc889F5aA624EaC1F55\r\n"), r.terminal)
            XCTAssertEqual(r.types, ["eth_tx_summary", lastType])
        }
    }

    /// A PSBT's summary on the terminal (BIP174's example, its master key in a key file): the
    /// fee and the outputs are shown, "n" signs nothing, "y" signs.
    func testConfirmShowsAPSBTsSummary() throws {
        let roles =
            try JSONSerialization.jsonObject(with: Data(contentsOf: TestPaths.projectFixture("psbt/bip174-roles.json"))) as! [String: Any]
        let key = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-tprv-\(UUID().uuidString).json").path
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: key, contents: Data(#"{"xprv":"\#(roles["master_tprv"] as! String)"}"#.utf8),
                attributes: [.posixPermissions: 0o600]))
        addTeardownBlock { try? FileManager.default.removeItem(atPath: key) }
        let record = #"{"psbt":"\#(roles["updated_with_sighash_all"] as! String)"}"#
        for (answer, status, lastType) in [("n", 65, "error"), ("y", 0, "psbt")] {
            let r = try confirmed(record, key: key, options: "--network test", answer: answer)
            XCTAssertEqual(r.status, Int32(status), r.terminal)
            XCTAssertTrue(r.terminal.contains("  fee: 10000\r\n"), r.terminal)
            // Our key at m/0'/0'/4', no account's change chain: shown as a payment (#42).
            XCTAssertTrue(r.terminal.contains(#""address":"tb1qmpwzkuwsqc9snjvgdt4czhjsnywa5yjdzglap9","change":false"#), r.terminal)
            XCTAssertEqual(r.types, ["psbt_summary", lastType])
        }
    }

    func testHelpAndManPage() throws {
        let r = try Shell.run("sign-tx --help")
        XCTAssertEqual(r.status, 0)
        XCTAssertTrue(r.out.contains("USAGE: sign-tx"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: TestPaths.packageRoot.appendingPathComponent("man/sign-tx.1").path))
    }
}
