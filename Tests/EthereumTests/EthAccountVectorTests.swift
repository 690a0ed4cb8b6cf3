import Ethereum
import Foundation
import SatchelTestSupport
import WalletCore
import WalletKeys
import XCTest
import WalletCrypto

/// Every transaction type, personal message and EIP-712 typed data in
/// Tests/Fixtures/ethereum/eth-account-vectors.jsonl, made by eth-account 0.13.7 (see its
/// README): Satchel's raw transaction, hash, v, r, s and signatures must be byte-identical (both
/// sign with RFC 6979 and low S) from the same phrase and path.
final class EthAccountVectorTests: XCTestCase {
    static let keys: [SecureBytes] = {
        let bip39 = BIP39()
        let phrase = TestPhrase.abandonAbout
        let master = try! ExtendedKey.master(
            seed: try! bip39.seed(of: try! bip39.parse(phrase, language: nil), passphrase: SecureBytes([])))
        return (0..<3).map { try! master.derive([0x8000_002C, 0x8000_003C, 0x8000_0000, 0, UInt32($0)]).privateKey! }
    }()

    static func address(_ key: SecureBytes) throws -> String {
        EIP55.encode(Array(Keccak256.hash(try Secp256k1.publicKey(of: key).uncompressed.dropFirst()).suffix(20)))
    }

    func testEveryVectorIsByteIdentical() throws {
        let lines = try String(contentsOf: TestPaths.projectFixture("ethereum/eth-account-vectors.jsonl"), encoding: .utf8).split(
            separator: "\n")
        XCTAssertEqual(lines.count, 71)
        var kinds = [String: Int]()
        for (n, line) in lines.enumerated() {
            let row = try JSONParser.parseObject(Array(line.utf8))
            guard case .object(let c)? = row["case"], case .object(let expect)? = row["expect"], case .string(let path)? = c["path"] else {
                return XCTFail("line \(n + 1)")
            }
            let key = Self.keys[Int(path.split(separator: "/").last!)!]
            XCTAssertEqual(try Self.address(key), expect["from"]?.stringValue, "line \(n + 1)")
            if case .object(let txJSON)? = c["eth_tx"] {
                let tx = try EthereumTransaction(json: txJSON)
                kinds[tx.kind.name, default: 0] += 1
                let signed = try tx.signed(with: try Secp256k1.signECDSA(hash: tx.signingHash, privateKey: key))
                XCTAssertEqual("0x" + Hex.encode(signed.raw), expect["raw"]?.stringValue, "line \(n + 1)")
                XCTAssertEqual("0x" + Hex.encode(signed.hash), expect["hash"]?.stringValue, "line \(n + 1)")
                XCTAssertEqual(String(signed.v), expect["eth_v"]?.stringValue, "line \(n + 1)")
                XCTAssertEqual("0x" + Hex.encode(signed.r), expect["r"]?.stringValue, "line \(n + 1)")
                XCTAssertEqual("0x" + Hex.encode(signed.s), expect["s"]?.stringValue, "line \(n + 1)")
                continue
            }
            let hash: [UInt8]
            if case .object(let typed)? = c["typed_data"] {
                hash = try TypedData(json: typed).hash
                kinds["typed_data", default: 0] += 1
            } else if case .string(let hex)? = c["message_hex"] {
                hash = PersonalMessage.hash(try Hex.decode(String(hex.dropFirst(2))))
                kinds["message_hex", default: 0] += 1
            } else {
                hash = PersonalMessage.hash(Array(c["message"]!.stringValue!.utf8))
                kinds["message", default: 0] += 1
            }
            XCTAssertEqual("0x" + Hex.encode(hash), expect["hash"]?.stringValue, "line \(n + 1)")
            let signature = try PersonalMessage.signature(try Secp256k1.signECDSA(hash: hash, privateKey: key))
            XCTAssertEqual("0x" + Hex.encode(signature), expect["signature"]?.stringValue, "line \(n + 1)")
        }
        // Every kind is there, several times.
        XCTAssertEqual(Set(kinds.keys), ["legacy", "eip2930", "eip1559", "typed_data", "message", "message_hex"])
        XCTAssertTrue(kinds.values.allSatisfy { $0 >= 5 }, "\(kinds)")
    }

    /// EIP-712's own example (its text gives these hashes and the signature by keccak256("cow")).
    func testTheEIP712Example() throws {
        let lines = try String(contentsOf: TestPaths.projectFixture("ethereum/eth-account-vectors.jsonl"), encoding: .utf8).split(
            separator: "\n")
        let mail = try lines.lazy.compactMap { line -> JSONObject? in
            guard case .object(let c)? = try JSONParser.parseObject(Array(line.utf8))["case"], case .object(let t)? = c["typed_data"],
                t["primaryType"] == .string("Mail")
            else { return nil }
            return t
        }.first!
        let typed = try TypedData(json: mail)
        XCTAssertEqual(typed.encodeType("Mail"), "Mail(Person from,Person to,string contents)Person(string name,address wallet)")
        XCTAssertEqual(Hex.encode(typed.domainSeparator), "f2cee375fa42b42143804025fc449deafd50cc031ca257e0b194a650a912090f")
        XCTAssertEqual(Hex.encode(typed.messageHash), "c52c0ee5d84264471806290a3f2c4cecfc5490626bf912d01f240d7a274b371e")
        XCTAssertEqual(Hex.encode(typed.hash), "be609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2")
        let cow = SecureBytes(Keccak256.hash(Array("cow".utf8)))
        let sig = try Secp256k1.signECDSA(hash: typed.hash, privateKey: cow)
        XCTAssertEqual(
            Hex.encode(try PersonalMessage.signature(sig)),
            "4355c47d63924e8a72e509b65029052eb6c299d53a04e167c5775fd466751c9d07299936d304c153f6443dfa05f40ff007d72911b6f72307f996231605b915621c"
        )
    }
}
