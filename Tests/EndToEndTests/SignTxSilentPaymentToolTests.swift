import Bitcoin
import Foundation
import SatchelTestSupport
import WalletCore
import WalletCrypto
import WalletKeys
import XCTest

/// sign-tx paying silent payment addresses through the built tool, offline (a network
/// namespace without network), from a file as a wallet writes it: the summary names the sp1
/// address beside the script computed from the shares, our label-0 change as change; a PSBT
/// with another wallet's input gets our shares and no signature, and says so.
final class SignTxSilentPaymentToolTests: XCTestCase {
    var dir = ""
    let h = DerivationPath.hardened
    let phrase = TestPhrase.abandonAbout
    lazy var root = try! ExtendedKey.master(seed: BIP39().seed(of: BIP39().parse(phrase, language: nil), passphrase: SecureBytes([])))

    override func setUpWithError() throws { dir = try temporaryDirectory("sp-send") }

    private func le<T: FixedWidthInteger>(_ v: T) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }

    /// The payee: keys made from fixed bytes, another wallet's.
    let payee = try! SilentPaymentKeys(
        scanPrivateKey: SecureBytes(Hash.sha256(Array("payee scan".utf8))),
        spendPublicKey: Secp256k1.publicKey(of: SecureBytes(Hash.sha256(Array("payee spend".utf8)))))

    /// Our P2WPKH input (m/84'/0'/0'/0/0, 100,000 sat) and, with `foreign`, another wallet's;
    /// 60,000 to the payee's sp1 address, the rest less 1,000 to our label-0 change.
    private func psbt(foreign: Bool) throws -> PSBT {
        let path: [UInt32] = [84 | h, h, h, 0, 0]
        let key = try root.derive(path).publicKey.compressed
        func input(_ byte: UInt8, _ key: [UInt8], _ origin: [UInt8]) -> [PSBT.Pair] {
            [
                PSBT.Pair(type: PSBTField.inPreviousTxid, value: [UInt8](repeating: byte, count: 32)),
                PSBT.Pair(type: PSBTField.inOutputIndex, value: le(UInt32(0))),
                PSBT.Pair(type: PSBTField.inWitnessUtxo, value: le(UInt64(100_000)) + [22] + ScriptTemplate.p2wpkh(key)),
                PSBT.Pair(type: PSBTField.inBIP32Derivation, keyData: key, value: origin),
            ]
        }
        var inputs = [input(0x31, key, root.fingerprint + path.flatMap(le))]
        if foreign {
            let other = try Secp256k1.publicKey(of: SecureBytes(Hash.sha256(Array("other wallet".utf8)))).compressed
            inputs.append(input(0x32, other, [9, 9, 9, 9]))
        }
        let change = try SilentPaymentKeys(root: root, coinType: 0, account: 0)
        let total: UInt64 = foreign ? 200_000 : 100_000
        let outputs: [[PSBT.Pair]] = [
            [
                PSBT.Pair(type: PSBTField.outAmount, value: le(UInt64(60_000))),
                PSBT.Pair(type: PSBTField.outSPV0Info, value: payee.scanPublicKey.compressed + payee.spendPublicKey.compressed),
            ],
            [
                PSBT.Pair(type: PSBTField.outAmount, value: le(total - 61_000)),
                PSBT.Pair(type: PSBTField.outSPV0Info, value: change.scanPublicKey.compressed + (try change.labeledSpendKey(0)).compressed),
                PSBT.Pair(type: PSBTField.outSPV0Label, value: le(UInt32(0))),
                PSBT.Pair(
                    type: PSBTField.outBIP32Derivation, keyData: change.scanPublicKey.compressed,
                    value: root.fingerprint + SilentPayment.scanPath(coinType: 0, account: 0).components.flatMap(le)),
                PSBT.Pair(
                    type: PSBTField.outBIP32Derivation, keyData: change.spendPublicKey.compressed,
                    value: root.fingerprint + SilentPayment.spendPath(coinType: 0, account: 0).components.flatMap(le)),
            ],
        ]
        let pairs = [
            PSBT.Pair(type: PSBTField.globalTxVersion, value: le(UInt32(2))),
            PSBT.Pair(type: PSBTField.globalInputCount, value: [UInt8(inputs.count)]),
            PSBT.Pair(type: PSBTField.globalOutputCount, value: [2]), PSBT.Pair(type: PSBTField.globalTxModifiable, value: [3]),
            PSBT.Pair(type: PSBTField.globalVersion, value: le(UInt32(2))),
        ]
        var bytes = PSBT.magic
        func map(_ list: [PSBT.Pair]) {
            for p in list { bytes += [UInt8(p.key.count)] + p.key + [UInt8(p.value.count)] + p.value }
            bytes.append(0)
        }
        map(pairs)
        inputs.forEach(map)
        outputs.forEach(map)
        return try PSBT(parsing: bytes)
    }

    private func keyFile() throws -> String {
        let path = dir + "/key.json"
        try Shell.lines([["mnemonic": phrase]]).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return path
    }

    func testAFileSignedOffline() throws {
        let unsigned = try psbt(foreign: false)
        try Data(unsigned.serialized()).write(to: URL(fileURLWithPath: dir + "/unsigned.psbt"))
        let r = try Shell.run(
            "unshare --net sign-tx --key-file \(try keyFile()) --in \(dir)/unsigned.psbt --out \(dir)/signed.psbt --max-fee 5000")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.records.map { $0["type"] as? String }, ["psbt_summary", "psbt"])
        let signed = try PSBT(parsing: [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/signed.psbt"))))
        // The scripts BIP352's sender gives for our input key.
        let key = try root.derive([84 | h, h, h, 0, 0]).privateKey!
        let change = try SilentPaymentKeys(root: root, coinType: 0, account: 0)
        let expected = try SilentPaymentSender.outputs(
            inputs: [.init(key: key, taproot: false)], outpoints: [[UInt8](repeating: 0x31, count: 32) + le(UInt32(0))],
            recipients: [try payee.address(testnet: false), try change.address(label: 0, testnet: false)])
        XCTAssertEqual(signed.outputs.map { $0.value(PSBTField.outScript) }, expected.map { [0x51, 0x20] + $0 })
        let outputs = try XCTUnwrap(r.records[0]["outputs"] as? [[String: Any]])
        XCTAssertEqual(
            outputs.map { $0["silent_payment"] as? String },
            [try payee.address(testnet: false).description, try change.address(label: 0, testnet: false).description])
        XCTAssertEqual(outputs.map { $0["label"] as? Int }, [nil, 0])
        XCTAssertEqual(outputs.map { $0["address"] as? String }, expected.map { SegwitAddress.encode(hrp: "bc", version: 1, program: $0) })
        XCTAssertEqual(outputs.map { $0["change"] as? Bool }, [false, true])
        XCTAssertEqual(r.records[0]["sent"] as? String, "60000")
        XCTAssertEqual(r.records[0]["fee"] as? String, "1000")
        XCTAssertNil(r.records[0]["silent_payments_pending"])
        XCTAssertEqual(signed.inputs[0].all(PSBTField.inPartialSig).count, 1)
        XCTAssertEqual(r.records[1]["psbt"] as? String, signed.base64)
    }

    /// Over QR as over a file: the unsigned PSBT as UR and as BBQr frames, signed offline, the
    /// answer's frames read back: the same summary, scripts and signature as from the file
    /// (the shares' proofs take fresh randomness, so the PSBTs differ there alone).
    func testOverQRFrames() throws {
        try Data(try psbt(foreign: false).serialized()).write(to: URL(fileURLWithPath: dir + "/unsigned.psbt"))
        let key = try keyFile()
        let file = try Shell.run("unshare --net sign-tx --key-file \(key) --in \(dir)/unsigned.psbt --max-fee 5000")
        XCTAssertEqual(file.status, 0, file.stderr)
        let fromFile = try PSBT(parsing: [UInt8](try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(file.records[1]["psbt"] as? String)))))
        func summary(_ record: [String: Any]) throws -> String {
            String(decoding: try JSONSerialization.data(withJSONObject: record, options: .sortedKeys), as: UTF8.self)
        }
        for transport in ["ur", "bbqr"] {
            let frames = try Shell.run(
                "sign-tx --convert --in \(dir)/unsigned.psbt --qr-transport \(transport) --qr-fragment 100 --qr-lines")
            XCTAssertEqual(frames.status, 0, frames.stderr)
            XCTAssertGreaterThan(frames.lines.count, 1, transport)
            let signed = try Shell.run(
                "unshare --net sign-tx --key-file \(key) --max-fee 5000 --qr-transport \(transport) --qr-fragment 100",
                stdin: Data((frames.lines.reversed().joined(separator: "\n") + "\n").utf8))
            XCTAssertEqual(signed.status, 0, transport + signed.stderr)
            XCTAssertEqual(signed.records.first?["type"] as? String, "psbt_summary", transport)
            XCTAssertEqual(try summary(signed.records[0]), try summary(file.records[0]), transport)
            let texts = signed.records.compactMap { $0["type"] as? String == "qr_part" ? $0["text"] as? String : nil }
            XCTAssertGreaterThan(texts.count, 1, transport)
            let back = try Shell.run("sign-tx --convert", stdin: Data((texts.joined(separator: "\n") + "\n").utf8))
            XCTAssertEqual(back.status, 0, back.stderr)
            let got = try PSBT(parsing: [UInt8](try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(back.records.first?["psbt"] as? String)))))
            XCTAssertEqual(got.outputs.map { $0.value(PSBTField.outScript) }, fromFile.outputs.map { $0.value(PSBTField.outScript) })
            XCTAssertEqual(
                got.inputs[0].all(PSBTField.inPartialSig).map(\.value), fromFile.inputs[0].all(PSBTField.inPartialSig).map(\.value))
            XCTAssertEqual(got.inputs[0].all(PSBTField.inPartialSig).count, 1)
        }
    }

    func testAnotherWalletsInputLeavesItPending() throws {
        let r = try Shell.run(
            "unshare --net sign-tx --key-file \(try keyFile())", stdin: Shell.lines([["psbt": try psbt(foreign: true).base64]]))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.records[0]["silent_payments_pending"] as? Bool, true)
        let outputs = try XCTUnwrap(r.records[0]["outputs"] as? [[String: Any]])
        XCTAssertEqual(outputs.map { $0["script_pending"] as? Bool }, [true, true])
        XCTAssertEqual(outputs.map { $0["address"] as? String }, [nil, nil])
        XCTAssertEqual(outputs.map { $0["script"] as? String }, [nil, nil])
        let out = try PSBT(base64: try XCTUnwrap(r.records[1]["psbt"] as? String))
        XCTAssertEqual(out.inputs.map { $0.all(PSBTField.inSPECDHShare).count }, [2, 0])
        XCTAssertEqual(out.inputs.map { $0.all(PSBTField.inPartialSig).count }, [0, 0])
        XCTAssertEqual(SilentPaymentPSBT.pending(out), [0, 1])
    }
}
