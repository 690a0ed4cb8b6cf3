import Ethereum
import Foundation
import SatchelTestSupport
import WalletCore
import XCTest
import WalletCrypto

/// `EthereumTransaction.json(unsigned:)`: what a QR wallet sends to sign, read back into the
/// record sign-tx sums up. Every fixture transaction's unsigned bytes round-trip exactly; bytes
/// that are not one canonical unsigned transaction are refused.
final class UnsignedTransactionTests: XCTestCase {
    func testEveryFixtureTransactionRoundTrips() throws {
        let text = try String(contentsOf: TestPaths.projectFixture("ethereum/eth-account-vectors.jsonl"), encoding: .utf8)
        var count = 0
        for line in text.split(separator: "\n") {
            guard case .object(let doc) = try JSONParser.parse(Array(line.utf8)), case .object(let c)? = doc["case"],
                case .object(let tx)? = c["eth_tx"]
            else { continue }
            let original = try EthereumTransaction(json: tx)
            let json = try EthereumTransaction.json(unsigned: original.unsignedBytes)
            let back = try EthereumTransaction(json: json)
            XCTAssertEqual(back, original, "\(tx)")
            XCTAssertEqual(back.unsignedBytes, original.unsignedBytes)
            XCTAssertEqual(Keccak256.hash(back.unsignedBytes), original.signingHash)
            count += 1
        }
        XCTAssertEqual(count, 35)
    }

    func testRefusals() throws {
        func refused(_ hex: String) -> Bool { (try? EthereumTransaction.json(unsigned: try Hex.decode(hex))) == nil }
        let legacy = "e9808504a817c800825208943535353535353535353535353535353535353535880de0b6b3a764000080"
        // Without EIP-155's (chain id, 0, 0): replayable on every chain.
        XCTAssertTrue(refused(legacy))
        XCTAssertFalse(refused("ec" + legacy.dropFirst(2) + "018080"))
        // A nonce written with a leading zero byte (two encodings of one transaction).
        XCTAssertTrue(refused("ed" + "8100" + legacy.dropFirst(4) + "018080"))
        // Type 3 and an EIP-1559 body of the wrong length.
        XCTAssertTrue(refused("03c0"))
        XCTAssertTrue(refused("02c3010203"))
        // A signed legacy transaction is not an unsigned one.
        XCTAssertTrue(refused("ec" + legacy.dropFirst(2) + "250102"))
    }
}
