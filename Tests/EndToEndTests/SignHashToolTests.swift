import Foundation
import SatchelTestSupport
import XCTest

final class SignHashToolTests: XCTestCase {
    private func keyFile(_ record: [String: Any], mode: Int = 0o600) throws -> String {
        let dir = URL(fileURLWithPath: try temporaryDirectory("sign"))
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("key.json")
        try Shell.lines([record]).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
        return url.path
    }

    /// The oracle set's signatures: seed → m/44'/60'/0'/0/0 → three fixed hashes each.
    func testHDOracleSignatures() throws {
        for c in try TestPaths.jsonLines(TestPaths.fixture("hd-oracle-dev.jsonl")) {
            let signing = c["signing"] as! [String: Any]
            let expected = signing["signatures"] as! [[String: Any]]
            let key = try keyFile(["seed": c["seed"]!])
            let r = try Shell.run(
                "sign-hash --key-file \(key) --path \"\(signing["path"]!)\"",
                stdin: Shell.lines(expected.map { ["hash": $0["hash"]!] }))
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(r.records.map { $0["signature"] as? String }, expected.map { $0["signature"] as? String }, "\(c["id"]!)")
            XCTAssertEqual(r.records.map { $0["recovery_id"] as? Int }, expected.map { $0["recovery_id"] as? Int })
            XCTAssertEqual(r.records.map { $0["eth_v"] as? Int }, expected.map { $0["eth_v"] as? Int })
            XCTAssertEqual(Set(r.records.map { "\($0["type"] ?? "-") v\($0["v"] ?? "-")" }), ["signature v1"])
            XCTAssertEqual(r.records.first?["public_key"] as? String, signing["public_key"] as? String)
            XCTAssertFalse(r.out.contains(c["seed"] as! String))
            let verified = try Shell.run("sign-hash verify", stdin: Data(r.out.utf8))
            XCTAssertEqual(verified.status, 0, verified.stderr)
        }
    }

    func testRFC6979AndBIP340VectorsThroughTheTool() throws {
        let rfc = (try TestPaths.json(TestPaths.vector("rfc6979-secp256k1.json")) as! [String: Any])["vectors"] as! [[String: Any]]
        let r = try Shell.run("sign-hash", stdin: Shell.lines(rfc.map { ["hash": $0["sha256"]!, "private_key": $0["private_key"]!] }))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.records.map { $0["signature"] as? String }, rfc.map { ($0["r"] as! String) + ($0["s"] as! String) })
        XCTAssertEqual(r.records.map { $0["der"] as? String }, rfc.map { $0["der"] as? String })
        XCTAssertFalse(r.out.contains("private_key"))

        let bip340 = ((try TestPaths.json(TestPaths.vector("bip340.json")) as! [String: Any])["vectors"] as! [[String: Any]])
            .filter { !($0["secret_key"] as! String).isEmpty && ($0["message"] as! String).count == 64 }
        let s = try Shell.run(
            "sign-hash --scheme schnorr",
            stdin: Shell.lines(
                bip340.map {
                    ["hash": $0["message"]!, "private_key": $0["secret_key"]!, "aux_rand": $0["aux_rand"]!]
                }))
        XCTAssertEqual(s.status, 0, s.stderr)
        XCTAssertEqual(s.records.map { $0["signature"] as? String }, bip340.map { $0["signature"] as? String })
        XCTAssertEqual(try Shell.run("sign-hash verify", stdin: Data(s.out.utf8)).status, 0)
    }

    func testVerifyRejectsAChangedHashAndRecoverFindsTheSigner() throws {
        let key = try keyFile(["mnemonic": TestPhrase.abandonAbout])
        let hash = String(repeating: "ab", count: 32)
        let signed = try Shell.run(
            "sign-hash --key-file \(key) --path \"m/44h/60h/0h/0/0\" --chain-id 1", stdin: Shell.lines([["hash": hash]]))
        XCTAssertEqual(signed.status, 0, signed.stderr)
        let recoveryID = try XCTUnwrap(signed.records.first?["recovery_id"] as? Int, signed.out)
        XCTAssertEqual(signed.records.first?["eth_v"] as? Int, 37 + recoveryID)
        let changed = signed.out.replacingOccurrences(of: "\"hash\":\"ab", with: "\"hash\":\"ac")
        let bad = try Shell.run("sign-hash verify", stdin: Data(changed.utf8))
        XCTAssertEqual(bad.status, 65)
        XCTAssertEqual(bad.records.first?["code"] as? String, "sign.verification_failed")
        let recovered = try Shell.run("sign-hash recover", stdin: Data(signed.out.utf8))
        XCTAssertEqual(recovered.status, 0, recovered.stderr)
        XCTAssertEqual(recovered.records.first?["address"] as? String, "0x9858EfFD232B4033E47d90003D41EC34EcaEda94")
        let byAddress = try Shell.run("sign-hash verify --address 0x9858effd232b4033e47d90003d41ec34ecaeda94", stdin: Data(signed.out.utf8))
        XCTAssertEqual(byAddress.status, 0, byAddress.out)
        let wrongSigner = try Shell.run(
            "sign-hash verify --address 0x0000000000000000000000000000000000000001", stdin: Data(signed.out.utf8))
        XCTAssertEqual(wrongSigner.status, 65)
        XCTAssertEqual(wrongSigner.records.map { $0["code"] as? String }, ["sign.verification_failed"])

        // Taproot key-path signatures verify against the BIP86 address itself.
        let tr = try Shell.run(
            "sign-hash --key-file \(key) --scheme schnorr --taproot --path \"m/86h/0h/0h/0/0\" | sed 's/\"public_key\":\"[0-9a-f]*\",//'  | sign-hash verify --address bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr",
            stdin: Shell.lines([["hash": hash]]))
        XCTAssertEqual(tr.status, 0, tr.out + tr.stderr)
    }

    func testKeyChannelsAndErrors() throws {
        let open = try keyFile(["private_key": "0000000000000000000000000000000000000000000000000000000000000001"], mode: 0o644)
        let refused = try Shell.run("sign-hash --key-file \(open)", stdin: Shell.lines([["hash": String(repeating: "00", count: 32)]]))
        XCTAssertEqual(refused.status, 64)
        XCTAssertEqual(refused.out, "")
        let wif = try Shell.run(
            "sign-hash --key-fd 3 3< <(echo '{\"wif\":\"KyZpNDKnfs94vbrwhJneDi77V6jF64PWPF8x5cdJb8ifgg2DUc9d\"}')",
            stdin: Shell.lines([["hash": String(repeating: "11", count: 32)]]))
        XCTAssertEqual(wif.status, 0, wif.stderr)
        XCTAssertEqual(wif.records.first?["public_key"] as? String, "0330d54fd0dd420a6e5f8d3624f5f3482cae350f79d5f0753bf5beef9c2d91af3c")
        let noKey = try Shell.run("sign-hash", stdin: Shell.lines([["hash": String(repeating: "11", count: 32)]]))
        XCTAssertEqual(noKey.status, 65)
        XCTAssertEqual(noKey.records.map { $0["code"] as? String }, ["record.missing_field"])
        let xpubOnly = try Shell.run(
            "derive account --purpose 84 | sign-hash --path m/0/0",
            stdin: Shell.lines([["seed": "000102030405060708090a0b0c0d0e0f", "hash": String(repeating: "11", count: 32)]]))
        XCTAssertEqual(xpubOnly.status, 65)
        XCTAssertNil(xpubOnly.records.first?["signature"])
        XCTAssertEqual(xpubOnly.records.map { $0["code"] as? String }, ["derive.hardened_from_public"], xpubOnly.out)
        for flag in ["--private-key", "--seed", "--mnemonic", "--wif"] {
            XCTAssertEqual(try Shell.run("sign-hash \(flag) x").status, 64, flag)
        }
    }

    /// 5,000 hashes with one key: every one signed, the key derived once (no slowdown check here;
    /// `make bench` measures speed).
    func testStreamOfHashes() throws {
        let key = try keyFile(["seed": "000102030405060708090a0b0c0d0e0f"])
        let r = try Shell.run(
            "set -o pipefail; for i in $(seq 1 5000); do printf '{\"hash\":\"%064x\"}\\n' $i; done | sign-hash --key-file \(key) --path m/0h/1 | sign-hash verify | grep -c '\"valid\":true'"
        )
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.out, "5000\n", r.stderr)
    }

    func testHelpAndManPage() throws {
        for sub in ["", "sign", "verify", "recover"] {
            let r = try Shell.run("sign-hash \(sub) --help")
            XCTAssertEqual(r.status, 0, sub)
            XCTAssertTrue(r.out.contains("USAGE: sign-hash"), sub)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: TestPaths.packageRoot.appendingPathComponent("man/sign-hash.1").path))
    }
}
