import Ethereum
import WalletCore
import XCTest

/// What a wrong transaction or typed-data record is told: each mistake by name, nothing signed.
final class EthereumRecordErrorTests: XCTestCase {
    static func tx(_ text: String) throws -> EthereumTransaction {
        try EthereumTransaction(json: try JSONParser.parseObject(Array(text.utf8)))
    }

    static let base = #""chainId":1,"nonce":0,"gas":21000,"to":"0xF0109fC8DF283027b6285cc889F5aA624EaC1F55","value":"1""#

    func assertRefused(_ body: String, _ expected: EthereumError, line: UInt = #line) {
        XCTAssertThrowsError(try Self.tx("{" + body + "}"), line: line) { XCTAssertEqual($0 as? EthereumError, expected, line: line) }
    }

    func testTransactionMistakes() throws {
        // gas × fee per gas past 2^256 (#42: the summary left max_fee_wei out, and signed).
        let huge = "115792089237316195423570985008687907853269984665640564039457584007913129639935"  // 2^256 − 1
        assertRefused(
            Self.base + #","maxFeePerGas":"\#(huge)","maxPriorityFeePerGas":1"#,
            .invalidField("gas", reason: "times the fee per gas is past 2^256 wei: no account can pay it"))
        assertRefused(
            Self.base + #","gasPrice":"\#(huge)""#,
            .invalidField("gas", reason: "times the fee per gas is past 2^256 wei: no account can pay it"))
        XCTAssertNoThrow(try Self.tx("{" + Self.base.replacingOccurrences(of: "21000", with: "1") + #","gasPrice":"\#(huge)"}"#))
        assertRefused(Self.base + #","gasLimit":21000,"gasPrice":1"#, .unknownField("gasLimit", allowed: EthereumTransaction.fields))
        assertRefused(
            #""nonce":0,"gas":1,"gasPrice":1"#,
            .missingField(
                "chainId", expected: "the chain id (1 for Ethereum mainnet): it keeps the transaction from being replayed on another chain")
        )
        assertRefused(Self.base, .missingField("gasPrice", expected: "the gas price in wei"))
        assertRefused(
            Self.base + #","gasPrice":1,"maxFeePerGas":2"#,
            .conflictingFields(["gasPrice", "maxFeePerGas/maxPriorityFeePerGas (EIP-1559)"]))
        assertRefused(
            Self.base + #","type":0,"gasPrice":1,"maxFeePerGas":2"#,
            .conflictingFields(["gasPrice (type 0)", "maxFeePerGas/maxPriorityFeePerGas (type 2)"]))
        assertRefused(
            Self.base + #","maxFeePerGas":2,"maxPriorityFeePerGas":3"#,
            .invalidField("maxPriorityFeePerGas", reason: "is above maxFeePerGas (EIP-1559 refuses such a transaction)"))
        assertRefused(
            Self.base + #","type":3,"gasPrice":1"#, .invalidField("type", reason: "must be 0 (legacy), 1 (EIP-2930) or 2 (EIP-1559)"))
        assertRefused(
            Self.base + #","type":0,"gasPrice":1,"accessList":[]"#,
            .conflictingFields(["accessList", "type 0 (legacy has no access list)"]))
        assertRefused(
            Self.base.replacingOccurrences(of: "F0109fC8", with: "f0109fC8") + #","gasPrice":1"#,
            .invalidField("to", reason: "fails its EIP-55 checksum (a character is mistyped); check the address"))
        assertRefused(
            Self.base.replacingOccurrences(of: "F0109fC8DF28", with: "F0109fC8DF") + #","gasPrice":1"#,
            .invalidField("to", reason: "must be a 20-byte address, not 19 bytes"))
        assertRefused(
            Self.base + #","gasPrice":1.5"#,
            .invalidField(
                "gasPrice",
                reason: "must be a whole number in decimal digits or 0x hex (no sign, fraction or exponent) below 2^256, not \"1.5\""))
        assertRefused(
            Self.base + #","gasPrice":1e9"#,
            .invalidField(
                "gasPrice",
                reason: "must be a whole number in decimal digits or 0x hex (no sign, fraction or exponent) below 2^256, not \"1e9\""))
        assertRefused(
            Self.base + #","gasPrice":"-1""#,
            .invalidField(
                "gasPrice",
                reason: "must be a whole number in decimal digits or 0x hex (no sign, fraction or exponent) below 2^256, not \"-1\""))
        assertRefused(Self.base + #","gasPrice":"0x1""# + #","data":"00""#, .invalidField("data", reason: "must start with 0x"))
        assertRefused(
            #""chainId":1,"nonce":"18446744073709551616","gas":1,"gasPrice":1"#, .invalidField("nonce", reason: "must be below 2^64"))
        assertRefused(
            #""chainId":1,"nonce":"18446744073709551615","gas":1,"gasPrice":1"#,
            .invalidField("nonce", reason: "must be below 2^64 − 1 (EIP-2681)"))
        assertRefused(
            #""chainId":0,"nonce":0,"gas":1,"gasPrice":1"#,
            .invalidField("chainId", reason: "must be from 1 to 9223372036854775771 (EIP-155, EIP-2294)"))
        assertRefused(
            Self.base + #","gasPrice":1,"accessList":[{"address":"0xF0109fC8DF283027b6285cc889F5aA624EaC1F55","storageKeys":["0x01"]}]"#,
            .invalidField("accessList[0].storageKeys[0]", reason: "must be 32 bytes, not 1"))
        assertRefused(
            #""chainId":1,"nonce":0,"gas":1,"value":"115792089237316195423570985008687907853269984665640564039457584007913129639936","gasPrice":1"#,
            .invalidField(
                "value",
                reason:
                    "must be a whole number in decimal digits or 0x hex (no sign, fraction or exponent) below 2^256, not \"115792089237316195423570985008687907853269984665640564039457584007913129639936\""
            ))
    }

    func testTypeIsInferredAsEthAccountDoes() throws {
        XCTAssertEqual(try Self.tx("{" + Self.base + #","gasPrice":1}"#).kind, .legacy)
        XCTAssertEqual(try Self.tx("{" + Self.base + #","gasPrice":1,"accessList":[]}"#).kind, .accessList)
        XCTAssertEqual(try Self.tx("{" + Self.base + #","maxFeePerGas":1,"maxPriorityFeePerGas":1}"#).kind, .dynamicFee)
        let creation = try Self.tx(#"{"chainId":1,"nonce":0,"gas":1,"gasPrice":1,"to":null}"#)
        XCTAssertNil(creation.to)
        XCTAssertEqual(creation.value, .zero)
        // The most the fees can cost: gas × price, exactly.
        XCTAssertEqual(
            try Self.tx("{" + Self.base + #","maxFeePerGas":"30000000000","maxPriorityFeePerGas":1}"#).maxFee?.description,
            "630000000000000")
    }

    func testNumbers() {
        XCTAssertEqual(UInt256(parsing: "0x")?.description, nil)
        XCTAssertEqual(UInt256(parsing: "")?.description, nil)
        XCTAssertEqual(UInt256(parsing: "0xFF")?.description, "255")
        XCTAssertEqual(UInt256(parsing: "007")?.description, "7")
        let max = "115792089237316195423570985008687907853269984665640564039457584007913129639935"
        XCTAssertEqual(UInt256(parsing: max)?.description, max)
        XCTAssertEqual(UInt256(parsing: "0x" + String(repeating: "f", count: 64))?.description, max)
        XCTAssertNil(UInt256(parsing: "0x1" + String(repeating: "0", count: 64)))
        XCTAssertEqual(UInt256(parsing: "1000000000000000000")!.decimalString(decimals: 18), "1")
        XCTAssertEqual(UInt256(parsing: "1500000000000000000")!.decimalString(decimals: 18), "1.5")
        XCTAssertEqual(UInt256(parsing: "1")!.decimalString(decimals: 18), "0.000000000000000001")
        XCTAssertEqual(UInt256.zero.decimalString(decimals: 18), "0")
        XCTAssertEqual(
            UInt256(parsing: max)!.decimalString(decimals: 18),
            "115792089237316195423570985008687907853269984665640564039457.584007913129639935")
        XCTAssertEqual(UInt256(parsing: "256")!.minimalBytes, [1, 0])
        XCTAssertEqual(UInt256.zero.minimalBytes, [])
    }

    static func typed(_ types: String, _ message: String, primary: String = "M") throws -> TypedData {
        try TypedData(
            json: try JSONParser.parseObject(
                Array(#"{"types":{\#(types)},"primaryType":"\#(primary)","domain":{"name":"t"},"message":\#(message)}"#.utf8)))
    }

    func assertTypedRefused(_ types: String, _ message: String, primary: String = "M", _ expected: EthereumError, line: UInt = #line) {
        XCTAssertThrowsError(try Self.typed(types, message, primary: primary), line: line) {
            XCTAssertEqual($0 as? EthereumError, expected, line: line)
        }
    }

    func testTypedDataMistakes() throws {
        assertTypedRefused(#""M":[{"name":"x","type":"uint8"}]"#, #"{}"#, .typedData(path: "message.x", reason: "is missing (a uint8)"))
        assertTypedRefused(
            #""M":[{"name":"x","type":"uint8"}]"#, #"{"x":256}"#,
            .typedData(path: "message.x", reason: "must be a uint8: \"message.x\" must be below 2^8"))
        assertTypedRefused(
            #""M":[{"name":"x","type":"int8"}]"#, #"{"x":-129}"#, .typedData(path: "message.x", reason: "is out of range for a int8"))
        assertTypedRefused(
            #""M":[{"name":"x","type":"int8"}]"#, #"{"x":128}"#, .typedData(path: "message.x", reason: "is out of range for a int8"))
        assertTypedRefused(
            #""M":[{"name":"x","type":"bytes4"}]"#, #"{"x":"0x0102030405"}"#,
            .typedData(path: "message.x", reason: "has 5 bytes, more than a bytes4 holds"))
        assertTypedRefused(
            #""M":[{"name":"x","type":"Foo"}]"#, #"{"x":1}"#,
            .typedData(path: "types.M.x", reason: "type \"Foo\" is neither an EIP-712 atomic type nor defined in types"))
        assertTypedRefused(
            #""M":[{"name":"x","type":"uint7"}]"#, #"{"x":1}"#,
            .typedData(path: "types.M.x", reason: "type \"uint7\" is neither an EIP-712 atomic type nor defined in types"))
        assertTypedRefused(
            #""M":[{"name":"x","type":"uint8[2]"}]"#, #"{"x":[1]}"#,
            .typedData(path: "message.x", reason: "must have 2 elements (uint8[2]), not 1"))
        assertTypedRefused(
            #""M":[{"name":"x","type":"bool"}]"#, #"{"x":"true"}"#,
            .typedData(path: "message.x", reason: "must be true or false, not a string"))
        assertTypedRefused(
            #""M":[{"name":"x","type":"bool"},{"name":"x","type":"bool"}]"#, #"{"x":true}"#,
            .typedData(path: "types.M.x", reason: "is defined twice"))
        assertTypedRefused(
            #""M":[{"name":"x","type":"bool"}]"#, #"{"x":true}"#, primary: "N",
            .typedData(path: "primaryType", reason: "\"N\" is not defined in types"))
        assertTypedRefused(
            #""M":[{"name":"p","type":"P[]"}],"P":[{"name":"a","type":"address"}]"#, #"{"p":[{"a":"0x01"}]}"#,
            .typedData(path: "message.p[0].a", reason: "\"message.p[0].a\" must be a 20-byte address, not 1 bytes"))
        // int8's extremes are in range; -128 is 0xff…80.
        let t = try Self.typed(#""M":[{"name":"x","type":"int8"}]"#, #"{"x":-128}"#)
        XCTAssertEqual(t.encodeType("M"), "M(int8 x)")
        XCTAssertEqual(Hex.encode(try TypedData.atomicWord("int8", .number("-128"))), String(repeating: "ff", count: 31) + "80")
        XCTAssertEqual(Hex.encode(try TypedData.atomicWord("int8", .string("127"))), String(repeating: "00", count: 31) + "7f")
        XCTAssertEqual(Hex.encode(try TypedData.atomicWord("int256", .number("-1"))), String(repeating: "ff", count: 32))
    }
}
