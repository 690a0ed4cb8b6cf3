import Foundation
import SatchelTestSupport
import XCTest

/// A phrase as a person types or pastes it: a line that is not JSON is a phrase, in every tool
/// that reads phrases; on a terminal with no input the tool asks for it without echo.
final class PhraseInputTests: XCTestCase {
    static let about = TestPhrase.abandonAbout
    static let bip84 = "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"
    var dir = ""

    override func setUpWithError() throws {
        dir = try temporaryDirectory("phrase")
    }

    func testBarePhraseLines() throws {
        let pasted = Data(("  " + Self.about + " \r\n").utf8)
        let derived = try Shell.run("derive --purpose 84", stdin: pasted)
        XCTAssertEqual(derived.status, 0, derived.stderr)
        XCTAssertEqual(derived.records.map { $0["address"] as? String }, [Self.bip84])
        XCTAssertFalse(derived.out.contains("abandon"))
        let validated = try Shell.run("mnemonic validate", stdin: pasted)
        XCTAssertEqual(validated.status, 0, validated.stderr)
        XCTAssertEqual(validated.records.first?["valid"] as? Bool, true)
        let seed = try Shell.run("mnemonic to-seed", stdin: pasted)
        XCTAssertEqual(
            seed.records.first?["seed"] as? String,
            "5eb00bbddcf069084889a8ab9155568165f5c453ccb85e70811aaed6f6da5fc19a5ac40b389cd370d086206dec8aa6c43daea6690f20ad3d8d48b2d2ce9e38e4"
        )
        // JSON lines stay JSON: a broken object is still a JSON error, not a phrase.
        let broken = try Shell.run("mnemonic validate", stdin: Data("{\"mnemonic\":\n".utf8))
        XCTAssertEqual(broken.records.map { $0["code"] as? String }, ["record.invalid_json"])

        // keystore add and a --key-file take a bare phrase too.
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: "\(dir)/pass", contents: Data("a long test passphrase\n".utf8), attributes: [.posixPermissions: 0o600]))
        let stored = try Shell.run("keystore add w --keystore \(dir)/ks --keystore-pass-file \(dir)/pass --kdf interactive", stdin: pasted)
        XCTAssertEqual(stored.status, 0, stored.stderr)
        XCTAssertEqual(stored.records.first?["kind"] as? String, "bip39-mnemonic")
        let fromStore = try Shell.run("derive --wallet w --keystore \(dir)/ks --keystore-pass-file \(dir)/pass --purpose 84")
        XCTAssertEqual(fromStore.records.map { $0["address"] as? String }, [Self.bip84], fromStore.stderr)
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: "\(dir)/key", contents: Data((Self.about + "\n").utf8), attributes: [.posixPermissions: 0o600]))
        let signed = try Shell.run(
            "sign-hash --key-file \(dir)/key --path m/84h/0h/0h/0/0", stdin: Shell.lines([["hash": String(repeating: "11", count: 32)]]))
        XCTAssertEqual(signed.status, 0, signed.stderr)
        XCTAssertEqual(signed.records.first?["public_key"] as? String, "0330d54fd0dd420a6e5f8d3624f5f3482cae350f79d5f0753bf5beef9c2d91af3c")
    }

    /// On a pseudo-terminal (script(1)) with nothing piped in: a prompt, the phrase typed and
    /// never echoed, the addresses out.
    func testPhraseTypedOnATerminal() throws {
        // Typed once the prompt shows (the terminal's echo is off by then), as a person types.
        let (shown, status) = try Terminal.run(
            "derive --purpose 84 --count 2 > \(dir)/out.jsonl", waitFor: "Seed phrase (not shown): ", type: Self.about)
        XCTAssertEqual(status, 0, shown)
        XCTAssertFalse(shown.contains("abandon"), "the phrase was echoed: \(shown)")
        let records = try TestPaths.jsonLines(URL(fileURLWithPath: "\(dir)/out.jsonl"))
        XCTAssertEqual(records.first?["address"] as? String, Self.bip84)
        XCTAssertEqual(records.count, 2)
        // sign-hash asks for the phrase, then reads hash records typed on the terminal.
        let hash = String(repeating: "ab", count: 32)
        let signing = try Terminal.run(
            "sign-hash --path m/44h/60h/0h/0/0 > \(dir)/sig.jsonl", waitFor: "(not shown): ", type: Self.about,
            then: [#"{"hash":"\#(hash)"}"#], endInput: true)
        XCTAssertEqual(signing.status, 0, signing.shown)
        XCTAssertFalse(signing.shown.contains("abandon"), signing.shown)
        let verified = try Shell.run("sign-hash verify --address 0x9858EfFD232B4033E47d90003D41EC34EcaEda94 < \(dir)/sig.jsonl")
        XCTAssertEqual(verified.status, 0, verified.stderr + verified.out)
        XCTAssertEqual(verified.records.map { $0["valid"] as? Bool }, [true])
    }
}
