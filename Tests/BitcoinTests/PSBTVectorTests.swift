import Bitcoin
import Foundation
import SatchelTestSupport
import WalletCore
import XCTest

/// PSBTs against Bitcoin Core's machine-readable BIP174/BIP370/BIP371 vectors
/// (Tests/Fixtures/psbt: test/functional/data/rpc_psbt.json's "invalid" and the first 18 of its
/// "valid"; see the README there). Every invalid one is refused with the rule it breaks; every
/// valid one is read and written back byte for byte.
final class PSBTVectorTests: XCTestCase {
    static func lines(_ name: String) throws -> [String] {
        try String(contentsOf: TestPaths.projectFixture("psbt/" + name), encoding: .utf8).split(separator: "\n").map(String.init)
    }

    /// The error each invalid vector gets, in the file's order. What each case is (from the BIPs'
    /// lists): 1 a network transaction; 2 missing outputs; 3 a filled scriptSig; 4 no unsigned
    /// transaction; 5 duplicate keys; 6–17 a typed key with key data where none belongs or a
    /// public key of the wrong size; 18 a key length that runs past the end; 19 base64 without
    /// its padding; 20 version 1; 21–28 duplicate keys (Bitcoin Core's additions); 29–39 and 42
    /// BIP371's wrong sizes of taproot keys, signatures and control blocks (37's key runs past
    /// the end); 40 a previous transaction that is not the one spent; 41 an output index it does
    /// not have; 43–55 version 0 and 2 fields in the other version (45 has a stray "<" after its
    /// base64); 56–61 version 2 without a required field; 62–63 required lock times of the
    /// wrong kind.
    static let invalid: [(code: String, message: String)] = [
        ("psbt.not_psbt", "not a PSBT: it does not start with the magic bytes 70 73 62 74 ff (is it a raw transaction?)"),
        ("psbt.malformed", "the PSBT ends inside the output 0 map (truncated, or a map's count is wrong)"),
        ("psbt.unsigned_transaction", "PSBT_GLOBAL_UNSIGNED_TX: input 0 has a scriptSig; the unsigned transaction must have none"),
        ("psbt.missing_field", "the global map has no PSBT_GLOBAL_UNSIGNED_TX, which it requires"),
        ("psbt.duplicate_key", "the input 0 map has the key 00 twice"),
        ("psbt.invalid_key", "global PSBT_GLOBAL_UNSIGNED_TX: its key has 1 bytes of key data, and must have none"),
        ("psbt.invalid_key", "input 0 PSBT_IN_WITNESS_UTXO: its key has 1 bytes of key data, and must have none"),
        ("psbt.invalid_key", "input 0 PSBT_IN_PARTIAL_SIG: its key holds a 32-byte public key (33 or 65 bytes)"),
        ("psbt.invalid_key", "input 0 PSBT_IN_REDEEM_SCRIPT: its key has 1 bytes of key data, and must have none"),
        ("psbt.invalid_key", "input 0 PSBT_IN_WITNESS_SCRIPT: its key has 1 bytes of key data, and must have none"),
        ("psbt.invalid_key", "input 0 PSBT_IN_BIP32_DERIVATION: its key holds a 32-byte public key (33 or 65 bytes)"),
        ("psbt.invalid_key", "input 0 PSBT_IN_NON_WITNESS_UTXO: its key has 1 bytes of key data, and must have none"),
        ("psbt.invalid_key", "input 0 PSBT_IN_FINAL_SCRIPTSIG: its key has 1 bytes of key data, and must have none"),
        ("psbt.invalid_key", "input 1 PSBT_IN_FINAL_SCRIPTWITNESS: its key has 1 bytes of key data, and must have none"),
        ("psbt.invalid_key", "output 0 PSBT_OUT_BIP32_DERIVATION: its key holds a 32-byte public key (33 or 65 bytes)"),
        ("psbt.invalid_key", "input 0 PSBT_IN_SIGHASH_TYPE: its key has 1 bytes of key data, and must have none"),
        ("psbt.invalid_key", "output 0 PSBT_OUT_REDEEM_SCRIPT: its key has 1 bytes of key data, and must have none"),
        ("psbt.malformed", "the PSBT ends inside the output 1 map (truncated, or a map's count is wrong)"),
        ("psbt.not_base64", "not base64 (RFC 4648, with padding): a PSBT is carried as base64 text, or as a binary file"),
        ("psbt.unsupported_version", "PSBT version 1 is not known (0 and 2 are)"),
        ("psbt.duplicate_key", "the output 0 map has the key 01 twice"),
        ("psbt.duplicate_key", "the output 0 map has the key 00 twice"),
        ("psbt.duplicate_key", "the input 0 map has the key 01 twice"),
        ("psbt.duplicate_key", "the input 0 map has the key 03 twice"),
        ("psbt.duplicate_key", "the input 0 map has the key 04 twice"),
        ("psbt.duplicate_key", "the input 0 map has the key 05 twice"),
        ("psbt.duplicate_key", "the input 0 map has the key 07 twice"),
        ("psbt.duplicate_key", "the input 0 map has the key 08 twice"),
        ("psbt.invalid_value", "input 0 PSBT_IN_TAP_INTERNAL_KEY: its value is 33 bytes, and an x-only public key is 32"),
        ("psbt.invalid_value", "input 0 PSBT_IN_TAP_KEY_SIG: its value is 63 bytes: a BIP340 signature is 64, or 65 with a sighash byte"),
        ("psbt.invalid_value", "input 0 PSBT_IN_TAP_KEY_SIG: its value is 66 bytes: a BIP340 signature is 64, or 65 with a sighash byte"),
        ("psbt.invalid_key", "input 0 PSBT_IN_TAP_BIP32_DERIVATION: its key holds 33 bytes, and an x-only public key is 32"),
        ("psbt.invalid_value", "output 1 PSBT_OUT_TAP_INTERNAL_KEY: its value is 33 bytes, and an x-only public key is 32"),
        ("psbt.invalid_key", "output 1 PSBT_OUT_TAP_BIP32_DERIVATION: its key holds 33 bytes, and an x-only public key is 32"),
        ("psbt.invalid_key", "input 0 PSBT_IN_TAP_SCRIPT_SIG: its key data is 65 bytes, not 64"),
        (
            "psbt.invalid_value",
            "input 0 PSBT_IN_TAP_SCRIPT_SIG: its value is 66 bytes: a BIP340 signature is 64, or 65 with a sighash byte"
        ),
        ("psbt.malformed", "the PSBT ends inside the input 0 map (truncated, or a map's count is wrong)"),
        ("psbt.invalid_key", "input 0 PSBT_IN_TAP_LEAF_SCRIPT: its key is a 98-byte control block (33 + 32·m bytes, m ≤ 128)"),
        ("psbt.invalid_key", "input 0 PSBT_IN_TAP_LEAF_SCRIPT: its key is a 96-byte control block (33 + 32·m bytes, m ≤ 128)"),
        (
            "psbt.utxo_mismatch",
            "input 0: PSBT_IN_NON_WITNESS_UTXO is transaction f61b1742ca13176464adb3cb66050c00787bb3a4eead37e985f2df1e37718126, and the input spends f61b1742ca13176464adb3cb66050c00787bb3a4eead37e985f2df1e37718100"
        ),
        ("psbt.utxo_mismatch", "input 0: it spends output 33554432 of a transaction with 2"),
        ("psbt.invalid_key", "input 0 PSBT_IN_TAP_LEAF_SCRIPT: its key is a 96-byte control block (33 + 32·m bytes, m ≤ 128)"),
        ("psbt.wrong_version", "global PSBT_GLOBAL_UNSIGNED_TX is not allowed in a version 2 PSBT"),
        ("psbt.wrong_version", "global PSBT_GLOBAL_TX_VERSION is not allowed in a version 0 PSBT"),
        ("psbt.not_base64", "not base64 (RFC 4648, with padding): a PSBT is carried as base64 text, or as a binary file"),
        ("psbt.wrong_version", "global PSBT_GLOBAL_INPUT_COUNT is not allowed in a version 0 PSBT"),
        ("psbt.wrong_version", "global PSBT_GLOBAL_OUTPUT_COUNT is not allowed in a version 0 PSBT"),
        ("psbt.wrong_version", "global PSBT_GLOBAL_TX_MODIFIABLE is not allowed in a version 0 PSBT"),
        ("psbt.wrong_version", "input 0 PSBT_IN_PREVIOUS_TXID is not allowed in a version 0 PSBT"),
        ("psbt.wrong_version", "input 0 PSBT_IN_OUTPUT_INDEX is not allowed in a version 0 PSBT"),
        ("psbt.wrong_version", "input 0 PSBT_IN_SEQUENCE is not allowed in a version 0 PSBT"),
        ("psbt.wrong_version", "input 0 PSBT_IN_REQUIRED_TIME_LOCKTIME is not allowed in a version 0 PSBT"),
        ("psbt.wrong_version", "input 0 PSBT_IN_REQUIRED_HEIGHT_LOCKTIME is not allowed in a version 0 PSBT"),
        ("psbt.wrong_version", "output 0 PSBT_OUT_AMOUNT is not allowed in a version 0 PSBT"),
        ("psbt.wrong_version", "output 0 PSBT_OUT_SCRIPT is not allowed in a version 0 PSBT"),
        ("psbt.missing_field", "the global map has no PSBT_GLOBAL_INPUT_COUNT, which it requires"),
        ("psbt.missing_field", "the global map has no PSBT_GLOBAL_OUTPUT_COUNT, which it requires"),
        ("psbt.missing_field", "the input 0 map has no PSBT_IN_PREVIOUS_TXID, which it requires"),
        ("psbt.missing_field", "the input 0 map has no PSBT_IN_OUTPUT_INDEX, which it requires"),
        ("psbt.missing_field", "the output 0 map has no PSBT_OUT_AMOUNT, which it requires"),
        ("psbt.missing_field", "the output 0 map has no PSBT_OUT_SCRIPT, which it requires"),
        ("psbt.invalid_value", "input 0 PSBT_IN_REQUIRED_TIME_LOCKTIME: a time lock below 500000000 (that is a height)"),
        ("psbt.invalid_value", "input 0 PSBT_IN_REQUIRED_HEIGHT_LOCKTIME: a height lock must be from 1 to 499999999"),
    ]

    func testEveryInvalidVectorIsRefusedByTheRuleItBreaks() throws {
        let vectors = try Self.lines("rpc_psbt-invalid.txt")
        XCTAssertEqual(vectors.count, 63)
        XCTAssertEqual(vectors.count, Self.invalid.count)
        for (i, (text, expected)) in zip(vectors, Self.invalid).enumerated() {
            XCTAssertThrowsError(try PSBT(base64: text), "invalid \(i + 1)") { error in
                let e = error as? PSBTError
                XCTAssertEqual(e?.code, expected.code, "invalid \(i + 1)")
                XCTAssertEqual(e?.message, expected.message, "invalid \(i + 1)")
            }
        }
    }

    func testEveryValidVectorIsReadAndWrittenBackByteForByte() throws {
        let vectors = try Self.lines("rpc_psbt-valid.txt")
        XCTAssertEqual(vectors.count, 18)
        var previousTransactions = 0
        for (i, text) in vectors.enumerated() {
            let psbt = try PSBT(base64: text)
            XCTAssertEqual(psbt.base64, text, "valid \(i + 1)")
            XCTAssertEqual(psbt.inputs.count, psbt.transaction.inputs.count, "valid \(i + 1)")
            XCTAssertEqual(psbt.outputs.count, psbt.transaction.outputs.count, "valid \(i + 1)")
            // Previous transactions (segwit and not) are written back as they came.
            for map in psbt.inputs {
                guard let raw = map.value(PSBTField.inNonWitnessUtxo) else { continue }
                XCTAssertEqual(try BitcoinTx(parsing: raw).serialized(), raw, "valid \(i + 1)")
                previousTransactions += 1
            }
        }
        XCTAssertEqual(previousTransactions, 9)
        // The first: BIP174's own, one P2PKH input with its previous transaction.
        let first = try PSBT(base64: vectors[0])
        XCTAssertEqual(first.version, 0)
        XCTAssertEqual(Bitcoin.display(first.transaction.txid), "af2cac1e0e33d896d9d0751d66fcb2fa54b737c7a13199281fb57e4f497bb652")
        XCTAssertEqual(first.transaction.outputs.map(\.value), [99_999_699, 100_000_000])
    }

    /// Every prefix of every valid vector is refused, none crashes or reads past its end.
    func testEveryTruncationIsRefused() throws {
        for text in try Self.lines("rpc_psbt-valid.txt") {
            let bytes = Base64.decode(text)!
            for n in 0..<bytes.count {
                XCTAssertThrowsError(try PSBT(parsing: Array(bytes.prefix(n))), "\(n) of \(bytes.count)")
            }
        }
    }

    func testBase64AgainstFoundation() throws {
        var generator = SystemRandomNumberGenerator()
        for n in 0..<200 {
            let bytes = (0..<n).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = Base64.encode(bytes)
            XCTAssertEqual(text, Data(bytes).base64EncodedString())
            XCTAssertEqual(Base64.decode(text), bytes)
        }
        for bad in ["A", "AB", "ABC", "AB=C", "A===", "AB==CD==", "ABC-", "AB\n==", "AB=", "AQ=A", "AR==", "AAB="] {
            XCTAssertNil(Base64.decode(bad), bad)
        }
        XCTAssertEqual(Base64.decode(""), [])
        XCTAssertEqual(Base64.decode("AQ=="), [1])
    }
}
