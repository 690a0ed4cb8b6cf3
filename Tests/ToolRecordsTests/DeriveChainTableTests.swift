import KeySources
import SatchelTestSupport
import Monero
import WalletCore
import WalletKeys
import WalletUR
import XCTest
import Zcash

@testable import DeriveRecords

/// derive's table of chains: every key a record or the key store gives has one chain that
/// derives it, asked in the table's order.
final class DeriveChainTableTests: XCTestCase {
    private func names(_ chains: [any DeriveChain.Type]) -> [String] { chains.map { String(describing: $0) } }

    func testEachKeyHasOneOwner() throws {
        let seed = SecureBytes([UInt8](repeating: 7, count: 32))
        let monero = KeySource.chain(try MoneroKeys(seed: seed))
        let bip32 = KeySource.bip32(try ExtendedKey.master(seed: seed), origin: DerivationPath(), fromSeed: true)
        let zcash = KeySource.chain(ZcashKeyMaterial.seed(seed))
        XCTAssertEqual(names(DeriveChains.all.filter { $0.owns(monero) }), ["MoneroDerive"])
        XCTAssertEqual(names(DeriveChains.all.filter { $0.owns(bip32) }), ["BIP32Derive"])
        // A lone key has no chain to derive from; a Zcash entry is claimed before any key is read.
        XCTAssertEqual(names(DeriveChains.all.filter { $0.owns(.single(seed)) }), [])
        XCTAssertEqual(names(DeriveChains.all.filter { $0.owns(zcash) }), [])
        let options = try ChainOptions.parse([])
        let records = options.recordKeys(sharedPassphrase: nil)
        let claimer = DeriveChains.claiming(JSONObject(), keys: DeriveKeys(records: records, source: zcash), options: options)
        XCTAssertEqual(claimer.map { String(describing: $0) }, "ZcashDerive")
        XCTAssertNil(DeriveChains.claiming(JSONObject(), keys: DeriveKeys(records: records, source: bip32), options: options))
    }

    /// --purpose 352 is asked first: a record silent payments take is not read as another's.
    func testSilentPaymentsAreAskedFirst() throws {
        let record = JSONObject(["mnemonic": .string(TestPhrase.abandonAbout)])
        func claimer(_ arguments: [String]) throws -> String? {
            let options = try ChainOptions.parse(arguments)
            let keys = DeriveKeys(records: options.recordKeys(sharedPassphrase: nil))
            return DeriveChains.claiming(record, keys: keys, options: options).map { String(describing: $0) }
        }
        XCTAssertEqual(try claimer(["--purpose", "352"]), "SilentPaymentDerive")
        XCTAssertNil(try claimer([]))
        XCTAssertEqual(try claimer(["--coin", "zec", "--pool", "orchard"]), "ZcashDerive")
        XCTAssertNil(try claimer(["--coin", "zec", "--pool", "transparent"]))
    }
}

/// `derive account --ur zcash-accounts` read back: what a wallet pairs by.
final class ZcashAccountsURTests: XCTestCase {
    func testPairingRecordReadsBack() throws {
        let wallet = try XCTUnwrap(TestPaths.json(TestPaths.vector("zcash/generated/wallet_abandon_art_account0.json")) as? [String: Any])
        let options = try ChainOptions.parse(["--coin", "zec", "--pool", "sapling", "--account", "0"])
        let request = AccountRequest(chainOptions: options, ur: .zcashAccounts)
        let record = try request.account(
            JSONObject(["mnemonic": .string(try XCTUnwrap(wallet["mnemonic"] as? String))]),
            keys: DeriveKeys(records: options.recordKeys(sharedPassphrase: nil)))
        guard case .single(let ur) = try URText(try XCTUnwrap(record["ur"]?.stringValue)) else { return XCTFail("a multipart UR") }
        let pairing = try ZcashUR.accounts(from: ur)
        XCTAssertEqual(Hex.encode(pairing.seedFingerprint), "e62855dc1419972e2d8fd349b740de6a67d8cf6feaafe90cf2f37a2344566ccc")
        XCTAssertEqual(pairing.accounts, [ZcashUR.Account(ufvk: try XCTUnwrap(record["ufvk"]?.stringValue), index: 0)])
        XCTAssertNil(pairing.deviceVersion)
    }
}
