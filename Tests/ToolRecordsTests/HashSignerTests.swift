import Foundation
import SatchelTestSupport
import DeriveRecords
import KeySources
import MnemonicRecords
import ScanRecords
import SigningRecords
import WalletCore
import WalletKeys
import XCTest
import WalletRecords
import WalletCrypto

/// sign-hash's records at their library home: signing (RFC 6979 vectors, the BIP44 Ethereum key
/// of "abandon … about"), verification and recovery.
final class HashSignerTests: XCTestCase {
    private let about = JSONObject([
        "mnemonic": .string(TestPhrase.abandonAbout)
    ])
    private let reader = RecordKeys(coin: nil, accountPath: nil, sharedPassphrase: nil)

    func testSignsTheRFC6979VectorsWithARecordsOwnKey() throws {
        let doc = try TestPaths.json(TestPaths.vector("rfc6979-secp256k1.json")) as! [String: Any]
        for v in doc["vectors"] as! [[String: Any]] {
            let record = JSONObject([
                "hash": .string(v["sha256"] as! String), "private_key": .string(v["private_key"] as! String), "id": .number("7"),
            ])
            let out = try HashSigner().sign(record, reader: reader, runSource: nil)
            XCTAssertEqual(out["signature"]?.stringValue, (v["r"] as! String) + (v["s"] as! String))
            XCTAssertEqual(out["recovery_id"], .number(String(v["recovery_id"] as! Int)))
            XCTAssertEqual(out["eth_v"], .number(String(27 + (v["recovery_id"] as! Int))))
            XCTAssertEqual(out["der"]?.stringValue, v["der"] as? String)
            XCTAssertEqual(out["public_key"]?.stringValue, v["public_key"] as? String)
            XCTAssertNil(out["private_key"], "the key is not passed through")
            XCTAssertEqual(out["id"], .number("7"))
            XCTAssertEqual(try HashSignatures.verify(out, address: nil)["valid"], .bool(true))
        }
    }

    func testRunKeyPathsEIP155AndRecovery() throws {
        var scratch = about
        let source = try reader.source(about, out: &scratch)
        let signer = HashSigner(path: "m/44h/60h/0h/0/0", chainId: 1)
        let out = try signer.sign(
            JSONObject(["hash": .string("0x" + String(repeating: "ab", count: 32))]), reader: reader, runSource: source)
        XCTAssertEqual(out["path"]?.stringValue, "m/44'/60'/0'/0/0")
        let id = try HashSignatures.recoveryID(out)
        XCTAssertEqual(out["eth_v"], .number(String(37 + id)))
        XCTAssertEqual(try HashSignatures.recover(out, coin: "eth")["address"]?.stringValue, "0x9858EfFD232B4033E47d90003D41EC34EcaEda94")
        XCTAssertEqual(try HashSignatures.verify(out, address: "0x9858effd232b4033e47d90003d41ec34ecaeda94")["valid"], .bool(true))
        XCTAssertThrowsError(try HashSignatures.verify(out, address: "0x0000000000000000000000000000000000000001")) {
            XCTAssertEqual($0 as? SignatureError, .verificationFailed)
        }
        // A key in the record and a run key: refused, not guessed.
        var both = about
        both["hash"] = .string(String(repeating: "ab", count: 32))
        XCTAssertThrowsError(try signer.sign(both, reader: reader, runSource: source)) {
            XCTAssertEqual($0 as? RecordError, .conflictingFields(["a key in the record", "--key-file/--key-fd/--wallet"]))
        }
        XCTAssertThrowsError(try signer.sign(JSONObject(["hash": .string("abcd")]), reader: reader, runSource: source)) {
            XCTAssertEqual($0 as? SignatureError, .invalidHashLength(2))
        }
    }

    func testRecoveryIDFromEthereumsV() throws {
        XCTAssertEqual(try HashSignatures.recoveryID(JSONObject(["v": .number("28")])), 1)
        XCTAssertEqual(try HashSignatures.recoveryID(JSONObject(["eth_v": .number("38")])), 1)
        XCTAssertEqual(try HashSignatures.recoveryID(JSONObject(["recovery_id": .number("0"), "eth_v": .number("38")])), 0)
        XCTAssertThrowsError(try HashSignatures.recoveryID(JSONObject(["v": .number("1")]))) {
            XCTAssertEqual(($0 as? RecordError)?.code, "record.missing_field")
        }
        XCTAssertThrowsError(try HashSignatures.recoveryID(JSONObject(["eth_v": .number("30")]))) {
            XCTAssertEqual($0 as? RecordError, .invalidField(field: "eth_v", reason: "must be 27, 28 or an EIP-155 value (≥ 35)"))
        }
    }
}

/// mnemonic's records at their library home.
final class PhraseRecordsTests: XCTestCase {
    func testFromEntropyAndSeedFollowBIP39() throws {
        let handler = MnemonicSchemes.handler(for: .bip39)
        let out = try PhraseRecords.fromEntropy(
            JSONObject(["entropy": .string("9e885d952ad362caeb4efe34a8e91bd2")]), handler: handler, language: "english", byteCount: 32)
        XCTAssertEqual(out["mnemonic"]?.stringValue, "ozone drill grab fiber curtain grace pudding thank cruise elder eight picnic")
        XCTAssertNil(out["warning"])
        let weak = try PhraseRecords.fromEntropy(
            JSONObject(["entropy": .string(String(repeating: "00", count: 16))]), handler: handler, language: "english", byteCount: 32)
        XCTAssertEqual(
            weak["warning"]?.stringValue, "weak entropy: the entropy is one repeated byte; anyone can find this phrase, never fund it")
        let dice = try PhraseRecords.fromEntropy(
            JSONObject(["dice": .string(String(repeating: "1", count: 64))]), handler: handler, language: "english", byteCount: 16)
        XCTAssertEqual(dice["dice_rolls_used"], .number("64"))
        XCTAssertEqual(dice["entropy"]?.stringValue, String(repeating: "00", count: 16))
        XCTAssertThrowsError(
            try PhraseRecords.fromEntropy(
                JSONObject(["dice": .string("1"), "coins": .string("H")]), handler: handler, language: "english", byteCount: 16)
        ) {
            XCTAssertEqual($0 as? RecordError, .conflictingFields(["dice", "coins"]))
        }
        // Trezor's vector, with passphrase TREZOR.
        let seed = try PhraseRecords.seed(
            JSONObject(["mnemonic": out["mnemonic"]!, "passphrase": .string("TREZOR")]), options: SchemeOptions.parse([]),
            sharedPassphrase: nil)
        XCTAssertEqual(
            seed["seed"]?.stringValue,
            "274ddc525802f7c828d8ef7ddbcdc5304e87ac3535913611fbbfa986d0c9e5476c91689f9c8a54fd55bd38606aa6a8595ad213d4c9c9f9aca3fb217069a41028"
        )
        XCTAssertNil(seed["passphrase"])
        XCTAssertEqual(seed["type"]?.stringValue, "seed")
    }
}

/// keystore's public listing of an entry: nothing secret in it.
final class KeyStoreListingTests: XCTestCase {
    func testListing() throws {
        let record = JSONObject(["mnemonic": .string(TestPhrase.legalWinner)])
        let entry = try KeyStoreRecords.entry(from: record, name: "w", birthdays: ["xmr": 5], passphraseProtected: true, now: 1_700_000_000)
        let listed = KeyStoreRecords.listing(entry.metadata)
        XCTAssertEqual(
            String(decoding: JSONWriter.line(listed), as: UTF8.self),
            #"{"type":"entry","name":"w","kind":"bip39-mnemonic","created":1700000000,"birthdays":{"xmr":5},"language":"english","passphrase_protected":true}"#
                + "\n")
    }
}
