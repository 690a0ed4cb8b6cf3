import DeriveRecords
import KeySources
import ScanRecords
import WalletCore
import WalletKeys
import XCTest
import WalletRecords

/// What a key record says of its key, and how a typed line becomes a record.
final class KeyRecordTests: XCTestCase {
    let zpub = "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs"

    func testClaimsOfAnAccountRecord() throws {
        let record = try JSONParser.parseObject(
            Array(#"{"type":"account","coin":"btc","network":"main","script":"p2wpkh","zpub":"\#(zpub)"}"#.utf8))
        XCTAssertEqual(try KeyRecordClaims(record: record), KeyRecordClaims(coin: "btc", network: "main", script: .p2wpkh))
        // A phrase or a seed claims nothing: the options choose the coin.
        let phrase = try JSONParser.parseObject(Array(#"{"mnemonic":"abandon","coin":"btc","script":"p2wpkh"}"#.utf8))
        XCTAssertEqual(try KeyRecordClaims(record: phrase), KeyRecordClaims())
        let bad = try JSONParser.parseObject(Array(#"{"xpub":"x","script":"p2wsh"}"#.utf8))
        XCTAssertThrowsError(try KeyRecordClaims(record: bad)) { XCTAssertEqual(($0 as? RecordError)?.code, "record.invalid_field") }

        let show = { (s: String) in s }
        XCTAssertEqual(try KeyRecordClaims.resolve("coin", record: "btc", option: nil, written: { "--coin \($0)" }, shown: show), "btc")
        XCTAssertEqual(try KeyRecordClaims.resolve("coin", record: nil, option: "ltc", written: { "--coin \($0)" }, shown: show), "ltc")
        XCTAssertEqual(try KeyRecordClaims.resolve("coin", record: "btc", option: "btc", written: { "--coin \($0)" }, shown: show), "btc")
        XCTAssertNil(try KeyRecordClaims.resolve("coin", record: nil as String?, option: nil, written: { "--coin \($0)" }, shown: show))
        XCTAssertThrowsError(try KeyRecordClaims.resolve("coin", record: "btc", option: "ltc", written: { "--coin \($0)" }, shown: show)) {
            XCTAssertEqual($0 as? DerivationError, .conflictsWithRecord(field: "coin", record: "btc", option: "--coin ltc"))
        }
    }

    func testRecordKeysRefuseAnAccountPathThatContradictsTheRecord() throws {
        let record = try JSONParser.parseObject(Array(#"{"zpub":"\#(zpub)","path":"m/84'/0'/0'"}"#.utf8))
        var out = record
        guard
            case .bip32(_, let origin, false) = try RecordKeys(coin: nil, accountPath: nil, sharedPassphrase: nil).source(record, out: &out)
        else {
            return XCTFail("not an imported key")
        }
        XCTAssertEqual(origin?.description, "m/84'/0'/0'")
        XCTAssertNoThrow(try RecordKeys(coin: nil, accountPath: "m/84h/0h/0h", sharedPassphrase: nil).source(record, out: &out))
        XCTAssertThrowsError(try RecordKeys(coin: nil, accountPath: "m/84h/0h/1h", sharedPassphrase: nil).source(record, out: &out)) {
            XCTAssertEqual(
                $0 as? DerivationError, .conflictsWithRecord(field: "path", record: "m/84'/0'/0'", option: "--account-path m/84'/0'/1'"))
        }
    }

    func testTypedLines() {
        func record(_ line: String) -> JSONObject? { PhraseLine.record(Array(line.utf8)) }
        XCTAssertEqual(record("  \(zpub)\r"), JSONObject(["extended_key": .string(zpub)]))
        XCTAssertEqual(record("abandon abandon about"), JSONObject(["mnemonic": .string("abandon abandon about")]))
        XCTAssertEqual(record("uview1abc"), JSONObject(["ufvk": .string("uview1abc")]))
        XCTAssertEqual(record("uivk1abc"), JSONObject(["uivk": .string("uivk1abc")]))
        XCTAssertEqual(record("zxviews1abc"), JSONObject(["extended_full_viewing_key": .string("zxviews1abc")]))
        // A word that merely starts like a key is a phrase word; "xpub" alone is no key.
        XCTAssertEqual(record("xpub"), JSONObject(["mnemonic": .string("xpub")]))
        XCTAssertEqual(record("\(zpub) extra"), JSONObject(["mnemonic": .string("\(zpub) extra")]))
        XCTAssertNil(record(#"{"xpub":"x"}"#))
    }
}
