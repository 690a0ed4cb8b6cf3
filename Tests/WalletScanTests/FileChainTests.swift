import XCTest

@testable import WalletScan

/// FileChain.mustReread, which every chain's file source asks before a batch: a batch that
/// starts before what was read (a reorg against the stored chain) reads the file again, and a
/// file on stdin, which cannot be read twice, says so.
final class FileChainTests: XCTestCase {
    func testABatchBeforeWhatWasReadRereadsTheFile() throws {
        var chain = FileChain()
        XCTAssertFalse(try chain.mustReread(from: 0, holding: false, path: "-", what: "the chain"))
        XCTAssertFalse(try chain.admit(height: 5, id: [5], parent: nil))
        XCTAssertFalse(try chain.admit(height: 6, id: [6], parent: [5]))
        XCTAssertFalse(try chain.mustReread(from: 7, holding: false, path: "blocks.jsonl", what: "the chain"))
        XCTAssertTrue(try chain.mustReread(from: 6, holding: false, path: "blocks.jsonl", what: "the chain"))
        // Block 6 read ahead and held: a batch from 6 takes it, nothing is read again.
        XCTAssertFalse(try chain.mustReread(from: 6, holding: true, path: "blocks.jsonl", what: "the chain"))
        XCTAssertTrue(try chain.mustReread(from: 5, holding: true, path: "blocks.jsonl", what: "the chain"))
        XCTAssertThrowsError(try chain.mustReread(from: 6, holding: false, path: "-", what: "compact blocks")) {
            XCTAssertEqual(
                $0 as? ScanError,
                .unsupported("cannot go back in compact blocks read from stdin (a reorg against the stored chain): give --blocks a file"))
        }
    }
}
