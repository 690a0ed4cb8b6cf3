import Foundation
import WalletCore
import XCTest
@testable import Ethereum

/// EIP-712's work per record (#42): a 142 KB typed_data with a wide type graph took 27 s,
/// because each struct instance encoded its type (and every type it uses) again. Each type is
/// now encoded once per record, and a record's values and types are bounded.
final class TypedDataWorkTests: XCTestCase {
    /// Root { items: Leaf[] }, Leaf { r0: Ref0, …, r99: Ref99 }, RefN { x: uint256 }: `leaves`
    /// instances of Leaf.
    private func wide(leaves: Int, refs: Int = 100) -> String {
        let refTypes = (0..<refs).map { #""Ref\#($0)":[{"name":"x","type":"uint256"}]"# }.joined(separator: ",")
        let leafFields = (0..<refs).map { #"{"name":"r\#($0)","type":"Ref\#($0)"}"# }.joined(separator: ",")
        let leaf = "{" + (0..<refs).map { #""r\#($0)":{"x":\#($0)}"# }.joined(separator: ",") + "}"
        return
            #"{"types":{"Root":[{"name":"items","type":"Leaf[]"}],"Leaf":[\#(leafFields)],\#(refTypes)},"primaryType":"Root","domain":{"name":"t","chainId":1},"message":{"items":[\#(Array(repeating: leaf, count: leaves).joined(separator: ","))]}}"#
    }

    private func typed(_ text: String) throws -> TypedData { try TypedData(json: try JSONParser.parseObject(Array(text.utf8))) }

    func testEachTypeIsEncodedOncePerRecord() throws {
        let text = wide(leaves: 300)
        XCTAssertGreaterThan(text.utf8.count, 140_000)
        let data = try typed(text)
        // Root, Leaf, Ref0…Ref99 and EIP712Domain: 103 encodings, not one per instance (30,300).
        XCTAssertEqual(data.typesEncoded, 103)
        // The same hash as the record's first leaf alone would give its type: the cache changes no value.
        let one = try typed(wide(leaves: 1))
        XCTAssertEqual(one.typesEncoded, 103)
        XCTAssertNotEqual(one.hash, data.hash)
        XCTAssertEqual(data.encodeType("Leaf").hasPrefix("Leaf(Ref0 r0,Ref1 r1,"), true)
    }

    /// Past 100,000 values, or 1,000 struct types, a record is refused by name.
    func testWorkIsBounded() throws {
        let many = Array(repeating: "1", count: TypedData.maxValues).joined(separator: ",")
        let big = #"{"types":{"M":[{"name":"v","type":"uint256[]"}]},"primaryType":"M","domain":{"name":"t"},"message":{"v":[\#(many)]}}"#
        XCTAssertThrowsError(try typed(big)) { error in
            XCTAssertEqual(
                (error as? EthereumError)?.message,
                "typed data message.v[99998]: is past 100000 values in one record, the most Satchel hashes (split the data, or sign it elsewhere)"
            )
        }
        let fewer = Array(repeating: "1", count: TypedData.maxValues - 10).joined(separator: ",")
        XCTAssertNoThrow(
            try typed(
                #"{"types":{"M":[{"name":"v","type":"uint256[]"}]},"primaryType":"M","domain":{"name":"t"},"message":{"v":[\#(fewer)]}}"#))
        let types = (0...TypedData.maxTypes).map { #""T\#($0)":[{"name":"x","type":"uint8"}]"# }.joined(separator: ",")
        XCTAssertThrowsError(try typed(#"{"types":{\#(types)},"primaryType":"T0","domain":{"name":"t"},"message":{"x":1}}"#)) { error in
            XCTAssertEqual((error as? EthereumError)?.message, "typed data types: defines more than 1000 struct types")
        }
    }
}
