import Bitcoin
import Foundation
import DeriveRecords
import KeySources
import ScanRecords
import SigningRecords
import WalletCore
import WalletKeys
import XCTest
import WalletRecords
import WalletCrypto

/// sign-tx's PSBT summary (#42): figures that trapped or overstated.
final class PSBTSummaryTests: XCTestCase {
    static let seed = SecureBytes((0..<32).map { UInt8($0) })
    let master = try! ExtendedKey.master(seed: PSBTSummaryTests.seed)

    private func origin(_ path: String) throws -> [UInt8] {
        master.fingerprint
            + (try DerivationPath(parsing: path)).components.flatMap { c in withUnsafeBytes(of: c.littleEndian) { Array($0) } }
    }

    private func txOut(_ value: UInt64, _ script: [UInt8]) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) } + [UInt8(script.count)] + script
    }

    /// Signs with sign-tx's records; the summary record it showed first, and the signed record.
    private func sign(_ psbt: PSBT) throws -> (summary: JSONObject, signed: JSONObject) {
        let records = try PSBTRecords(options: try PSBTOptions.parse(["--coin", "btc", "--network", "test"]))
        var summary = JSONObject()
        let (signed, _) = try records.sign(psbt, record: JSONObject(), keys: try BIP32Keyring(root: master)) { summary = $0 }
        return (summary, signed)
    }

    /// sat/vB with two decimals rounded down, through 128-bit arithmetic.
    private func rate(_ fee: UInt64, _ vsize: Int) -> String {
        let hundredths = UInt64(vsize).dividingFullWidth(fee.multipliedFullWidth(by: 100)).quotient
        return String(hundredths / 100) + "." + String(format: "%02d", Int(hundredths % 100))
    }

    /// 88 strangers' inputs each claiming 21 million BTC and one of ours: a fee of 1.8·10^17
    /// satoshis, whose rate trapped (fee × 100 overflowed, exit 132).
    func testAFeeRateOfAnAbsurdFee() throws {
        let ours = try master.derive(try DerivationPath(parsing: "m/84'/1'/0'/0/0").components).publicKey.compressed
        let inputs = (0..<89).map {
            BitcoinTx.Input(previousTxID: [UInt8](repeating: UInt8($0), count: 32), previousIndex: 0, sequence: 0xFFFF_FFFD)
        }
        let tx = BitcoinTx(
            version: 2, inputs: inputs,
            outputs: [.init(value: 1_000, script: ScriptTemplate.p2wpkh([0x02] + [UInt8](repeating: 5, count: 32)))], lockTime: 0)
        var psbt = try PSBT(unsignedTransaction: tx)
        for i in 0..<88 {
            psbt.inputs[i].insertInOrder(
                PSBT.Pair(
                    type: PSBTField.inWitnessUtxo,
                    value: txOut(2_100_000_000_000_000, ScriptTemplate.p2wpkh([0x03] + [UInt8](repeating: UInt8(i), count: 32)))))
        }
        psbt.inputs[88].insertInOrder(PSBT.Pair(type: PSBTField.inWitnessUtxo, value: txOut(50_000, ScriptTemplate.p2wpkh(ours))))
        psbt.inputs[88].insertInOrder(PSBT.Pair(type: PSBTField.inBIP32Derivation, keyData: ours, value: try origin("m/84'/1'/0'/0/0")))
        let (summary, _) = try sign(psbt)
        let fee: UInt64 = 88 * 2_100_000_000_000_000 + 50_000 - 1_000
        XCTAssertEqual(summary["fee"], .string(String(fee)))
        guard case .number(let vsize)? = summary["vsize"], let size = Int(vsize) else { return XCTFail("no vsize") }
        XCTAssertEqual(summary["fee_rate"], .string(rate(fee, size)))
    }

    /// A P2PKH input of ours with an uncompressed key: its size was estimated with a 33-byte
    /// key, so the size was too small and the fee rate overstated; the estimate is now never
    /// below the signed transaction's size.
    func testAnUncompressedP2PKHKeyIsEstimatedAtItsSize() throws {
        let key = try master.derive(try DerivationPath(parsing: "m/44'/1'/0'/0/0").components).publicKey.uncompressed
        let previous = BitcoinTx(
            version: 1, inputs: [.init(previousTxID: [UInt8](repeating: 9, count: 32), previousIndex: 0)],
            outputs: [.init(value: 100_000, script: ScriptTemplate.p2pkh(Hash.hash160(key)))], lockTime: 0)
        let tx = BitcoinTx(
            version: 2, inputs: [.init(previousTxID: previous.txid, previousIndex: 0, sequence: 0xFFFF_FFFD)],
            outputs: [.init(value: 90_000, script: ScriptTemplate.p2wpkh([0x02] + [UInt8](repeating: 5, count: 32)))], lockTime: 0)
        var psbt = try PSBT(unsignedTransaction: tx)
        psbt.inputs[0].insertInOrder(PSBT.Pair(type: PSBTField.inNonWitnessUtxo, value: previous.serialized()))
        psbt.inputs[0].insertInOrder(PSBT.Pair(type: PSBTField.inBIP32Derivation, keyData: key, value: try origin("m/44'/1'/0'/0/0")))
        let (summary, signed) = try sign(psbt)
        XCTAssertEqual(summary["vsize_estimated"], .bool(true))
        guard case .number(let estimated)? = summary["vsize"], case .string(let base64)? = signed["psbt"] else {
            return XCTFail("no vsize or PSBT")
        }
        let final = try PSBTFinalizer.extract(try PSBTFinalizer.finalized(try PSBT(base64: base64)))
        XCTAssertGreaterThanOrEqual(Int(estimated)!, PSBTFinalizer.vsize(final))
        // Only the signature's largest length (73 bytes) against the low-R one made (71).
        XCTAssertLessThanOrEqual(Int(estimated)! - PSBTFinalizer.vsize(final), 2)
    }
}
