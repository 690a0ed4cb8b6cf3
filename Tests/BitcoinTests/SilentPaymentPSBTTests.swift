@testable import Bitcoin
import Foundation
import SatchelTestSupport
import WalletCore
import WalletCrypto
import XCTest

/// BIP375 against the BIP's vectors (bitcoin/bips bip-0375/bip375_test_vectors.json, copied
/// with its SHA-256): every valid PSBT passes, every invalid one fails the very check its
/// description names. Then the Signer's part: each "can finalize" PSBT stripped of its shares,
/// proofs and computed scripts is contributed to again with the vector's input keys, and gives
/// the same scripts.
final class SilentPaymentPSBTTests: XCTestCase {
    private struct Vector {
        let description: String
        let psbt: String
        let checks: Set<SilentPaymentPSBT.Check>
        let inputs: [[String: Any]]
        let outputs: [[String: Any]]
    }

    private func vectors(_ kind: String) throws -> [Vector] {
        let json = try XCTUnwrap(try TestPaths.json(TestPaths.projectFixture("vectors/bip352/bip375_test_vectors.json")) as? [String: Any])
        let names: [String: SilentPaymentPSBT.Check] = [
            "psbt_structure": .structure, "ecdh_coverage": .ecdhCoverage, "input_eligibility": .inputEligibility,
            "output_scripts": .outputScripts,
        ]
        return try XCTUnwrap(json[kind] as? [[String: Any]]).map { v in
            let supplementary = v["supplementary"] as? [String: Any] ?? [:]
            return Vector(
                description: v["description"] as! String, psbt: v["psbt"] as! String,
                checks: (v["checks"] as? [String]).map { Set($0.map { names[$0]! }) } ?? Set(SilentPaymentPSBT.Check.allCases),
                inputs: supplementary["inputs"] as? [[String: Any]] ?? [], outputs: supplementary["outputs"] as? [[String: Any]] ?? [])
        }
    }

    func testValidVectorsPass() throws {
        let valid = try vectors("valid")
        XCTAssertEqual(valid.count, 20)
        for v in valid {
            XCTAssertNoThrow(try SilentPaymentPSBT.validate(try PSBT(base64: v.psbt), checks: v.checks, strict: false), v.description)
        }
    }

    /// Each invalid PSBT fails, and by the check its description begins with (a PSBT whose
    /// fields do not read fails BIP375's structure check as it is read).
    func testInvalidVectorsFailTheirCheck() throws {
        let invalid = try vectors("invalid")
        XCTAssertEqual(invalid.count, 22)
        var byCheck = [String: Int]()
        for v in invalid {
            let named = String(v.description.prefix { $0 != ":" })
            do {
                try SilentPaymentPSBT.validate(try PSBT(base64: v.psbt), checks: v.checks, strict: false)
                XCTFail("passed: \(v.description)")
            } catch let failure as SilentPaymentPSBT.Failure {
                XCTAssertEqual(failure.check.rawValue, named, "\(v.description): \(failure.reason)")
            } catch let error as PSBTError {
                XCTAssertEqual(named, SilentPaymentPSBT.Check.structure.rawValue, "\(v.description): \(error.message)")
            }
            byCheck[named, default: 0] += 1
        }
        XCTAssertEqual(byCheck, ["psbt structure": 6, "ecdh coverage": 10, "input eligibility": 2, "output scripts": 4])
    }

    /// The signer's part: shares and proofs made with the vector's keys give its scripts.
    func testContributingAgainGivesTheVectorsScripts() throws {
        var done = 0
        for v in try vectors("valid") where v.description.hasPrefix("can finalize") {
            let original = try PSBT(base64: v.psbt)
            var stripped = original
            let shareTypes: Set<UInt64> = [PSBTField.globalSPECDHShare, PSBTField.globalSPDLEQ]
            stripped.global.remove { shareTypes.contains($0.type) }
            stripped.global.set(PSBT.Pair(type: PSBTField.globalTxModifiable, value: [0x03]))
            for i in stripped.inputs.indices {
                stripped.inputs[i].remove { $0.type == PSBTField.inSPECDHShare || $0.type == PSBTField.inSPDLEQ }
            }
            for o in stripped.outputs.indices where stripped.outputs[o].value(PSBTField.outSPV0Info) != nil {
                stripped.outputs[o].remove { $0.type == PSBTField.outScript }
            }
            // The vectors' P2WPKH UTXOs pay another key than their derivation's (which the
            // signer refuses): each made to pay the input's own key. Only the outpoints and
            // keys enter the outputs, so the vector's scripts stay the ones to find.
            for i in stripped.inputs.indices {
                guard let utxo = stripped.inputs[i].value(PSBTField.inWitnessUtxo).flatMap(PSBTSigner.txOut),
                    case .p2wpkh = ScriptTemplate(utxo.script),
                    let key = stripped.inputs[i].all(PSBTField.inBIP32Derivation).first?.keyData
                else { continue }
                var w = SerialWriter()
                w.uint64(utxo.value)
                w.varBytes(ScriptTemplate.p2wpkh(key))
                stripped.inputs[i].set(PSBT.Pair(type: PSBTField.inWitnessUtxo, value: w.out))
            }
            stripped = try PSBT(parsing: stripped.serialized())
            XCTAssertFalse(SilentPaymentPSBT.pending(stripped).isEmpty, v.description)
            var keys = [Int: SilentPaymentSender.InputKey]()
            for input in v.inputs {
                guard let hex = input["private_key"] as? String, let index = input["input_index"] as? Int else { continue }
                let script = input["prevout_scriptpubkey"] as? String ?? ""
                keys[index] = SilentPaymentSender.InputKey(key: SecureBytes(try Hex.decode(hex)), taproot: script.hasPrefix("5120"))
            }
            let contributed = try SilentPaymentPSBT.contribute(stripped, keys: keys)
            XCTAssertEqual(SilentPaymentPSBT.pending(contributed), [], v.description)
            for output in SilentPaymentPSBT.outputs(original) {
                XCTAssertEqual(
                    contributed.outputs[output.index].value(PSBTField.outScript), output.script, "\(v.description) output \(output.index)")
            }
            XCTAssertEqual(contributed.global.value(PSBTField.globalTxModifiable), [0], v.description)
            XCTAssertNoThrow(try SilentPaymentPSBT.validate(contributed), v.description)
            done += 1
        }
        XCTAssertEqual(done, 14)
    }
}

extension SilentPaymentPSBTTests {
    /// The signer's rule BIP375's validator does not make: an input key must be the one its
    /// script pays. The vectors that break it are refused by the strict check, by name.
    func testAKeyTheScriptDoesNotPayIsRefused() throws {
        let v = try XCTUnwrap(
            try vectors("valid").first { $0.description == "can finalize: two inputs single-signer using global ECDH share" })
        let psbt = try PSBT(base64: v.psbt)
        XCTAssertNoThrow(try SilentPaymentPSBT.validate(psbt, strict: false))
        XCTAssertThrowsError(try SilentPaymentPSBT.validate(psbt)) {
            XCTAssertEqual(
                $0 as? SilentPaymentPSBT.Failure,
                SilentPaymentPSBT.Failure(
                    .inputEligibility,
                    "input 0's key 02c817bb7521afc35ea96f3bfb270e6eb50ddffa5560627b961fec00f2996508bf (PSBT_IN_BIP32_DERIVATION) is not the one its script pays: outputs computed from it would be found by nobody"
                ))
        }
    }
}
