import Bitcoin
import Foundation
import SatchelTestSupport
import WalletCore
import XCTest
import WalletCrypto

/// Legacy, BIP143 and BIP341 key-path sighashes of 400 random transactions, each sighash type with
/// and without ANYONECANPAY, against python-bitcointx 1.1.5 (Tests/Fixtures/bitcoin-sighash,
/// scripts/bitcointx-oracle.py): an implementation that follows Bitcoin Core's, not Satchel's.
final class SighashTests: XCTestCase {
    func testEveryAlgorithmAndTypeAgainstPythonBitcointx() throws {
        let rows = try TestPaths.jsonLines(TestPaths.projectFixture("bitcoin-sighash/bitcointx-sighashes.jsonl"))
        XCTAssertEqual(rows.count, 400)
        var types = Set<UInt32>(), defaults = 0
        for (n, row) in rows.enumerated() {
            let tx = try BitcoinTx(parsing: try Hex.decode(row["tx"] as! String))
            XCTAssertEqual(Hex.encode(tx.serialized()), row["tx"] as? String)
            let input = row["input"] as! Int, type = UInt32(row["type"] as! Int)
            let scriptCode = try Hex.decode(row["script_code"] as! String)
            let amount = UInt64(row["amount"] as! Int)
            let prevouts = try (row["prevouts"] as! [[String: Any]]).map {
                BitcoinTx.Output(value: UInt64($0["value"] as! Int), script: try Hex.decode($0["script"] as! String))
            }
            types.insert(type)
            XCTAssertEqual(
                Hex.encode(try Sighash.legacy(tx, input: input, scriptCode: scriptCode, type: type)), row["legacy"] as? String,
                "row \(n + 1) legacy")
            XCTAssertEqual(
                Hex.encode(try Sighash.segwitV0(tx, input: input, scriptCode: scriptCode, amount: amount, type: type)),
                row["segwit_v0"] as? String, "row \(n + 1) BIP143")
            XCTAssertEqual(
                Hex.encode(try Sighash.taprootKeyPath(tx, input: input, prevouts: prevouts, type: type)), row["taproot"] as? String,
                "row \(n + 1) BIP341")
            if let expected = row["taproot_default"] as? String {
                XCTAssertEqual(
                    Hex.encode(try Sighash.taprootKeyPath(tx, input: input, prevouts: prevouts, type: Sighash.taprootDefault)), expected,
                    "row \(n + 1) DEFAULT")
                defaults += 1
            }
        }
        XCTAssertEqual(types, [0x01, 0x02, 0x03, 0x81, 0x82, 0x83])
        XCTAssertEqual(defaults, 31)
    }

    /// A transaction's shared hashes (BIP143's and BIP341's), computed once and used for every
    /// input and type, give what a fresh computation gives (which the test above holds to
    /// python-bitcointx).
    func testSharedHashesServeEveryInput() throws {
        let rows = try TestPaths.jsonLines(TestPaths.projectFixture("bitcoin-sighash/bitcointx-sighashes.jsonl"))
        var compared = 0
        for row in rows.prefix(60) {
            let tx = try BitcoinTx(parsing: try Hex.decode(row["tx"] as! String))
            let prevouts = try (row["prevouts"] as! [[String: Any]]).map {
                BitcoinTx.Output(value: UInt64($0["value"] as! Int), script: try Hex.decode($0["script"] as! String))
            }
            let code = try Hex.decode(row["script_code"] as! String)
            let shared = Sighash.Shared(tx)
            for input in tx.inputs.indices {
                for type: UInt32 in [0x01, 0x02, 0x03, 0x81, 0x82, 0x83] where type & 0x1F != Sighash.single || input < tx.outputs.count {
                    XCTAssertEqual(
                        try Sighash.segwitV0(tx, input: input, scriptCode: code, amount: 1234, type: type, shared: shared),
                        try Sighash.segwitV0(tx, input: input, scriptCode: code, amount: 1234, type: type))
                    XCTAssertEqual(
                        try Sighash.taprootKeyPath(tx, input: input, prevouts: prevouts, type: type, shared: shared),
                        try Sighash.taprootKeyPath(tx, input: input, prevouts: prevouts, type: type))
                    compared += 1
                }
            }
        }
        XCTAssertGreaterThan(compared, 300)
    }

    /// SINGLE with no output of the input's index: legacy's "hash of one" bug, BIP341's
    /// failure; refused by all three rather than signed. Unknown types too.
    func testWhatIsRefused() throws {
        let tx = BitcoinTx(
            version: 2,
            inputs: [
                .init(previousTxID: [UInt8](repeating: 1, count: 32), previousIndex: 0),
                .init(previousTxID: [UInt8](repeating: 2, count: 32), previousIndex: 1),
            ],
            outputs: [.init(value: 1000, script: [0x51])], lockTime: 0)
        let prevouts = [BitcoinTx.Output(value: 1, script: [0x51]), BitcoinTx.Output(value: 2, script: [0x51])]
        for type: UInt32 in [0x03, 0x83] {
            XCTAssertThrowsError(try Sighash.legacy(tx, input: 1, scriptCode: [], type: type)) {
                XCTAssertEqual($0 as? Sighash.Failure, .singleWithoutOutput(input: 1))
            }
            XCTAssertThrowsError(try Sighash.segwitV0(tx, input: 1, scriptCode: [], amount: 1, type: type)) {
                XCTAssertEqual($0 as? Sighash.Failure, .singleWithoutOutput(input: 1))
            }
            XCTAssertThrowsError(try Sighash.taprootKeyPath(tx, input: 1, prevouts: prevouts, type: type)) {
                XCTAssertEqual($0 as? Sighash.Failure, .singleWithoutOutput(input: 1))
            }
        }
        for type: UInt32 in [0x00, 0x04, 0x41, 0x84, 0xFF] {
            XCTAssertThrowsError(try Sighash.segwitV0(tx, input: 0, scriptCode: [], amount: 1, type: type)) {
                XCTAssertEqual($0 as? Sighash.Failure, .invalidType(type))
            }
        }
        XCTAssertThrowsError(try Sighash.taprootKeyPath(tx, input: 0, prevouts: prevouts, type: 0x04)) {
            XCTAssertEqual($0 as? Sighash.Failure, .invalidType(0x04))
        }
        XCTAssertThrowsError(try Sighash.taprootKeyPath(tx, input: 0, prevouts: [prevouts[0]], type: 0x01)) {
            XCTAssertEqual($0 as? Sighash.Failure, .missingPrevout(input: 0))
        }
    }

    /// Bitcoin Core's low-R grinding, against python-bitcointx's (which mimics Core's counter):
    /// 300 random keys and hashes, about half of which need more than one try.
    func testLowRGrindingAgainstPythonBitcointx() throws {
        let rows = try TestPaths.jsonLines(TestPaths.projectFixture("bitcoin-sighash/bitcointx-low-r-signatures.jsonl"))
        XCTAssertEqual(rows.count, 300)
        var ground = 0
        for (n, row) in rows.enumerated() {
            let key = try Hex.decodeSecret(row["private_key"] as! String), hash = try Hex.decode(row["hash"] as! String)
            let low = try Secp256k1.signECDSALowR(hash: hash, privateKey: key)
            XCTAssertEqual(Hex.encode(low.der), row["der"] as? String, "row \(n + 1)")
            XCTAssertLessThan(low.compact[0], 0x80)
            XCTAssertEqual(
                Hex.encode(try Secp256k1.signECDSA(hash: hash, privateKey: key).der), row["der_without_grinding"] as? String, "row \(n + 1)"
            )
            if row["der"] as? String != row["der_without_grinding"] as? String { ground += 1 }
        }
        XCTAssertEqual(ground, 152)
    }
}
