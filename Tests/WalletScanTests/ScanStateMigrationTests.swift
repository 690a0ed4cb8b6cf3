import Foundation
import SatchelTestSupport
import Monero
import WalletCore
import XCTest
@testable import WalletScan
import MoneroScan

/// States written by 0.5.0 (Monero's column names) open in this release, renamed in place and
/// whole; the Wallet Initializer's errors speak the chain's words; its locks hold.
final class ScanStateMigrationTests: XCTestCase {
    var dir = ""
    let stateFile = "monero-mainnet-e02b404b540f3d11eb9017ee.sqlite"
    /// The fixture wallet's state id (its public keys' hash), as MoneroScanner makes it.
    let walletID = "39cbd8e9e6c03ef2b71d5c7ee8e02509"

    override func setUpWithError() throws {
        dir = try temporaryDirectory("state")
    }

    private func copyOld() throws -> String {
        let path = dir + "/" + stateFile
        try FileManager.default.copyItem(atPath: TestPaths.projectFixture("state-0.5.0/" + stateFile).path, toPath: path)
        return path
    }

    private func columns(_ db: SQLiteDatabase, _ table: String) throws -> [String] {
        try db.query("SELECT name FROM pragma_table_info('\(table)') ORDER BY cid").map { $0[0].text ?? "" }
    }

    func testAStateOf050IsRenamedAndKeepsEveryRow() throws {
        let path = try copyOld()
        let old = try SQLiteDatabase(path: path)
        XCTAssertEqual(try columns(old, "outputs")[4...7], ["major", "minor", "output_key", "key_image"])
        let oldRows = try old.query("SELECT * FROM outputs ORDER BY txid, idx")
        let oldTable = try old.query("SELECT * FROM subaddresses ORDER BY major, minor")
        old.suspend()

        let store = try ScanStateStore(path: path, walletID: walletID, birthday: 0)
        XCTAssertEqual(try store.db.query("PRAGMA user_version").first?.first?.int, 1)
        XCTAssertEqual(
            try columns(store.db, "outputs"),
            [
                "txid", "idx", "height", "amount", "account", "address_index", "output_key", "spend_tag",
                "unlock_time", "coinbase", "memo", "spent_height", "spent_txid",
            ])
        XCTAssertEqual(try columns(store.db, "address_table"), ["account", "address_index", "key"])
        XCTAssertEqual(
            try store.db.query("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'outputs_%'").map { $0[0].text },
            ["outputs_spend_tag"])
        XCTAssertEqual(try store.db.query("SELECT * FROM outputs ORDER BY txid, idx"), oldRows)
        XCTAssertEqual(try store.db.query("SELECT * FROM address_table ORDER BY account, address_index"), oldTable)
        XCTAssertEqual(oldRows.count, 9)
        XCTAssertEqual(oldTable.count, 100)
        XCTAssertEqual(try store.nextHeight, 141)
        XCTAssertEqual(try store.addresses().count, 100)
        // A spend is found by its tag in the renamed column.
        let first = try XCTUnwrap(try store.allOutputs().first?.output)
        let tag = try XCTUnwrap(first.spendTag)
        XCTAssertEqual(try store.markSpent(spendTag: tag, height: 150, txID: [UInt8](repeating: 1, count: 32))?.txID, first.txID)
        store.db.suspend()
        // Opened again: nothing more to migrate, and the spend is kept.
        let again = try ScanStateStore(path: path, walletID: walletID, birthday: 0)
        XCTAssertEqual(try again.allOutputs().filter { $0.spentHeight == 150 }.count, 1)
    }

    func testAFreshStateHasTheNewSchemaAndALaterOneIsRefused() throws {
        let fresh = try ScanStateStore(path: dir + "/new.sqlite", walletID: walletID, birthday: 5)
        XCTAssertEqual(try fresh.db.query("PRAGMA user_version").first?.first?.int, 1)
        XCTAssertEqual(try columns(fresh.db, "address_table"), ["account", "address_index", "key"])
        XCTAssertTrue(try fresh.db.query("SELECT name FROM sqlite_master WHERE name = 'subaddresses'").isEmpty)
        try fresh.db.execute("PRAGMA user_version = 2")
        fresh.db.suspend()
        XCTAssertThrowsError(try ScanStateStore(path: dir + "/new.sqlite", walletID: walletID, birthday: 5)) {
            XCTAssertEqual($0 as? ScanStateError, .newerSchema(path: dir + "/new.sqlite", version: 2))
            XCTAssertEqual(($0 as? ScanStateError)?.exitStatus, .dataError)
        }
    }

    func testInitializerSpeaksTheChainsWordsAndLocksEachWallet() throws {
        let words = WalletInitializer.ChainWords(keyRecordFields: "ufvk or uivk", blockSources: "--lightwalletd HOST:PORT")
        XCTAssertThrowsError(try WalletInitializer(birthday: 0, stateDirectory: dir + "/s", chainWords: words).resolve()) {
            // No wallet and no source: both said at once.
            XCTAssertEqual(
                ($0 as? InitializerError)?.message,
                "2 things are missing: no wallet: give --wallet NAME, or a key record on stdin (ufvk or uivk); no block source: give --lightwalletd HOST:PORT"
            )
            XCTAssertEqual(($0 as? InitializerError)?.code, "scan.missing")
            XCTAssertEqual(($0 as? InitializerError)?.exitStatus, .usage)
        }
        var initializer = WalletInitializer(
            wallets: [.init(name: nil, stateName: "w", birthday: 3)], stateDirectory: dir + "/s", chainWords: words)
        XCTAssertThrowsError(try initializer.resolve()) {
            XCTAssertEqual(($0 as? InitializerError)?.message, "no block source: give --lightwalletd HOST:PORT")
        }
        initializer.source = try MoneroFileBlockSource(
            blocksPath: TestPaths.fixture("monero-regtest/blocks.jsonl").path,
            transactionsPath: TestPaths.fixture("monero-regtest/txs.jsonl").path)
        let resolved = try initializer.resolve()
        XCTAssertEqual(resolved.wallets.map(\.statePath), [dir + "/s/w.sqlite"])
        XCTAssertEqual(resolved.wallets.map(\.birthday), [3])
        let locks = try resolved.lock()
        // A second run of the same wallet is refused while the first holds its lock (75).
        XCTAssertThrowsError(try resolved.lock()) {
            XCTAssertEqual($0 as? ScanStateError, .locked(dir + "/s/w.lock"))
            XCTAssertEqual(($0 as? ScanStateError)?.exitStatus, .tryAgain)
        }
        locks.release()
        try resolved.lock().release()
    }
}
