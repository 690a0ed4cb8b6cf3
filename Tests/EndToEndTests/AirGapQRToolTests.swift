import Foundation
import SatchelTestSupport
import XCTest

/// The QR transports through the built tools: derive's account URs, and sign-tx reading UR and
/// BBQr parts as zbarimg prints them, answering in kind, its frames read back from PNG images
/// by Debian's zbarimg; the independent codec (scripts/qr-oracle.py) makes and checks parts.
/// The signer runs in a network namespace without network, as offline tests do.
final class AirGapQRToolTests: XCTestCase {
    private var dir: URL!
    private var roles: [String: Any] = [:]

    override func setUpWithError() throws {
        dir = URL(fileURLWithPath: try temporaryDirectory("qr"))
        roles = try TestPaths.json(TestPaths.projectFixture("psbt/bip174-roles.json")) as! [String: Any]
        let key = dir.appendingPathComponent("tprv.json")
        try Shell.lines([["extended_key": roles["master_tprv"] as! String]]).write(to: key)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key.path)
        try Data(base64Encoded: roles["updated_with_sighash_all"] as! String)!.write(to: dir.appendingPathComponent("unsigned.psbt"))
    }

    /// BIP174's example, signed by its master key: the key, the network and the sighash rule.
    private let signer = "unshare --net sign-tx --network test --allow-sighash --key-file tprv.json"

    private func run(_ command: String, stdin: Data = Data()) throws -> Shell.Result {
        try Shell.run(command, stdin: stdin, cwd: dir)
    }

    private func oracle(_ args: String, _ input: String) throws -> String {
        let r = try Shell.run("python3 scripts/qr-oracle.py \(args)", stdin: Data(input.utf8))
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.out.trimmingCharacters(in: .newlines)
    }

    /// What the same key makes of the same PSBT given as a record: the reference answer.
    private func signedAsRecord() throws -> String {
        let r = try run(signer, stdin: Shell.lines([["psbt": roles["updated_with_sighash_all"] as! String]]))
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.records.last?["psbt"] as? String ?? ""
    }

    /// The unsigned PSBT as the CBOR of a ur:crypto-psbt (a byte string).
    private func psbtCBOR(_ base64: String) -> String {
        let bytes = Data(base64Encoded: base64)!
        let head = bytes.count < 256 ? String(format: "58%02x", bytes.count) : String(format: "59%04x", bytes.count)
        return head + bytes.map { String(format: "%02x", $0) }.joined()
    }

    func testDeriveAccountURs() throws {
        let registry = try TestPaths.json(TestPaths.vector("ur/registry.json")) as! [String: Any]
        let account = (registry["crypto_account"] as! [[String: Any]])[0]
        let record = Shell.lines([["mnemonic": account["mnemonic"] as! String]])
        // BCR-2020-015's account, byte for byte, from its phrase.
        let r = try run("unshare --net derive account --ur crypto-account", stdin: record)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.records.first?["ur"] as? String, account["ur"] as? String)
        // MetaMask's pairing: m/44'/60'/0' as crypto-hdkey, drawn as a PNG that zbarimg reads back.
        let eth = try run("unshare --net derive account --coin eth --ur crypto-hdkey --qr-dir qr", stdin: record)
        XCTAssertEqual(eth.status, 0, eth.stderr)
        let ur = try XCTUnwrap(eth.records.first?["ur"] as? String)
        XCTAssertTrue(ur.hasPrefix("ur:crypto-hdkey/"), ur)
        let file = try XCTUnwrap(eth.records.first?["qr_file"] as? String)
        XCTAssertEqual(file, "qr/ur-\(eth.records.first?["fingerprint"] as! String).png")
        let scanned = try run("zbarimg --raw -q \(file)")
        XCTAssertEqual(scanned.status, 0, scanned.stderr)
        XCTAssertEqual(scanned.out, ur.uppercased() + "\n")
        XCTAssertEqual(try oracle("ur-decode", scanned.out).split(separator: " ").first, "crypto-hdkey")
        // Not for a Monero key, nor without --ur.
        XCTAssertEqual(try run("derive account --coin xmr --ur crypto-hdkey", stdin: record).status, 65)
        XCTAssertEqual(try run("derive account --qr", stdin: record).status, 64)
    }

    /// Unsigned PSBT → UR frames (sign-tx --convert) → PNG → zbarimg → sign-tx → signed frames →
    /// PNG → zbarimg → sign-tx --convert → the PSBT the same key signs as a record.
    func testURRoundTripThroughImages() throws {
        let expected = try signedAsRecord()
        let out = try run("sign-tx --convert --in unsigned.psbt --qr-transport ur --qr-fragment 100 --qr-dir unsigned")
        XCTAssertEqual(out.status, 0, out.stderr)
        let parts = out.records.filter { $0["type"] as? String == "qr_part" }
        XCTAssertEqual(parts.count, 10)
        XCTAssertEqual(parts.map { $0["index"] as? Int }, Array(1...10))
        XCTAssertEqual(Set(parts.map { $0["ur_type"] as? String }), ["crypto-psbt"])
        let signed = try run("zbarimg --raw -q unsigned/*.png | \(signer) --qr-fragment 100 --qr-dir signed")
        XCTAssertEqual(signed.status, 0, signed.stderr)
        XCTAssertEqual(signed.records.map { $0["type"] as! String }, ["psbt_summary", "psbt"] + Array(repeating: "qr_part", count: 14))
        XCTAssertEqual(signed.records[1]["psbt"] as? String, expected)
        XCTAssertTrue(signed.stderr.contains("sign-tx: ur:crypto-psbt complete\n"), signed.stderr)
        let back = try run("zbarimg --raw -q signed/*.png | sign-tx --convert")
        XCTAssertEqual(back.status, 0, back.stderr)
        XCTAssertEqual(back.records.count, 1)
        XCTAssertEqual(back.records.first?["psbt"] as? String, expected)
        // The independent decoder agrees.
        let texts = signed.records.compactMap { $0["text"] as? String }.joined(separator: "\n")
        XCTAssertEqual(try oracle("ur-decode", texts), "crypto-psbt " + psbtCBOR(expected).lowercased())
    }

    /// Parts as a camera delivers them: out of order, twice, one misread (skipped with a warning),
    /// one of another message (an error; the PSBT in progress is still signed), and the
    /// animation going on after the last part needed.
    func testCameraStream() throws {
        let expected = try signedAsRecord()
        let cbor = psbtCBOR(roles["updated_with_sighash_all"] as! String)
        var texts = try oracle("ur-encode crypto-psbt 60 40", cbor).split(separator: "\n").map(String.init)
        XCTAssertEqual(texts.count, 40)
        texts = Array(texts[5...]).reversed() + texts.suffix(3)
        var misread = Array(texts[2])
        misread[misread.count - 10] = misread[misread.count - 10] == "a" ? "e" : "a"
        texts.insert(String(misread), at: 1)
        let other = try oracle("ur-encode crypto-psbt 60 3", "5901f4" + String(repeating: "ab", count: 500))
        texts.insert(String(other.split(separator: "\n")[1]), at: 4)
        let r = try run(signer, stdin: Data((texts.joined(separator: "\n") + "\n").utf8))
        XCTAssertEqual(r.status, 65, r.stderr)
        let types = r.records.map { $0["type"] as! String }
        XCTAssertEqual(types.filter { $0 == "error" }.count, 1)
        XCTAssertEqual(r.records.first { $0["type"] as? String == "error" }?["code"] as? String, "ur.other_message")
        XCTAssertEqual(r.records.first { $0["type"] as? String == "psbt" }?["psbt"] as? String, expected)
        XCTAssertTrue(r.stderr.contains("sign-tx: warning: skipped a misread QR part"), r.stderr)
        XCTAssertTrue(r.stderr.contains("a part of a UR already signed, skipped"), r.stderr)
    }

    /// BBQr in, BBQr out: Coinkite's Z encoding from the independent codec, the answer as bare
    /// lines for a display program; a set with a part missing names it.
    func testBBQr() throws {
        let expected = try signedAsRecord()
        let hex = Data(base64Encoded: roles["updated_with_sighash_all"] as! String)!.map { String(format: "%02x", $0) }.joined()
        let parts = try oracle("bbqr-split P Z 120", hex).split(separator: "\n").map(String.init)
        XCTAssertEqual(parts.count, 10)
        let r = try run("\(signer) --qr-lines", stdin: Data((parts.reversed().joined(separator: "\n") + "\n").utf8))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.lines.allSatisfy { $0.hasPrefix("B$ZP") }, r.out)
        let joined = try oracle("bbqr-join", r.out)
        XCTAssertEqual(joined, "P " + Data(base64Encoded: expected)!.map { String(format: "%02x", $0) }.joined())
        // The records went to stderr.
        XCTAssertTrue(r.stderr.contains("\"type\":\"psbt_summary\""), r.stderr)

        let missing = try run(
            signer, stdin: Data((parts.enumerated().filter { $0.offset != 2 }.map(\.element).joined(separator: "\n") + "\n").utf8))
        XCTAssertEqual(missing.status, 65)
        XCTAssertTrue(
            missing.stderr.contains("ur.incomplete: a BBQr set of 10 parts lacks part(s) 3: nothing of it was signed"), missing.stderr)
        XCTAssertFalse(missing.out.contains("\"type\":\"psbt\""))
    }

    /// --qr: frames cycle on the terminal — past the fragments, into fountain mixes — until a
    /// key is pressed; the part records still go to stdout.
    func testAnimatedTerminal() throws {
        let (shown, status) = try Terminal.run(
            "cd \(dir.path) && sign-tx --convert --in unsigned.psbt --qr-transport ur --qr-fragment 60 --qr --qr-fps 20 > out.jsonl",
            waitFor: "frame 20 (16 parts)", type: "q")
        XCTAssertEqual(status, 0, shown)
        XCTAssertTrue(shown.contains("frame 1 (16 parts) — press a key to stop"), shown)
        XCTAssertTrue(shown.contains("\u{1B}[H\u{1B}[2J"), "each frame clears the screen")
        XCTAssertTrue(shown.contains("▀") || shown.contains("▄") || shown.contains("█"), "a QR code in half blocks")
        let records = try String(contentsOf: dir.appendingPathComponent("out.jsonl"), encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(records.filter { $0.contains("\"type\":\"qr_part\"") }.count, 16)
    }

    /// Every case of the eth-account fixture as the ur:eth-sign-request a QR wallet sends (made
    /// by the independent codec: legacy and typed transactions as unsigned RLP, messages, typed
    /// data), signed in one run: each ur:eth-signature's r ‖ s ‖ v is eth-account's, and its
    /// request id comes back. Requests for another key or account, or with a transaction that
    /// could be replayed, are refused before anything is signed.
    func testEthereumSignRequests() throws {
        let fixture = TestPaths.projectFixture("ethereum/eth-account-vectors.jsonl").path
        let cases = try oracle("eth-fixture \(fixture) 73c5da0a", "").split(separator: "\n").map {
            $0.split(separator: " ").map(String.init)
        }
        XCTAssertEqual(cases.count, 71)
        let key = dir.appendingPathComponent("eth.json")
        try Shell.lines([["mnemonic": TestPhrase.abandonAbout]])
            .write(
                to: key)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key.path)
        let r = try run("unshare --net sign-tx --key-file eth.json", stdin: Data((cases.map { $0[0] }.joined(separator: "\n") + "\n").utf8))
        XCTAssertEqual(r.status, 0, r.stderr)
        let answers = r.records.filter { $0["type"] as? String == "qr_part" }
        XCTAssertEqual(answers.count, 71)
        XCTAssertTrue(answers.allSatisfy { $0["ur_type"] as? String == "eth-signature" })
        // Each transaction's and typed data's summary comes before its signature, as for records.
        XCTAssertEqual(r.records.filter { ($0["type"] as? String)?.hasSuffix("_summary") == true }.count, 35 + 13)
        let decoded = try oracle("eth-signatures", answers.map { $0["text"] as! String }.joined(separator: "\n")).split(separator: "\n")
        XCTAssertEqual(decoded.count, 71)
        for (n, (line, c)) in zip(decoded, cases).enumerated() {
            XCTAssertEqual(line.split(separator: " ").map(String.init), ["000102030405060708090a0b0c0d0e0f", c[1]], "case \(n + 1)")
        }

        let message = Data("Satchel".utf8).map { String(format: "%02x", $0) }.joined()
        for (args, why) in [
            ("3 - 44h/60h/0h/0/0 12345678 -", "another master fingerprint"),
            ("3 - 44h/60h/0h/0/0 73c5da0a 0000000000000000000000000000000000000001", "another account"),
        ] {
            let request = try oracle("eth-request \(args)", message)
            let refused = try run("unshare --net sign-tx --key-file eth.json", stdin: Data((request + "\n").utf8))
            XCTAssertEqual(refused.status, 65, why)
            XCTAssertEqual(refused.records.map { $0["type"] as? String }, ["error"], why)
        }
        // A legacy transaction without EIP-155's chain id (6 fields): replayable, refused.
        let bare = try oracle(
            "eth-request 1 - 44h/60h/0h/0/0 - -", "e9808504a817c800825208943535353535353535353535353535353535353535880de0b6b3a764000080")
        let replayable = try run("unshare --net sign-tx --key-file eth.json", stdin: Data((bare + "\n").utf8))
        XCTAssertEqual(replayable.status, 65)
        XCTAssertTrue(replayable.stderr.contains("EIP-155"), replayable.stderr)
    }

    /// Requests a signer must question (issue 56 point 6): typed data whose domain names
    /// another chain than the request, a request for the master key itself (path m, no
    /// address), and an origin that is bytes, not text — each refused by name, nothing signed;
    /// the same requests made right are signed.
    func testEthereumRequestsThatAreQuestioned() throws {
        let key = dir.appendingPathComponent("eth.json")
        try Shell.lines([["mnemonic": TestPhrase.abandonAbout]])
            .write(to: key)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key.path)
        let typed = Data(
            #"{"types":{"EIP712Domain":[{"name":"name","type":"string"},{"name":"chainId","type":"uint256"}],"Mail":[{"name":"contents","type":"string"}]},"primaryType":"Mail","domain":{"name":"Satchel","chainId":1},"message":{"contents":"hi"}}"#
                .utf8
        ).map { String(format: "%02x", $0) }.joined()
        let message = Data("Satchel".utf8).map { String(format: "%02x", $0) }.joined()
        for (args, data, refusal) in [
            ("2 137 44h/60h/0h/0/0 73c5da0a -", typed, "the request says chain 137, its typed data's domain chainId 1: not signed"),
            ("3 - m - -", message, "an eth-sign-request for the master key itself (path m): no account signs with it"),
            ("3 - 44h/60h/0h/0/0 73c5da0a - bytes:6f726967696e", message, "an eth-sign-request whose origin is not text"),
        ] {
            let request = try oracle("eth-request \(args)", data)
            let refused = try run("unshare --net sign-tx --key-file eth.json", stdin: Data((request + "\n").utf8))
            XCTAssertEqual(refused.status, 65, args)
            XCTAssertEqual(refused.records.map { $0["type"] as? String }, ["error"], args)
            XCTAssertEqual(refused.records.first?["code"] as? String, "ur.unsupported", args)
            XCTAssertEqual(refused.records.first?["message"] as? String, refusal, args)
        }
        for (args, data) in [
            ("2 1 44h/60h/0h/0/0 73c5da0a -", typed), ("3 - 44h/60h/0h/0/0 73c5da0a - text:https://app.example", message),
        ] {
            let request = try oracle("eth-request \(args)", data)
            let signed = try run("unshare --net sign-tx --key-file eth.json", stdin: Data((request + "\n").utf8))
            XCTAssertEqual(signed.status, 0, signed.stderr)
            XCTAssertEqual(signed.records.last?["ur_type"] as? String, "eth-signature", args)
        }
    }

    func testAnswerTypesAndRefusals() throws {
        let r = try run("sign-tx --convert --in unsigned.psbt --qr-transport ur --ur-type psbt --qr-lines")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.lines.allSatisfy { $0.hasPrefix("ur:psbt/") }, r.out)
        let bbqr = try run("sign-tx --convert --in unsigned.psbt --qr-transport bbqr --qr-lines")
        XCTAssertTrue(bbqr.lines.allSatisfy { $0.hasPrefix("B$ZP") || $0.hasPrefix("B$2P") }, bbqr.out)
        // ur:psbt in, crypto-psbt out unless asked.
        let signed = try run(signer, stdin: Data(r.out.utf8))
        XCTAssertEqual(signed.status, 0, signed.stderr)
        XCTAssertTrue(
            signed.records.filter { $0["type"] as? String == "qr_part" }.allSatisfy { ($0["text"] as! String).hasPrefix("ur:crypto-psbt/") }
        )
        XCTAssertEqual(try run("sign-tx --convert --key-file tprv.json --in unsigned.psbt").status, 64)
        XCTAssertEqual(try run("sign-tx --qr --qr-lines --in unsigned.psbt").status, 64)
        XCTAssertEqual(try run("sign-tx --convert --qr-fragment 5 --in unsigned.psbt").status, 64)
        // A UR of another kind is named, not signed.
        let seed = try run(signer, stdin: Data("ur:seed/oyadgdstaslplabghydrpfmkbggufgludprfgmamdpwmox\n".utf8))
        XCTAssertEqual(seed.status, 65)
        XCTAssertEqual(seed.records.first?["code"] as? String, "ur.unsupported")
    }
}
