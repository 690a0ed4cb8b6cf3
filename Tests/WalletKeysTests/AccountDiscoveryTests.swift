import WalletCore
import WalletKeys
import XCTest
import SatchelTestSupport
import WalletCrypto

/// The address plan and BIP44 gap-limit discovery that derive and the Bitcoin scanner share.
final class AccountDiscoveryTests: XCTestCase {
    /// BIP84's test phrase ("abandon … about").
    private let master: ExtendedKey = {
        let bip39 = BIP39()
        let phrase = try! bip39.parse(
            TestPhrase.abandonAbout, language: nil)
        return try! ExtendedKey.master(seed: try! bip39.seed(of: phrase, passphrase: SecureBytes([])))
    }()
    private let h = DerivationPath.hardened

    private func p2wpkh(_ key: Secp256k1.PublicKey) -> [UInt8] { [0x00, 0x14] + Hash.hash160(key.compressed) }

    func testPlanChoosesAndRefuses() throws {
        let plan = try AddressPlan(coin: "btc", network: nil, script: .p2wpkh, coinType: nil, key: master, fromSeed: true)
        XCTAssertEqual(plan.accountPath(3).description, "m/84'/0'/3'")
        XCTAssertEqual(
            try AddressPlan(coin: "btc", network: nil, script: nil, coinType: 5, key: master, fromSeed: true).accountPath(0).description,
            "m/84'/5'/0'")
        XCTAssertEqual(
            try AddressPlan(coin: "eth", network: nil, script: nil, coinType: nil, key: master, fromSeed: true).script, .ethereum)
        // A zpub account key says p2wpkh; p2pkh contradicts it; a plain xpub account key says nothing.
        let account = try master.derive([84 + h, h, h]).neutered
        let zpub = try ExtendedKey(parsing: account.serialized(version: ExtendedKeyVersion.named("zpub")!))
        XCTAssertEqual(try AddressPlan(coin: "btc", network: nil, script: nil, coinType: nil, key: zpub, fromSeed: false).script, .p2wpkh)
        XCTAssertThrowsError(try AddressPlan(coin: "btc", network: nil, script: .p2pkh, coinType: nil, key: zpub, fromSeed: false)) {
            XCTAssertEqual($0 as? DerivationError, .unsupported("a zpub key is for p2wpkh, not p2pkh"))
        }
        XCTAssertThrowsError(try AddressPlan(coin: "btc", network: nil, script: nil, coinType: nil, key: account, fromSeed: false)) {
            XCTAssertEqual(
                $0 as? DerivationError, .unsupported("an xpub key does not say which addresses it makes: give --purpose 44, 49, 84 or 86"))
        }
        // A test-network key means btc test unless a network is given; a main one refuses test.
        let tpub = try ExtendedKey(parsing: account.serialized(version: .tpub))
        XCTAssertEqual(
            try AddressPlan(coin: "btc", network: nil, script: .p2wpkh, coinType: nil, key: tpub, fromSeed: false).chain.network, "test")
        XCTAssertThrowsError(try AddressPlan(coin: "btc", network: "test", script: .p2wpkh, coinType: nil, key: account, fromSeed: false)) {
            XCTAssertEqual($0 as? DerivationError, .unsupported("the extended key is for the main network, not btc test"))
        }
        // One vocabulary: testnet is test, mainnet is main; a network the coin lacks is named.
        XCTAssertEqual(
            try AddressPlan(coin: "btc", network: "testnet", script: nil, coinType: nil, key: master, fromSeed: true).chain.network, "test")
        XCTAssertEqual(
            try AddressPlan(coin: "ltc", network: "mainnet", script: nil, coinType: nil, key: master, fromSeed: true).chain.network, "main")
        XCTAssertThrowsError(try AddressPlan(coin: "btc", network: "stagenet", script: nil, coinType: nil, key: master, fromSeed: true)) {
            XCTAssertEqual(
                $0 as? DerivationError, .unsupported("btc has no network 'stagenet' (btc networks: main, test, signet, regtest)"))
        }
        XCTAssertThrowsError(try AddressPlan(coin: "doge", network: nil, script: .p2wpkh, coinType: nil, key: master, fromSeed: true)) {
            XCTAssertEqual($0 as? DerivationError, .unsupported("doge has no p2wpkh addresses"))
        }
    }

    /// Driven as a scanner drives it: "has this script been paid?".
    func testGapLimitEndsChainsAndAccounts() throws {
        let plan = try AddressPlan(coin: "btc", network: nil, script: .p2wpkh, coinType: nil, key: master, fromSeed: true)
        func script(_ path: [UInt32]) throws -> [UInt8] { p2wpkh(try master.derive(path).publicKey) }
        let used: Set<[UInt8]> = [
            try script([84 + h, h, h, 0, 0]), try script([84 + h, h, h, 0, 1]), try script([84 + h, h, h, 0, 5]),
            try script([84 + h, h, h, 1, 0]), try script([84 + h, h, 1 + h, 0, 3]),
        ]
        func run(gap: UInt32, maxAccounts: UInt32 = 100) throws -> (UInt32, [AccountDiscovery.Account], Int) {
            var found = [AccountDiscovery.Account](), asked = 0
            let next = try AccountDiscovery(gap: gap, maxAccounts: maxAccounts).run(
                plan, node: { try master.derive($0.components).neutered },
                isUsed: { _, _, key in
                    asked += 1
                    return used.contains(p2wpkh(key))
                }
            ) { found.append($0) }
            return (next, found, asked)
        }
        // Gap 3: 0/5 lies past 0/1 + 3 and is not seen; account 1's 0/3 is past its gap too.
        var (next, found, asked) = try run(gap: 3)
        XCTAssertEqual(next, 1)
        XCTAssertEqual(found.map(\.path.description), ["m/84'/0'/0'"])
        XCTAssertEqual(found[0].receive, .init(used: 2, nextUnused: 2))
        XCTAssertEqual(found[0].change, .init(used: 1, nextUnused: 1))
        XCTAssertEqual(asked, 5 + 4 + 3 + 3)  // account 0: 0..4 and 0..3; account 1: 0..2 twice
        // Gap 4: 0/5 is seen, and account 1 too; account 2 is empty and ends the walk.
        (next, found, asked) = try run(gap: 4)
        XCTAssertEqual(next, 2)
        XCTAssertEqual(found.map(\.number), [0, 1])
        XCTAssertEqual(found[0].receive, .init(used: 3, nextUnused: 6))
        XCTAssertEqual(found[1].receive, .init(used: 1, nextUnused: 4))
        XCTAssertEqual(found[1].change, .init(used: 0, nextUnused: 0))
        XCTAssertEqual(found[1].node.neutered.serialized(), try master.derive([84 + h, h, 1 + h]).neutered.serialized())
        // --max-accounts caps the walk even while accounts are used.
        XCTAssertEqual(try run(gap: 4, maxAccounts: 1).0, 1)
    }

    func testWalkOfOneChain() throws {
        let chain = try master.derive([84 + h, h, h, 0])
        var seen = [UInt32]()
        let usage = AccountDiscovery(gap: 2).walk(chain) { index, _ in
            seen.append(index)
            return index == 1 || index == 3
        }
        XCTAssertEqual(usage, .init(used: 2, nextUnused: 4))
        XCTAssertEqual(seen, [0, 1, 2, 3, 4, 5])
    }
}
