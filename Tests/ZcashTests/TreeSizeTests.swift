import WalletCore
import WalletScan
import XCTest
@testable import Zcash
@testable import ZcashScan

/// A block's note-commitment tree sizes against its parent's (issue 21, point 4): each tree
/// grows by exactly the block's leaves; a parent size of 0 checks nothing.
final class TreeSizeTests: XCTestCase {
    private func block(height: UInt64, sapling: UInt32?, orchard: UInt32, outputs: Int, actions: Int) throws -> ZcashCompactBlock {
        var wire = WireCompactBlock()
        wire.height = height
        wire.hash = Data(repeating: 1, count: 32)
        wire.prevHash = Data(repeating: 2, count: 32)
        if let sapling {
            wire.chainMetadata.saplingCommitmentTreeSize = sapling
            wire.chainMetadata.orchardCommitmentTreeSize = orchard
        }
        var tx = WireCompactTx()
        tx.txid = Data(repeating: 3, count: 32)
        tx.outputs = (0..<outputs).map { _ in
            var o = WireCompactSaplingOutput()
            o.cmu = Data(repeating: 4, count: 32)
            o.ephemeralKey = Data(repeating: 5, count: 32)
            o.ciphertext = Data(repeating: 6, count: 52)
            return o
        }
        tx.actions = (0..<actions).map { i in
            var a = WireCompactOrchardAction()
            a.nullifier = Data([UInt8(i)] + [UInt8](repeating: 7, count: 31))  // each its own: a repeat is refused
            a.cmx = Data(repeating: 8, count: 32)
            a.ephemeralKey = Data(repeating: 9, count: 32)
            a.ciphertext = Data(repeating: 10, count: 52)
            return a
        }
        wire.vtx = [tx]
        return try ZcashCompactBlock.from(wire, expectedHeight: Int(height))
    }

    func testEachTreeGrowsByTheBlocksLeaves() throws {
        let parent = try XCTUnwrap(try block(height: 9, sapling: 100, orchard: 7, outputs: 0, actions: 0).tally)
        XCTAssertEqual(parent, [100, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0])
        XCTAssertNil(try block(height: 10, sapling: 103, orchard: 9, outputs: 3, actions: 2).contradiction(parentTally: parent))
        let saplingOff = try block(height: 10, sapling: 104, orchard: 9, outputs: 3, actions: 2).contradiction(parentTally: parent)
        XCTAssertEqual(
            saplingOff,
            "it says its Sapling note-commitment tree size is 104, but block 9 ended at 100 and this block adds 3 outputs (103 expected): the tree sizes are inconsistent, and notes would get wrong nullifiers"
        )
        let orchardOff = try block(height: 10, sapling: 103, orchard: 8, outputs: 3, actions: 2).contradiction(parentTally: parent)
        XCTAssertEqual(
            orchardOff,
            "it says its Orchard note-commitment tree size is 8, but block 9 ended at 7 and this block adds 2 actions (9 expected): the tree sizes are inconsistent, and notes would get wrong nullifiers"
        )
        XCTAssertNotNil(try block(height: 10, sapling: nil, orchard: 0, outputs: 0, actions: 0).contradiction(parentTally: parent))
        // Sizes of 0 before: the empty tree, or an old cache's "unknown"; nothing to check.
        XCTAssertNil(
            try block(height: 10, sapling: 50, orchard: 0, outputs: 3, actions: 0).contradiction(parentTally: [0, 0, 0, 0, 0, 0, 0, 0]))
        XCTAssertNotNil(try block(height: 10, sapling: 50, orchard: 0, outputs: 3, actions: 0).contradiction(parentTally: [1, 2, 3]))
        XCTAssertNil(try block(height: 10, sapling: nil, orchard: 0, outputs: 3, actions: 0).tally)
    }

    /// A transaction with no fields but its txid, and an action's body (Ironwood actions are
    /// Orchard-shaped), both serialized; the action's nullifier begins with `first`.
    private func ironwoodParts(_ first: UInt8 = 7) throws -> (tx: [UInt8], action: [UInt8]) {
        var tx = WireCompactTx()
        tx.txid = Data(repeating: 3, count: 32)
        var action = WireCompactOrchardAction()
        action.nullifier = Data([first] + [UInt8](repeating: 7, count: 31))
        action.cmx = Data(repeating: 8, count: 32)
        action.ephemeralKey = Data(repeating: 9, count: 32)
        action.ciphertext = Data(repeating: 10, count: 52)
        return (try tx.serializedBytes(), try action.serializedBytes())
    }

    /// Ironwood's tree size (ChainMetadata field 3, NU6.3's) is read
    /// in both forms and grows by the block's Ironwood actions as the others do; a state
    /// stored before it was counted (8 bytes) reads its parent size as unknown.
    func testIronwoodTreeSize() throws {
        func ironwoodBlock(height: UInt64, size: UInt32, actions: Int) throws -> ZcashCompactBlock {
            var wire = WireCompactBlock()
            wire.height = height
            wire.hash = Data(repeating: 1, count: 32)
            wire.prevHash = Data(repeating: 2, count: 32)
            wire.chainMetadata.saplingCommitmentTreeSize = 100
            wire.chainMetadata.orchardCommitmentTreeSize = 7
            wire.chainMetadata = try WireChainMetadata(
                serializedBytes: try wire.chainMetadata.serializedBytes() + [0x18] + varintBytes(UInt64(size)))
            let tx = try ironwoodParts().tx
            let bodies = try (0..<actions).map { try ironwoodParts(UInt8($0)).action }
            wire.vtx = [try WireCompactTx(serializedBytes: tx + bodies.flatMap { [0x4A] + varintBytes(UInt64($0.count)) + $0 })]
            return try ZcashCompactBlock.parse(try wire.serializedBytes(), expectedHeight: Int(height))
        }
        let parent = try XCTUnwrap(try ironwoodBlock(height: 9, size: 40, actions: 0).tally)
        XCTAssertEqual(parent, [100, 0, 0, 0, 7, 0, 0, 0, 40, 0, 0, 0])
        let child = try ironwoodBlock(height: 10, size: 42, actions: 2)
        XCTAssertEqual(child.ironwoodActionCount, 2)
        XCTAssertNil(child.contradiction(parentTally: parent))
        XCTAssertEqual(
            try ironwoodBlock(height: 10, size: 43, actions: 2).contradiction(parentTally: parent),
            "it says its Ironwood note-commitment tree size is 43, but block 9 ended at 40 and this block adds 2 Ironwood actions (42 expected): the tree sizes are inconsistent, and notes would get wrong nullifiers"
        )
        XCTAssertNil(try ironwoodBlock(height: 10, size: 43, actions: 2).contradiction(parentTally: Array(parent.prefix(8))))
        // The JSON form: the same field, and a size past 32 bits refused.
        func fromJSON(_ size: String) throws -> ZcashCompactBlock {
            let record = try JSONParser.parseObject(
                Array(
                    #"{"height":5,"hash":"\#(String(repeating: "01", count: 32))","prevHash":"\#(String(repeating: "02", count: 32))","chainMetadata":{"saplingCommitmentTreeSize":100,"orchardCommitmentTreeSize":7,"ironwoodCommitmentTreeSize":\#(size)}}"#
                        .utf8))
            return try ZcashCompactBlock.parse(try WireCompactBlock(record: record).serializedBytes(), expectedHeight: 5)
        }
        XCTAssertEqual(try fromJSON("42").ironwoodTreeSize, 42)
        XCTAssertEqual(try fromJSON("42").tally, [100, 0, 0, 0, 7, 0, 0, 0, 42, 0, 0, 0])
        XCTAssertThrowsError(try fromJSON("4294967296"))
    }

    /// Ironwood actions (CompactTx field 9, NU6.3's) are read in the binary and the JSON form
    /// alike, beside an unknown field (which is skipped, and counted in `unreadParts`: once per
    /// transaction that has one, once for the block or its metadata); a JSON key this
    /// version does not know counts as an unknown field does.
    func testIronwoodActionsAreCounted() throws {
        var bytes = try ironwoodParts().tx
        for i in 0..<2 {
            let body = try ironwoodParts(UInt8(i)).action
            XCTAssertEqual(body.count, 156)
            bytes += [0x4A, 0x9C, 0x01] + body  // field 9, length 156 as a varint
        }
        bytes += [0x50, 0x05]  // an unknown varint field (10) is skipped
        var wire = WireCompactBlock()
        wire.height = 5
        wire.hash = Data(repeating: 1, count: 32)
        wire.prevHash = Data(repeating: 2, count: 32)
        wire.vtx = [try WireCompactTx(serializedBytes: bytes)]
        let block = try ZcashCompactBlock.parse(try wire.serializedBytes(), expectedHeight: 5)
        XCTAssertEqual(block.transactions.first?.ironwoodActions.count, 2)
        XCTAssertEqual(block.transactions.first?.actions.count, 0)
        XCTAssertEqual(block.unreadParts, 1)
        // Their nullifiers spend Ironwood notes only: the tag carries the pool's byte.
        XCTAssertEqual(block.transactions.first?.spendTags, (0..<2).map { [UInt8($0)] + [UInt8](repeating: 7, count: 31) + [0x03] })
        let record = try JSONParser.parseObject(
            Array(
                #"{"height":5,"hash":"\#(String(repeating: "01", count: 32))","prevHash":"\#(String(repeating: "02", count: 32))","vtx":[{"txid":"\#(String(repeating: "03", count: 32))","ironwoodActions":[{"nullifier":"\#(String(repeating: "07", count: 32))","cmx":"\#(String(repeating: "08", count: 32))","ephemeralKey":"\#(String(repeating: "09", count: 32))","ciphertext":"\#(String(repeating: "0a", count: 52))"}]}]}"#
                    .utf8))
        let fromJSON = try ZcashCompactBlock.parse(try WireCompactBlock(record: record).serializedBytes(), expectedHeight: 5)
        XCTAssertEqual(fromJSON.transactions.first?.ironwoodActions.count, 1)
        XCTAssertEqual(fromJSON.unreadParts, 0)
        // Unknown keys: in a transaction, and in the block itself.
        var tx = try XCTUnwrap(record["vtx"].flatMap { if case .array(let a) = $0, case .object(let t)? = a.first { t } else { nil } })
        tx["futurePoolActions"] = .array([])
        var unknown = record
        // The second transaction's action another nullifier: one repeated in a block is refused.
        var second = tx
        second["ironwoodActions"] = try JSONParser.parse(
            Array(
                #"[{"nullifier":"\#(String(repeating: "08", count: 32))","cmx":"\#(String(repeating: "08", count: 32))","ephemeralKey":"\#(String(repeating: "09", count: 32))","ciphertext":"\#(String(repeating: "0a", count: 52))"}]"#
                    .utf8))
        unknown["vtx"] = .array([.object(tx), .object(second)])
        XCTAssertEqual(
            try ZcashCompactBlock.parse(try WireCompactBlock(record: unknown).serializedBytes(), expectedHeight: 5).unreadParts, 2)
        unknown["futureMetadata"] = .number("1")
        let both = try ZcashCompactBlock.parse(try WireCompactBlock(record: unknown).serializedBytes(), expectedHeight: 5)
        XCTAssertEqual(both.unreadParts, 3)
        XCTAssertEqual(both.transactions.count, 2)
        XCTAssertEqual(both.transactions.first?.ironwoodActions.count, 1)
    }
}
