import Ethereum
import WalletCore
import XCTest

/// RLP against ethereum/tests RLPTests/rlptest.json @ 0d2c026ffe66d441cd357dd8beb8908c6dd74420
/// (the cases below are that file's, by name; "in" strings are their UTF-8 bytes, "#n" a big
/// integer), and the decoder's refusals of every non-canonical form.
final class RLPTests: XCTestCase {
    typealias Item = RLP.Item

    static func s(_ text: String) -> Item { .bytes(Array(text.utf8)) }
    static func n(_ text: String) -> Item { .uint(UInt256(parsing: text)!) }

    static let official: [(String, Item, String)] = [
        ("emptystring", s(""), "80"),
        ("bytestring00", .bytes([0]), "00"),
        ("bytestring01", .bytes([1]), "01"),
        ("bytestring7F", .bytes([0x7F]), "7f"),
        ("shortstring", s("dog"), "83646f67"),
        (
            "shortstring2", s("Lorem ipsum dolor sit amet, consectetur adipisicing eli"),
            "b74c6f72656d20697073756d20646f6c6f722073697420616d65742c20636f6e7365637465747572206164697069736963696e6720656c69"
        ),
        (
            "longstring", s("Lorem ipsum dolor sit amet, consectetur adipisicing elit"),
            "b8384c6f72656d20697073756d20646f6c6f722073697420616d65742c20636f6e7365637465747572206164697069736963696e6720656c6974"
        ),
        ("zero", n("0"), "80"),
        ("smallint", n("1"), "01"),
        ("smallint2", n("16"), "10"),
        ("smallint3", n("79"), "4f"),
        ("smallint4", n("127"), "7f"),
        ("mediumint1", n("128"), "8180"),
        ("mediumint2", n("1000"), "8203e8"),
        ("mediumint3", n("100000"), "830186a0"),
        ("mediumint4", n("83729609699884896815286331701780722"), "8f102030405060708090a0b0c0d0e0f2"),
        (
            "mediumint5", n("105315505618206987246253880190783558935785933862974822347068935681"),
            "9c0100020003000400050006000700080009000a000b000c000d000e01"
        ),
        ("emptylist", .list([]), "c0"),
        ("stringlist", .list([s("dog"), s("god"), s("cat")]), "cc83646f6783676f6483636174"),
        ("multilist", .list([s("zw"), .list([n("4")]), n("1")]), "c6827a77c10401"),
        (
            "shortListMax1", .list(["asdf", "qwer", "zxcv", "asdf", "qwer", "zxcv", "asdf", "qwer", "zxcv", "asdf", "qwer"].map(s)),
            "f784617364668471776572847a78637684617364668471776572847a78637684617364668471776572847a78637684617364668471776572"
        ),
        (
            "longList1", .list(Array(repeating: .list([s("asdf"), s("qwer"), s("zxcv")]), count: 4)),
            "f840" + String(repeating: "cf84617364668471776572847a786376", count: 4)
        ),
        (
            "longList2", .list(Array(repeating: .list([s("asdf"), s("qwer"), s("zxcv")]), count: 32)),
            "f90200" + String(repeating: "cf84617364668471776572847a786376", count: 32)
        ),
        ("listsoflists", .list([.list([.list([]), .list([])]), .list([])]), "c4c2c0c0c0"),
        ("listsoflists2", .list([.list([]), .list([.list([])]), .list([.list([]), .list([.list([])])])]), "c7c0c1c0c3c0c1c0"),
        (
            "dictTest1", .list((1...4).map { .list([s("key\($0)"), s("val\($0)")]) }),
            "ecca846b6579318476616c31ca846b6579328476616c32ca846b6579338476616c33ca846b6579348476616c34"
        ),
    ]

    func testOfficialVectorsEncodeAndDecode() throws {
        for (name, item, hex) in Self.official {
            XCTAssertEqual(Hex.encode(RLP.encode(item)), hex, name)
            XCTAssertEqual(try RLP.decode(try Hex.decode(hex)), item, name)
        }
        // "bigint" (2^256) is one bit more than UInt256 holds: as the bytes it is.
        let big: Item = .bytes([1] + [UInt8](repeating: 0, count: 32))
        XCTAssertEqual(Hex.encode(RLP.encode(big)), "a1010000000000000000000000000000000000000000000000000000000000000000")
    }

    /// A 1,024-byte string takes a two-byte length (the upstream "longstring2" is 1,024 bytes).
    func testLengthsAcrossTheirBoundaries() throws {
        for count in [55, 56, 255, 256, 1024, 65535, 65536] {
            let body = [UInt8](repeating: 0x61, count: count)
            let encoded = RLP.encode(.bytes(body))
            let lengthBytes = UInt256(UInt64(count)).minimalBytes
            XCTAssertEqual(
                Array(encoded.prefix(encoded.count - count)),
                count < 56 ? [0x80 + UInt8(count)] : [0xB7 + UInt8(lengthBytes.count)] + lengthBytes)
            XCTAssertEqual(try RLP.decode(encoded), .bytes(body))
        }
    }

    func testNonCanonicalFormsAreRefused() {
        let bad: [(String, String)] = [
            ("8100", "a single byte below 0x80 written as a string"),
            ("817f", "a single byte below 0x80 written as a string"),
            ("b800", "a length with a leading zero byte"),
            ("b80161", "a length under 56 written in the long form"),
            ("b90002" + String(repeating: "61", count: 2), "a length with a leading zero byte"),
            ("f800", "a length with a leading zero byte"),
            ("c3", "an item of 3 bytes runs past the end"),
            ("83646f", "an item of 3 bytes runs past the end"),
            ("8080", "1 bytes after the item"),
            ("", "the input ends where an item should start"),
            ("bf" + "ffffffffffffffff", "a length beyond the input"),
            ("c2c1", "an item of 2 bytes runs past the end"),
        ]
        for (hex, reason) in bad {
            XCTAssertThrowsError(try RLP.decode(try Hex.decode(hex)), hex) { error in
                XCTAssertEqual(error as? EthereumError, .invalidRLP(reason), hex)
            }
        }
        // Nesting is bounded: 64 lists deep is refused, not a stack overflow.
        let deep = (0..<100).reduce(Item.list([])) { inner, _ in .list([inner]) }
        XCTAssertThrowsError(try RLP.decode(RLP.encode(deep))) { error in
            XCTAssertEqual(error as? EthereumError, .invalidRLP("lists nested deeper than 64"))
        }
        let shallow = (0..<10).reduce(Item.list([])) { inner, _ in .list([inner]) }
        XCTAssertEqual(try RLP.decode(RLP.encode(shallow)), shallow)
    }
}
