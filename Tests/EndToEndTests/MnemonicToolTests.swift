import Foundation
import SatchelTestSupport
import XCTest

/// The built `mnemonic` executable, in pipelines, as a user runs it.
final class MnemonicToolTests: XCTestCase {
    let about = TestPhrase.abandonAbout

    /// A throwaway directory for secret files, removed after the test.
    private func tempDir() throws -> URL {
        let dir = URL(fileURLWithPath: try temporaryDirectory("e2e"))
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        return dir
    }

    private func secretFile(_ text: String, mode: Int = 0o600) throws -> String {
        let url = try tempDir().appendingPathComponent("secret")
        try Data(text.utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
        return url.path
    }

    /// Every official BIP39 vector through the executable: entropy → phrase, phrase → entropy,
    /// phrase + passphrase (from a file) → seed; byte for byte.
    func testAllTrezorVectorsThroughTheTool() throws {
        let file = try TestPaths.json(TestPaths.vector("bip39-trezor.json")) as! [String: Any]
        let vectors = file["vectors"] as! [String: [[String: String]]]
        var input = [[String: Any]]()
        var expected = [[String: String]]()
        for language in file["official_bip39_languages"] as! [String] {
            for v in vectors[language]! {
                input.append(["entropy": v["entropy"]!, "language": language])
                expected.append(v)
            }
        }
        let passFile = try secretFile(file["passphrase"] as! String + "\n")
        // from-entropy takes --language per run, so group by language through the record's own field: run per language.
        var made = [String]()
        for language in file["official_bip39_languages"] as! [String] {
            let subset = input.filter { $0["language"] as! String == language }.map { ["entropy": $0["entropy"]!] }
            let r = try Shell.run("mnemonic from-entropy --language \(language)", stdin: Shell.lines(subset))
            XCTAssertEqual(r.status, 0, r.stderr)
            made += r.records.map { $0["mnemonic"] as! String }
        }
        XCTAssertEqual(made.count, 240)
        for (phrase, v) in zip(made, expected) {
            XCTAssertEqual(Array(phrase.utf8), Array(v["mnemonic"]!.utf8))
        }
        let phrases = expected.map { ["mnemonic": $0["mnemonic"]!] }
        let seeds = try Shell.run("mnemonic to-seed --passphrase-file \(passFile)", stdin: Shell.lines(phrases))
        XCTAssertEqual(seeds.status, 0, seeds.stderr)
        XCTAssertEqual(seeds.records.map { $0["seed"] as? String }, expected.map { $0["seed"] })
        let entropies = try Shell.run("mnemonic to-entropy", stdin: Shell.lines(phrases))
        XCTAssertEqual(entropies.status, 0, entropies.stderr)
        XCTAssertEqual(entropies.records.map { $0["entropy"] as? String }, expected.map { $0["entropy"] })
    }

    func testMoneroSeedsThroughTheTool() throws {
        let doc = try TestPaths.json(TestPaths.fixture("monero-regtest/expected.json")) as! [String: Any]
        let keys = doc["keys"] as! [String: Any]
        let r = try Shell.run("mnemonic validate | mnemonic to-seed", stdin: Shell.lines([["mnemonic": keys["mnemonic"]!]]))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.records.first?["scheme"] as? String, "monero")
        XCTAssertEqual(r.records.first?["seed"] as? String, keys["private_spend_key"] as? String)
        let back = try Shell.run("mnemonic from-entropy --scheme monero", stdin: Shell.lines([["entropy": keys["private_spend_key"]!]]))
        XCTAssertEqual(back.status, 0, back.stderr)
        XCTAssertEqual(back.records.first?["mnemonic"] as? String, keys["mnemonic"] as? String)
    }

    /// Garbage, empty lines, invalid UTF-8, a 1 MB line and a 2 MB line between good records:
    /// each bad line is one error record with its line number, exit 65, the good ones go through.
    func testBadInputIsReportedAndTheRestProcessed() throws {
        var input = Data()
        func add(_ s: String) { input.append(Data(s.utf8)); input.append(0x0A) }
        add(#"{"id":1,"mnemonic":"\#(about)"}"#)  // 1 ok
        add("this is not json")  // 2: a typed phrase, one unknown word
        add("")  // 3
        input.append(contentsOf: [0x7B, 0x22, 0x6D, 0x22, 0x3A, 0x22, 0xFF, 0xFE, 0x22, 0x7D, 0x0A])  // 4 bad UTF-8
        add(#"{"mnemonic":""# + String(repeating: "abandon ", count: 125_000) + #""}"#)  // 5: 1 MB, too many words
        add(String(repeating: "x", count: 2_000_000))  // 6: over the line limit
        add(#"{"id":7,"mnemonic":"\#(about.replacingOccurrences(of: "about", with: "abuot"))"}"#)
        add(#"{"id":8,"mnemonic":42}"#)
        add(#"{"id":9}"#)
        add(#"[1,2]"#)
        add(#"{"id":11,"mnemonic":"\#(about)","extra":{"keep":[1,2.50,"x"]}}"#)  // 11 ok
        let r = try Shell.run("mnemonic validate", stdin: input)
        XCTAssertEqual(r.status, 65)
        let records = r.records
        XCTAssertEqual(records.count, 11, r.out.prefix(2000).description)
        let codes = records.map { $0["code"] as? String ?? "ok" }
        XCTAssertEqual(
            codes,
            [
                "ok", "mnemonic.unknown_word", "record.empty_line", "record.invalid_utf8",
                "mnemonic.invalid_word_count", "record.line_too_long", "mnemonic.unknown_word",
                "record.wrong_type", "record.missing_field", "record.invalid_json", "ok",
            ])
        for (i, record) in records.enumerated() where record["type"] as? String == "error" {
            XCTAssertEqual(record["line"] as? Int, i + 1)
        }
        XCTAssertEqual(records[1]["position"] as? Int, 2)
        XCTAssertEqual(records[6]["position"] as? Int, 12)
        XCTAssertEqual((records[6]["suggestions"] as? [String])?.first, "about")
        // Unknown fields pass through, with their exact text.
        XCTAssertTrue(r.lines[10].contains(#""extra":{"keep":[1,2.50,"x"]}"#), r.lines[10])
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 9)
    }

    /// Neither the phrase nor the passphrase appears on stderr or in an error message, even
    /// when records fail; there is no flag that takes a secret as its value.
    func testSecretsNeverReachStderrOrErrors() throws {
        let passphrase = "Tr0ub4dor&3-secret-passphrase"
        let passFile = try secretFile(passphrase)
        let wrongWord = about.replacingOccurrences(of: "about", with: "abuot")
        let badChecksum = "legal winner thank year wave sausage worth useful legal winner thank winner"
        let input = Shell.lines([
            ["mnemonic": wrongWord], ["mnemonic": badChecksum], ["mnemonic": about],
            ["mnemonic": about, "passphrase": passphrase],
        ])
        let r = try Shell.run("mnemonic to-seed --passphrase-file \(passFile)", stdin: input)
        XCTAssertEqual(r.status, 65)
        let errors = r.records.filter { $0["type"] as? String == "error" }
        XCTAssertEqual(
            errors.map { $0["code"] as? String }, ["mnemonic.unknown_word", "mnemonic.checksum_failed", "record.conflicting_fields"])
        for secret in [passphrase, "abuot", "legal winner", "abandon", "yellow"] {
            XCTAssertFalse(r.stderr.contains(secret), "stderr shows \(secret)")
            for e in errors { XCTAssertFalse((e["message"] as! String).contains(secret)) }
        }
        XCTAssertFalse(r.out.contains(passphrase), "the passphrase is never written out")

        // A passphrase file others can read is refused, and the refusal does not show its content.
        let open = try secretFile(passphrase, mode: 0o644)
        let refused = try Shell.run("mnemonic to-seed --passphrase-file \(open)", stdin: Shell.lines([["mnemonic": about]]))
        XCTAssertEqual(refused.status, 64)
        XCTAssertTrue(refused.stderr.contains("chmod 600"))
        XCTAssertFalse(refused.stderr.contains(passphrase))
        XCTAssertEqual(refused.out, "")

        // No argv channel for secrets exists.
        for flag in ["--passphrase", "--mnemonic", "--seed", "--entropy"] {
            let r = try Shell.run("mnemonic to-seed \(flag) x", stdin: Data())
            XCTAssertEqual(r.status, 64, flag)
        }
    }

    func testPassphraseChannelsAgree() throws {
        let dir = try tempDir()
        let file = dir.appendingPathComponent("p")
        try Data("TREZOR\n".utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        let input = Shell.lines([["mnemonic": about]])
        let expected =
            "c55257c360c07c72029aebc1b53c05ed0362ada38ead3e3e9efa3708e53495531f09a6987599d18264c1e1c92f2cf141630c7a3c4ab7c81b2f001698e7463b04"
        let viaFile = try Shell.run("mnemonic to-seed --passphrase-file \(file.path)", stdin: input)
        let viaFD = try Shell.run("mnemonic to-seed --passphrase-fd 3 3<\(file.path)", stdin: input)
        let viaPipe = try Shell.run("mnemonic to-seed --passphrase-fd 3 3< <(printf TREZOR)", stdin: input)
        let viaRecord = try Shell.run("mnemonic to-seed", stdin: Shell.lines([["mnemonic": about, "passphrase": "TREZOR"]]))
        for r in [viaFile, viaFD, viaPipe, viaRecord] {
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(r.records.first?["seed"] as? String, expected)
        }
        // Without a terminal, a prompt is refused rather than read from the record stream.
        let noTTY = try Shell.run("setsid -w mnemonic to-seed --passphrase-prompt", stdin: input)
        XCTAssertEqual(noTTY.status, 64, noTTY.stderr)
        XCTAssertTrue(noTTY.stderr.contains("secret.no_terminal"))
        let both = try Shell.run("mnemonic to-seed --passphrase-fd 3 --passphrase-prompt 3</dev/null", stdin: input)
        XCTAssertEqual(both.status, 64)
    }

    /// The prompt on a real pseudo-terminal (script(1)): typed twice, never echoed; a mismatch
    /// is refused; Ctrl-C leaves the terminal with echo on.
    func testPassphrasePromptOnATerminal() throws {
        let dir = try tempDir()
        let records = dir.appendingPathComponent("in.jsonl")
        try Shell.lines([["mnemonic": about]]).write(to: records)
        func onTerminal(_ keys: [String], _ command: String) throws -> Shell.Result {
            let feed = keys.map { "sleep 1; printf '\($0)'" }.joined(separator: "; ") + "; sleep 1"
            return try Shell.run("(\(feed)) | script -qec \"\(command)\" /dev/null")
        }
        let ok = try onTerminal(["TREZOR\\n", "TREZOR\\n"], "mnemonic to-seed --passphrase-prompt < \(records.path)")
        XCTAssertTrue(
            ok.out.contains(
                "c55257c360c07c72029aebc1b53c05ed0362ada38ead3e3e9efa3708e53495531f09a6987599d18264c1e1c92f2cf141630c7a3c4ab7c81b2f001698e7463b04"
            ), ok.out)
        XCTAssertFalse(ok.out.contains("TREZOR"), "the passphrase was echoed")
        let mismatch = try onTerminal(
            ["TREZOR\\n", "TREZOX\\n"], "mnemonic to-seed --passphrase-prompt < \(records.path); echo status=\\$?")
        XCTAssertTrue(mismatch.out.contains("status=65"), mismatch.out + "/" + mismatch.stderr)
        XCTAssertFalse(mismatch.out.contains("TREZO"))
        let interrupted = try onTerminal(
            ["\\003"], "trap '' INT; mnemonic to-seed --passphrase-prompt < \(records.path); echo status=\\$?; stty -a")
        XCTAssertTrue(interrupted.out.contains("status=130"), interrupted.out)
        XCTAssertTrue(interrupted.out.split(whereSeparator: { $0 == " " || $0 == ";" || $0.isNewline }).contains("echo"), interrupted.out)
    }

    /// 10,000 phrases stream through generate | validate | to-entropy.
    func testTenThousandPhrasesStream() throws {
        let r = try Shell.run(
            "set -o pipefail; mnemonic generate --words 12 --count 10000 | mnemonic validate | mnemonic to-entropy | grep -c '\"entropy\":\"[0-9a-f]\\{32\\}\"'"
        )
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.out, "10000\n")
    }

    /// Each record is written as soon as it is made: a reader gets line 1 before line 2 is sent.
    func testOutputIsFlushedPerRecord() throws {
        let process = Process()
        process.executableURL = TestPaths.binDir.appendingPathComponent("mnemonic")
        process.arguments = ["validate"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data((#"{"mnemonic":"\#(about)"}"# + "\n").utf8))
        var received = Data()
        let deadline = Date().addingTimeInterval(20)
        while !received.contains(0x0A) && Date() < deadline {
            received.append(output.fileHandleForReading.availableData)
        }
        XCTAssertTrue(String(decoding: received, as: UTF8.self).contains(#""valid":true"#))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
    }

    func testGenerateOptionsAndLanguages() throws {
        // One run each, each status checked (an && chain stops silently at its first failure).
        var records = [[String: Any]]()
        for line in [
            "mnemonic generate --language japanese --words 15", "mnemonic generate --scheme monero",
            "set -o pipefail; mnemonic generate --language korean --words 12 | mnemonic validate",
        ] {
            let r = try Shell.run(line)
            XCTAssertEqual(r.status, 0, line + r.stderr)
            XCTAssertEqual(r.records.count, 1, line)
            records += r.records
        }
        XCTAssertEqual(records.count, 3)
        XCTAssertEqual(records[2]["valid"] as? Bool, true)
        XCTAssertEqual((records[0]["mnemonic"] as! String).split(separator: "\u{3000}").count, 15)
        XCTAssertEqual(records[1]["scheme"] as? String, "monero")
        XCTAssertEqual((records[1]["mnemonic"] as! String).split(separator: " ").count, 25)
        XCTAssertEqual(records[2]["language"] as? String, "korean")
        for bad in [
            "generate --words 13", "generate --language klingon", "generate --scheme monero --words 24",
            "generate --scheme monero --language french", "generate --count 0", "nope",
        ] {
            XCTAssertEqual(try Shell.run("mnemonic \(bad)").status, 64, bad)
        }
    }

    func testExitStatusForMissingInputFile() throws {
        let r = try Shell.run("mnemonic validate /nonexistent/file.jsonl")
        XCTAssertEqual(r.status, 66)
        XCTAssertEqual(r.out, "")
        XCTAssertTrue(r.stderr.contains("cannot open /nonexistent/file.jsonl"))
    }

    func testErrorRecordsFromUpstreamPassThrough() throws {
        let input = Shell.lines([["mnemonic": "nonsense words"], ["mnemonic": about]])
        let r = try Shell.run("mnemonic validate | mnemonic to-seed; echo \"status ${PIPESTATUS[0]} ${PIPESTATUS[1]}\"", stdin: input)
        XCTAssertTrue(r.out.hasSuffix("status 65 0\n"), r.out)
        XCTAssertEqual(r.records.first?["line"] as? Int, 1)
        XCTAssertEqual(r.records.first?["code"] as? String, "mnemonic.unknown_word")
    }

    func testHelpAndManPage() throws {
        for sub in ["", "generate", "validate", "to-seed", "to-entropy", "from-entropy"] {
            let r = try Shell.run("mnemonic \(sub) --help")
            XCTAssertEqual(r.status, 0, sub)
            XCTAssertTrue(r.out.contains("USAGE: mnemonic"), sub)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: TestPaths.packageRoot.appendingPathComponent("man/mnemonic.1").path))
    }
}

/// Every script in examples/ runs, with the built tools on PATH; where examples/expected has
/// its output, the output matches.
final class ExampleScriptTests: XCTestCase {
    func testEveryExampleRuns() throws {
        let dir = TestPaths.packageRoot.appendingPathComponent("examples")
        let scripts = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".sh") }.sorted()
        XCTAssertGreaterThanOrEqual(scripts.count, 4)
        for script in scripts {
            let r = try Shell.run("examples/\(script)")
            XCTAssertEqual(r.status, 0, "\(script): \(r.stderr)")
            XCTAssertFalse(r.out.isEmpty, script)
            let expected = dir.appendingPathComponent("expected/" + script.replacingOccurrences(of: ".sh", with: ".out"))
            if let want = try? String(contentsOf: expected, encoding: .utf8) {
                XCTAssertEqual(r.out, want, script)
            }
        }
    }
}
