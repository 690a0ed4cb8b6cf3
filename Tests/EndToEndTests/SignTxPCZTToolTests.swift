import Foundation
import SatchelTestSupport
import WalletCore
import WalletCrypto
import XCTest
import Zcash

/// sign-tx on Zcash PCZTs through the built tool, offline (a network namespace without
/// network): Keystone's PCZTs with the public seeds that made them, from files, records and
/// the key store; the summary's figures; the signatures verified; refusals by name.
final class SignTxPCZTToolTests: XCTestCase {
    static let keystoneSeed =
        "d561f5aba9db8b100a9a84197322e522f952171a388ad74eaab1ab9db815be3335c3099a0a2bb0fee57e630db5ed7251412b6bd4b905cf518627411fee3f32dd"
    static let sep5Seed =
        "96063c45132c840f7e1665a3b97814d8eb2586f34bd945f06fa15b9327eebe355f654e81c6233a52149d7a95ea7486eb8d699166f5677e507529482599624cdc"
    var dir = ""

    override func setUpWithError() throws {
        dir = try temporaryDirectory("pczt")
    }

    static func vector(_ name: String) -> String { TestPaths.vector("zcash/pczt/\(name).pczt").path }

    private func secret(_ name: String, _ record: [String: Any]) throws -> String {
        let path = dir + "/" + name
        try Shell.lines([record]).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return path
    }

    /// --in and --out with the key on a descriptor: the summary's every figure, the signature
    /// in the written file verified against the sighash and the spend's rk, the file equal to
    /// the record's PCZT.
    func testFileSignedOfflineFromKeyFd() throws {
        let key = try secret("key.json", ["seed": Self.keystoneSeed])
        let out = dir + "/signed.pczt"
        let r = try Shell.run(
            "unshare --net sign-tx --in \(Self.vector("keystone_fw_orchard_to_transparent")) --out \(out) --key-fd 3 3<\(key)")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.records.count, 2)
        let summary = r.records[0]
        XCTAssertEqual(summary["type"] as? String, "pczt_summary")
        XCTAssertEqual(summary["network"] as? String, "main")
        XCTAssertEqual(summary["pczt_version"] as? Int, 1)
        XCTAssertEqual(summary["tx_version"] as? Int, 5)
        let spends = try XCTUnwrap(summary["spends"] as? [[String: Any]])
        XCTAssertEqual(spends.map { $0["pool"] as? String }, ["orchard"])
        XCTAssertEqual(spends.map { $0["amount"] as? String }, ["12000000"])
        XCTAssertEqual(spends.map { $0["path"] as? String }, ["m/32'/133'/0'"])
        XCTAssertEqual(spends.map { $0["ours"] as? Bool }, [true])
        let outputs = try XCTUnwrap(summary["outputs"] as? [[String: Any]])
        XCTAssertEqual(outputs.map { $0["pool"] as? String }, ["transparent", "orchard"])
        XCTAssertEqual(outputs.map { $0["amount"] as? String }, ["10000000", "1985000"])
        XCTAssertEqual(outputs.map { $0["role"] as? String }, ["payment", "change"])
        XCTAssertEqual(outputs[0]["address"] as? String, "t1TMLJ7k2N4Narqk5Fd5uUo82NXSMbKRgCc")
        XCTAssertEqual(summary["input_total"] as? String, "12000000")
        XCTAssertEqual(summary["sent"] as? String, "10000000")
        XCTAssertEqual(summary["fee"] as? String, "15000")
        XCTAssertEqual(summary["signatures"] as? Int, 1)
        let signedRecord = r.records[1]
        XCTAssertEqual(signedRecord["type"] as? String, "pczt")
        XCTAssertEqual(signedRecord["signatures"] as? Int, 1)
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: out)))
        XCTAssertEqual(Base64.encode(written), signedRecord["pczt"] as? String)
        let signed = try PCZT(parsing: written)
        let action = try XCTUnwrap(signed.orchard?.actions[0])
        XCTAssertTrue(
            RedPallas.verify(
                try XCTUnwrap(action.spend.spendAuthSig), message: try signed.shieldedSighash(), key: try XCTUnwrap(action.spend.rk)))
        // Nothing but the signature changed.
        var unsigned = signed
        unsigned.orchard!.actions[0].spend.spendAuthSig = nil
        var original = try PCZT(
            parsing: try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.vector("keystone_fw_orchard_to_transparent")))))
        original.global.txModifiable = unsigned.global.txModifiable
        XCTAssertEqual(unsigned, original)
        XCTAssertFalse(r.out.contains(Self.keystoneSeed) || r.stderr.contains(Self.keystoneSeed))
    }

    /// Records, each with its own seed, and a zec key-store entry's seed: the transparent inputs
    /// and the Orchard spend of Keystone's pczt_ext PCZTs, each signature verified; unknown
    /// fields pass through; the seed is in no output.
    func testRecordsAndTheKeyStore() throws {
        let names = ["keystone_pczt_ext_transparent_to_orchard", "keystone_pczt_ext_orchard_to_orchard"]
        let pczts = try names.map { Base64.encode(try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.vector($0))))) }
        let own = try Shell.run(
            "unshare --net sign-tx", stdin: Shell.lines(pczts.map { ["pczt": $0, "seed": Self.sep5Seed, "label": "pay"] }))
        XCTAssertEqual(own.status, 0, own.stderr)
        XCTAssertEqual(own.records.map { $0["type"] as? String }, ["pczt_summary", "pczt", "pczt_summary", "pczt"])
        XCTAssertEqual(own.records.map { $0["signatures"] as? Int }, [2, 2, 1, 1])
        XCTAssertEqual(own.records[1]["label"] as? String, "pay")
        XCTAssertNil(own.records[1]["seed"])
        XCTAssertFalse(own.out.contains(Self.sep5Seed))
        let memo = ((own.records[2]["outputs"] as? [[String: Any]])?.first)?["memo_text"] as? String
        XCTAssertEqual(memo, "hello")
        try verify(own.records[1], transparentInputs: 2)
        try verify(own.records[3], orchardSpends: 1)

        let pass = try secret("pass", ["x": 1])
        try Data("correct horse battery\n".utf8).write(to: URL(fileURLWithPath: pass))
        let ks = "--keystore \(dir)/ks --keystore-pass-file \(pass) --kdf interactive"
        let add = try Shell.run("keystore add zseed \(ks)", stdin: Shell.lines([["seed": Self.sep5Seed, "coin": "zec"]]))
        XCTAssertEqual(add.status, 0, add.stderr)
        let stored = try Shell.run("unshare --net sign-tx --wallet zseed \(ks)", stdin: Shell.lines(pczts.map { ["pczt": $0] }))
        XCTAssertEqual(stored.status, 0, stored.stderr)
        XCTAssertEqual(stored.records.map { $0["signatures"] as? Int }, [2, 2, 1, 1])
        try verify(stored.records[1], transparentInputs: 2)
        try verify(stored.records[3], orchardSpends: 1)

        // A BIP39 phrase entry (not a zec one) signs too: the seed behind the phrase. Wallet W's
        // phrase and the PCZT examples/zcash-air-gapped.sh signs (its Ironwood spend).
        let w = try XCTUnwrap(TestPaths.json(TestPaths.fixture("zcash-ironwood/wallet.json")) as? [String: Any])
        let phrase = try Shell.run("keystore add w \(ks)", stdin: Shell.lines([["mnemonic": w["mnemonic"]!]]))
        XCTAssertEqual(phrase.status, 0, phrase.stderr)
        XCTAssertEqual(phrase.records.first?["kind"] as? String, "bip39-mnemonic")
        let example = TestPaths.packageRoot.appendingPathComponent("examples/data/zcash-ironwood-spend.pczt").path
        let fromPhrase = try Shell.run("unshare --net sign-tx --wallet w \(ks) --in \(example)")
        XCTAssertEqual(fromPhrase.status, 0, fromPhrase.stderr)
        XCTAssertEqual(fromPhrase.records.map { $0["signatures"] as? Int }, [1, 1])
        XCTAssertEqual(fromPhrase.records.first?["fee"] as? String, "15000")

        // The entry's viewing key (derive account's UFVK) signs nothing: refused by name.
        let view = try Shell.run("set -o pipefail; derive account --wallet zseed \(ks) | keystore add zview \(ks)")
        XCTAssertEqual(view.status, 0, view.stderr)
        let watch = try Shell.run("unshare --net sign-tx --wallet zview \(ks)", stdin: Shell.lines([["pczt": pczts[1]]]))
        XCTAssertEqual(watch.status, 65, watch.stderr)
        XCTAssertEqual(watch.records.first?["code"] as? String, "derive.unsupported")
        XCTAssertEqual(
            watch.records.first?["message"] as? String,
            "a PCZT is signed from a seed (ZIP 32): give a BIP39 phrase or seed, or a zec or BIP39 key-store entry; this key is not one")
    }

    /// A transparent input asking for SIGHASH_NONE: refused by name, signed with --allow-sighash,
    /// the summary naming the type.
    func testAllowSighash() throws {
        var pczt = try PCZT(
            parsing: [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.vector("keystone_pczt_ext_transparent_to_orchard")))))
        pczt.transparent!.inputs[1].sighashType = PCZT.SighashType.none
        let record = ["pczt": Base64.encode(try pczt.serialized()), "seed": Self.sep5Seed]
        let refused = try Shell.run("unshare --net sign-tx", stdin: Shell.lines([record]))
        XCTAssertEqual(refused.status, 65, refused.stderr)
        XCTAssertEqual(
            refused.records.first?["message"] as? String,
            "this PCZT is refused, nothing of it signed: transparent.inputs[1] asks for SIGHASH_NONE, which lets others change "
                + "what its signature covers: sign it only on purpose, with --allow-sighash")
        let allowed = try Shell.run("unshare --net sign-tx --allow-sighash", stdin: Shell.lines([record]))
        XCTAssertEqual(allowed.status, 0, allowed.stderr)
        XCTAssertEqual(allowed.records.map { $0["type"] as? String }, ["pczt_summary", "pczt"])
        XCTAssertEqual(allowed.records[0]["sighash_warning"] as? [String], ["NONE"])
        XCTAssertEqual((allowed.records[0]["spends"] as? [[String: Any]])?.map { $0["sighash"] as? String }, ["ALL", "NONE"])
        try verify(allowed.records[1], transparentInputs: 2)
    }

    private func verify(_ record: [String: Any], transparentInputs: Int = 0, orchardSpends: Int = 0) throws {
        let pczt = try PCZT(parsing: try XCTUnwrap(Base64.decode(utf8: Array(try XCTUnwrap(record["pczt"] as? String).utf8))))
        var checked = (0, 0)
        for (index, input) in (pczt.transparent?.inputs ?? []).enumerated() {
            for entry in input.partialSignatures.entries {
                let key = try Secp256k1.PublicKey(parsing: entry.key)
                XCTAssertTrue(
                    Secp256k1.verifyECDSA(
                        hash: try pczt.transparentSighash(input: index), der: Array(entry.value.dropLast()), publicKey: key))
                checked.0 += 1
            }
        }
        let sighash = try pczt.shieldedSighash()
        for action in pczt.orchard?.actions ?? [] where action.spend.spendAuthSig != nil && action.spend.value != 0 {
            XCTAssertTrue(RedPallas.verify(action.spend.spendAuthSig!, message: sighash, key: action.spend.rk!))
            checked.1 += 1
        }
        XCTAssertEqual(checked.0, transparentInputs)
        XCTAssertEqual(checked.1, orchardSpends)
    }

    /// What is refused is refused by name, exit 65, nothing signed written.
    func testRefusals() throws {
        let fw = try Base64.encode([UInt8](Data(contentsOf: URL(fileURLWithPath: Self.vector("keystone_fw_orchard_to_transparent")))))
        let cases: [(String, [String: Any], String, String)] = [
            (
                "", ["pczt": fw, "seed": Self.sep5Seed], "pczt.refused",
                "this PCZT is refused, nothing of it signed: nothing in it is ours: no spend or input names our seed (ZIP 32 fingerprint af5d9c247e91d0cbf603f6f6f49cfc218eabf9a2c1d886ce94fc167d6da7e664); it names afb475105f1f5b477c52aa3c32ccf131b0c556b80f55ac555460e6b5148bf853"
            ),
            (
                "--max-fee 10000", ["pczt": fw, "seed": Self.keystoneSeed], "pczt.refused",
                "this PCZT is refused, nothing of it signed: its fee of 15000 zatoshi is above --max-fee 10000"
            ),
            ("", ["pczt": fw, "psbt": "cHNidP8B", "seed": Self.keystoneSeed], "record.conflicting_fields", ""),
            ("", ["pczt": "UENaVAEAAAAF", "seed": Self.keystoneSeed], "pczt.malformed", ""),
            ("", ["pczt": fw], "record.missing_field", ""),
        ]
        for (options, record, code, message) in cases {
            let r = try Shell.run("unshare --net sign-tx \(options)", stdin: Shell.lines([record]))
            XCTAssertEqual(r.status, 65, "\(code): \(r.stderr)")
            XCTAssertEqual(r.records.map { $0["type"] as? String }, ["error"], code)
            XCTAssertEqual(r.records.first?["code"] as? String, code)
            if !message.isEmpty { XCTAssertEqual(r.records.first?["message"] as? String, message) }
        }
    }

    /// --confirm on a real terminal (script(1)'s): the summary shown there, "n" signs and writes
    /// nothing, "y" signs.
    func testConfirmOnATerminal() throws {
        let key = try secret("key.json", ["seed": Self.keystoneSeed])
        for (answer, status) in [("n", "65"), ("y", "0")] {
            let out = "\(dir)/signed-\(answer).pczt"
            let r = try Shell.run(
                """
                (sleep 1; printf '\(answer)\\n') | script -qfec "sign-tx --in \(Self.vector("keystone_fw_orchard_to_transparent")) \
                  --out \(out) --key-fd 3 --confirm 3<\(key) > \(dir)/records-\(answer) 2>&1; echo status=\\$?" /dev/null
                """)
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.out.contains("  fee: 15000\r\n"), r.out)
            XCTAssertTrue(r.out.contains("Sign this? [y/N] "), r.out)
            XCTAssertEqual(r.out.components(separatedBy: "status=").last.map { String($0.prefix(while: \.isNumber)) }, status, r.out)
            XCTAssertEqual(FileManager.default.fileExists(atPath: out), answer == "y")
        }
    }

    /// Unsigned PCZT → ur:zcash-pczt frames (sign-tx --convert) → PNG → zbarimg → sign-tx offline →
    /// signed frames → PNG → zbarimg → sign-tx --convert → the signed PCZT, its signature verified;
    /// the independent decoder (scripts/qr-oracle.py) reads the frames as {1: the PCZT}.
    func testAirGapThroughImages() throws {
        let key = try secret("key.json", ["seed": Self.keystoneSeed])
        let run = { (command: String) throws -> Shell.Result in try Shell.run(command, cwd: URL(fileURLWithPath: self.dir)) }
        let out = try run(
            "sign-tx --convert --in \(Self.vector("keystone_fw_orchard_to_transparent")) --qr-transport ur --qr-fragment 400 --qr-dir unsigned"
        )
        XCTAssertEqual(out.status, 0, out.stderr)
        let parts = out.records.filter { $0["type"] as? String == "qr_part" }
        XCTAssertEqual(parts.count, 7)
        XCTAssertEqual(Set(parts.map { $0["ur_type"] as? String }), ["zcash-pczt"])
        XCTAssertEqual(out.records.first?["type"] as? String, "pczt")
        let signed = try run("zbarimg --raw -q unsigned/*.png | unshare --net sign-tx --key-file \(key) --qr-fragment 400 --qr-dir signed")
        XCTAssertEqual(signed.status, 0, signed.stderr)
        XCTAssertEqual(signed.records.prefix(2).map { $0["type"] as? String }, ["pczt_summary", "pczt"])
        XCTAssertEqual(signed.records.dropFirst(2).filter { $0["type"] as? String == "qr_part" }.count, signed.records.count - 2)
        XCTAssertTrue(signed.stderr.contains("sign-tx: ur:zcash-pczt complete\n"), signed.stderr)
        let back = try run("zbarimg --raw -q signed/*.png | sign-tx --convert")
        XCTAssertEqual(back.status, 0, back.stderr)
        XCTAssertEqual(back.records.map { $0["type"] as? String }, ["pczt"])
        XCTAssertEqual(back.records.first?["pczt"] as? String, signed.records[1]["pczt"] as? String)
        try verify(back.records[0], orchardSpends: 1)
        // The independent decoder: the CBOR map {1: bytes} around the signed PCZT.
        let texts = signed.records.compactMap { $0["text"] as? String }.joined(separator: "\n")
        let oracle = try Shell.run("python3 scripts/qr-oracle.py ur-decode", stdin: Data(texts.utf8))
        XCTAssertEqual(oracle.status, 0, oracle.stderr)
        let bytes = try XCTUnwrap(Base64.decode(utf8: Array(try XCTUnwrap(signed.records[1]["pczt"] as? String).utf8)))
        XCTAssertEqual(
            oracle.out.trimmingCharacters(in: .newlines),
            "zcash-pczt a10159" + String(format: "%04x", bytes.count) + Hex.encode(bytes))
        // BBQr has no PCZT type.
        let bbqr = try run("sign-tx --convert --in \(Self.vector("keystone_fw_orchard_to_transparent")) --qr-transport bbqr")
        XCTAssertEqual(bbqr.status, 65, bbqr.stderr)
        XCTAssertEqual(bbqr.records.first?["code"] as? String, "ur.unsupported")
    }
}
