@testable import Bitcoin
import Foundation
import SatchelTestSupport
import WalletCore
import WalletCrypto
import WalletKeys
import XCTest

/// The signer paying silent payment addresses (BIP375 inside `PSBTSigner.sign`): its outputs
/// held to BIP352's sender (`SilentPaymentSender`, itself held to BIP352's vectors), its own
/// label-0 change shown as change, and a PSBT with another signer's input left unsigned until
/// that signer's share is in.
final class SilentPaymentSendTests: XCTestCase {
    private static func root(_ phrase: String) -> ExtendedKey {
        try! ExtendedKey.master(seed: BIP39().seed(of: BIP39().parse(phrase, language: nil), passphrase: SecureBytes([])))
    }
    private let ours = root(TestPhrase.abandonAbout)
    private let theirs = root("zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong")
    private let h = DerivationPath.hardened
    private var p2wpkhPath: [UInt32] { [84 | h, h, h, 0, 0] }
    private var p2trPath: [UInt32] { [86 | h, h, h, 0, 0] }

    private func le<T: FixedWidthInteger>(_ v: T) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
    private func origin(_ root: ExtendedKey, _ path: [UInt32]) -> [UInt8] { root.fingerprint + path.flatMap { le($0) } }
    private func txOut(_ value: UInt64, _ script: [UInt8]) -> [UInt8] { le(value) + [UInt8(script.count)] + script }

    /// The receiver paid: keys made from fixed bytes, another wallet's.
    private let payee = try! SilentPaymentKeys(
        scanPrivateKey: SecureBytes(Hash.sha256(Array("payee scan".utf8))),
        spendPublicKey: Secp256k1.publicKey(of: SecureBytes(Hash.sha256(Array("payee spend".utf8)))))

    /// Inputs: our P2WPKH (m/84'/0'/0'/0/0, 60,000 sat), our P2TR key path (m/86'/0'/0'/0/0,
    /// 50,000 sat) and, with `foreign`, another wallet's P2WPKH (40,000 sat). Outputs: 30,000 to
    /// the payee's sp1 address, 20,000 to a P2WPKH, the rest less 2,000 to our label-0 change.
    private func unsigned(foreign: Bool) throws -> PSBT {
        let ourKeys = try BIP32Keyring(root: ours), theirKeys = try BIP32Keyring(root: theirs)
        let wpkh = try ourKeys.publicKey(at: p2wpkhPath).compressed
        let internalKey = try ourKeys.publicKey(at: p2trPath)
        let outputKey = try internalKey.taprootOutputKey()
        var inputs: [[PSBT.Pair]] = [
            [
                PSBT.Pair(type: PSBTField.inPreviousTxid, value: [UInt8](repeating: 0x11, count: 32)),
                PSBT.Pair(type: PSBTField.inOutputIndex, value: le(UInt32(1))),
                PSBT.Pair(type: PSBTField.inWitnessUtxo, value: txOut(60_000, ScriptTemplate.p2wpkh(wpkh))),
                PSBT.Pair(type: PSBTField.inBIP32Derivation, keyData: wpkh, value: origin(ours, p2wpkhPath)),
            ],
            [
                PSBT.Pair(type: PSBTField.inPreviousTxid, value: [UInt8](repeating: 0x22, count: 32)),
                PSBT.Pair(type: PSBTField.inOutputIndex, value: le(UInt32(0))),
                PSBT.Pair(type: PSBTField.inWitnessUtxo, value: txOut(50_000, [0x51, 0x20] + outputKey)),
                PSBT.Pair(type: PSBTField.inTapBIP32Derivation, keyData: internalKey.xOnly, value: [0] + origin(ours, p2trPath)),
                PSBT.Pair(type: PSBTField.inTapInternalKey, value: internalKey.xOnly),
            ],
        ]
        if foreign {
            let key = try theirKeys.publicKey(at: p2wpkhPath).compressed
            inputs.append([
                PSBT.Pair(type: PSBTField.inPreviousTxid, value: [UInt8](repeating: 0x05, count: 32)),
                PSBT.Pair(type: PSBTField.inOutputIndex, value: le(UInt32(3))),
                PSBT.Pair(type: PSBTField.inWitnessUtxo, value: txOut(40_000, ScriptTemplate.p2wpkh(key))),
                PSBT.Pair(type: PSBTField.inBIP32Derivation, keyData: key, value: origin(theirs, p2wpkhPath)),
            ])
        }
        let change = try SilentPaymentKeys(root: ours, coinType: 0, account: 0)
        let scanPath = SilentPayment.scanPath(coinType: 0, account: 0).components
        let spendPath = SilentPayment.spendPath(coinType: 0, account: 0).components
        let total: UInt64 = foreign ? 150_000 : 110_000
        let outputs: [[PSBT.Pair]] = [
            [
                PSBT.Pair(type: PSBTField.outAmount, value: le(UInt64(30_000))),
                PSBT.Pair(type: PSBTField.outSPV0Info, value: payee.scanPublicKey.compressed + payee.spendPublicKey.compressed),
            ],
            [
                PSBT.Pair(type: PSBTField.outAmount, value: le(UInt64(20_000))),
                PSBT.Pair(
                    type: PSBTField.outScript, value: ScriptTemplate.p2wpkh(Hash.sha256(Array("elsewhere".utf8)).prefix(33).map { $0 })),
            ],
            [
                PSBT.Pair(type: PSBTField.outAmount, value: le(total - 52_000)),
                PSBT.Pair(type: PSBTField.outSPV0Info, value: change.scanPublicKey.compressed + (try change.labeledSpendKey(0)).compressed),
                PSBT.Pair(type: PSBTField.outSPV0Label, value: le(UInt32(0))),
                PSBT.Pair(type: PSBTField.outBIP32Derivation, keyData: change.scanPublicKey.compressed, value: origin(ours, scanPath)),
                PSBT.Pair(type: PSBTField.outBIP32Derivation, keyData: change.spendPublicKey.compressed, value: origin(ours, spendPath)),
            ],
        ]
        let global = [
            PSBT.Pair(type: PSBTField.globalTxVersion, value: le(UInt32(2))),
            PSBT.Pair(type: PSBTField.globalInputCount, value: [UInt8(inputs.count)]),
            PSBT.Pair(type: PSBTField.globalOutputCount, value: [3]),
            PSBT.Pair(type: PSBTField.globalTxModifiable, value: [0x03]),
            PSBT.Pair(type: PSBTField.globalVersion, value: le(UInt32(2))),
        ]
        func map(_ pairs: [PSBT.Pair]) -> [UInt8] {
            var out = [UInt8]()
            for pair in pairs {
                out += [UInt8(pair.key.count)] + pair.key
                out += [UInt8(pair.value.count)] + pair.value
            }
            return out + [0]
        }
        let body: [UInt8] = map(global) + inputs.flatMap(map) + outputs.flatMap(map)
        return try PSBT(parsing: PSBT.magic + body)
    }

    /// BIP352's sender, given the same input keys, pays the same two keys.
    private func expectedScripts(_ psbt: PSBT, foreign: Bool) throws -> [[UInt8]] {
        let ourKeys = try BIP32Keyring(root: ours)
        var keys = [
            SilentPaymentSender.InputKey(key: try ourKeys.privateKey(at: p2wpkhPath), taproot: false),
            SilentPaymentSender.InputKey(
                key: try PSBTSigner.taprootOutputPrivateKey(try ourKeys.privateKey(at: p2trPath), merkleRoot: nil), taproot: true),
        ]
        if foreign { keys.append(.init(key: try BIP32Keyring(root: theirs).privateKey(at: p2wpkhPath), taproot: false)) }
        let change = try SilentPaymentKeys(root: ours, coinType: 0, account: 0)
        return try SilentPaymentSender.outputs(
            inputs: keys, outpoints: psbt.transaction.inputs.map { $0.previousTxID + le($0.previousIndex) },
            recipients: [try payee.address(testnet: false), try change.address(label: 0, testnet: false)]
        ).map { [0x51, 0x20] + $0 }
    }

    func testOneSignerHoldingEveryInput() throws {
        let unsigned = try unsigned(foreign: false)
        XCTAssertEqual(SilentPaymentPSBT.pending(unsigned), [0, 2])
        var shown: PSBTReport?
        let (signed, report) = try PSBTSigner(coinType: 0).sign(unsigned, keys: try BIP32Keyring(root: ours)) { shown = $0 }
        XCTAssertFalse(try XCTUnwrap(shown).silentPaymentsPending)
        // One global share per scan key (ours are all the eligible inputs), none per input.
        XCTAssertEqual(signed.global.all(PSBTField.globalSPECDHShare).count, 2)
        XCTAssertEqual(signed.global.all(PSBTField.globalSPDLEQ).count, 2)
        XCTAssertTrue(signed.inputs.allSatisfy { $0.all(PSBTField.inSPECDHShare).isEmpty })
        XCTAssertEqual(signed.global.value(PSBTField.globalTxModifiable), [0])
        let expected = try expectedScripts(unsigned, foreign: false)
        XCTAssertEqual(signed.outputs[0].value(PSBTField.outScript), expected[0])
        XCTAssertEqual(signed.outputs[2].value(PSBTField.outScript), expected[1])
        XCTAssertEqual(report.outputs.map(\.change), [false, false, true])
        XCTAssertEqual(report.outputs[2].paths, ["m/352'/0'/0'/1'/0", "m/352'/0'/0'/0'/0"])
        XCTAssertEqual(report.outputs[0].silentPayment?.scanKey, payee.scanPublicKey)
        XCTAssertEqual(report.outputs[0].script, expected[0])
        XCTAssertEqual(report.inputs.map(\.signed), [1, 1])
        XCTAssertEqual(report.fee, 2_000)
        XCTAssertTrue(report.complete)
        XCTAssertNoThrow(try SilentPaymentPSBT.validate(signed))
        // The signatures commit to the computed scripts: the network transaction pays them.
        let tx = try PSBTFinalizer.extract(try PSBTFinalizer.finalized(signed))
        XCTAssertEqual(tx.outputs.map(\.script)[0], expected[0])
    }

    /// Another wallet's input: our shares are added, our inputs not signed; once its signer
    /// adds its share the scripts are computed, and each signer signs its own inputs.
    func testTwoSignersInTurn() throws {
        let unsigned = try unsigned(foreign: true)
        let (first, firstReport) = try PSBTSigner(coinType: 0).sign(unsigned, keys: try BIP32Keyring(root: ours)) { _ in }
        XCTAssertTrue(firstReport.silentPaymentsPending)
        XCTAssertEqual(firstReport.inputs.map(\.signed), [0, 0, 0])
        XCTAssertEqual(SilentPaymentPSBT.pending(first), [0, 2])
        XCTAssertTrue(first.global.all(PSBTField.globalSPECDHShare).isEmpty)
        XCTAssertEqual(first.inputs.map { $0.all(PSBTField.inSPECDHShare).count }, [2, 2, 0])
        XCTAssertEqual(first.global.value(PSBTField.globalTxModifiable), [0x03])

        let (second, secondReport) = try PSBTSigner(coinType: 0).sign(first, keys: try BIP32Keyring(root: theirs)) { _ in }
        XCTAssertFalse(secondReport.silentPaymentsPending)
        XCTAssertEqual(secondReport.inputs.map(\.signed), [0, 0, 1])
        let expected = try expectedScripts(unsigned, foreign: true)
        XCTAssertEqual([second.outputs[0].value(PSBTField.outScript), second.outputs[2].value(PSBTField.outScript)], expected)
        // To the other wallet our label-0 change is a payment: its keys are not its own.
        XCTAssertEqual(secondReport.outputs.map(\.change), [false, false, false])

        let (third, thirdReport) = try PSBTSigner(coinType: 0).sign(second, keys: try BIP32Keyring(root: ours)) { _ in }
        XCTAssertEqual(thirdReport.inputs.map(\.signed), [1, 1, 0])
        XCTAssertTrue(thirdReport.complete)
        XCTAssertNoThrow(try SilentPaymentPSBT.validate(third))
    }

    /// A share that is not what its proof says, or a script that is not the shares', is
    /// refused before anything is signed.
    func testForgedSharesAndScriptsAreRefused() throws {
        let (first, _) = try PSBTSigner(coinType: 0).sign(try unsigned(foreign: true), keys: try BIP32Keyring(root: ours)) { _ in }
        var forged = first
        let pair = try XCTUnwrap(forged.inputs[0].all(PSBTField.inSPECDHShare).first)
        forged.inputs[0].set(PSBT.Pair(type: PSBTField.inSPECDHShare, keyData: pair.keyData, value: payee.spendPublicKey.compressed))
        XCTAssertThrowsError(try PSBTSigner(coinType: 0).sign(forged, keys: try BIP32Keyring(root: theirs)) { _ in }) {
            XCTAssertEqual(($0 as? SilentPaymentPSBT.Failure)?.check, .ecdhCoverage)
            XCTAssertEqual(
                ($0 as? SilentPaymentPSBT.Failure)?.reason, "input 0's DLEQ proof for scan key \(Hex.encode(pair.keyData)) does not verify")
        }
        let (second, _) = try PSBTSigner(coinType: 0).sign(first, keys: try BIP32Keyring(root: theirs)) { _ in }
        var redirected = second
        redirected.outputs[0].set(PSBT.Pair(type: PSBTField.outScript, value: [0x51, 0x20] + payee.spendPublicKey.xOnly))
        XCTAssertThrowsError(
            try PSBTSigner(coinType: 0).sign(try PSBT(parsing: redirected.serialized()), keys: try BIP32Keyring(root: ours)) { _ in }
        ) {
            XCTAssertEqual(($0 as? SilentPaymentPSBT.Failure)?.check, .outputScripts)
        }
        // Another hash type than ALL on any input is refused with silent payment outputs.
        var single = try unsigned(foreign: false)
        single.inputs[0].set(PSBT.Pair(type: PSBTField.inSighashType, value: le(UInt32(3))))
        XCTAssertThrowsError(try PSBTSigner(allowOtherSighash: true, coinType: 0).sign(single, keys: try BIP32Keyring(root: ours)) { _ in })
        {
            XCTAssertEqual(
                $0 as? SilentPaymentPSBT.Failure,
                SilentPaymentPSBT.Failure(.inputEligibility, "input 0 asks for SIGHASH_SINGLE; only ALL is allowed"))
        }
    }
}
