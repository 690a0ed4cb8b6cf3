import Foundation
import SatchelTestSupport
import WalletCore
import XCTest
@testable import WalletKeys
import WalletCrypto

final class BIP32VectorTests: XCTestCase {
    func testVectorsOneToFour() throws {
        let doc = try TestPaths.json(TestPaths.vector("bip32.json")) as! [String: Any]
        var checked = 0
        for case let vector as [String: Any] in doc["vectors"] as! [Any] {
            let master = try ExtendedKey.master(seed: try Hex.decodeSecret(vector["seed"] as! String))
            for case let chain as [String: String] in vector["chains"] as! [Any] {
                let path = try DerivationPath(parsing: chain["path"]!)
                let key = try master.derive(path.components)
                XCTAssertEqual(key.serialized(), chain["ext_prv"], chain["path"]!)
                XCTAssertEqual(key.neutered.serialized(), chain["ext_pub"], chain["path"]!)
                // Import and re-export both forms.
                XCTAssertEqual(try ExtendedKey(parsing: chain["ext_prv"]!).serialized(), chain["ext_prv"])
                XCTAssertEqual(try ExtendedKey(parsing: chain["ext_pub"]!).serialized(), chain["ext_pub"])
                checked += 1
            }
        }
        XCTAssertEqual(checked, 17)  // every chain of vectors 1–4
    }

    /// Public derivation of non-hardened steps equals the private path's public key.
    func testWatchOnlyDerivationMatchesPrivate() throws {
        let doc = try TestPaths.json(TestPaths.vector("bip32.json")) as! [String: Any]
        let vector = (doc["vectors"] as! [[String: Any]])[0]
        let master = try ExtendedKey.master(seed: try Hex.decodeSecret(vector["seed"] as! String))
        let account = try master.derive([DerivationPath.hardened, 1])
        let viaPublic = try account.neutered.derive([2, 1_000_000_000])
        XCTAssertEqual(viaPublic.serialized(), try account.derive([2, 1_000_000_000]).neutered.serialized())
        XCTAssertThrowsError(
            try account.neutered.derive([DerivationPath.hardened + 2], base: DerivationPath([DerivationPath.hardened, 1]))
        ) {
            XCTAssertEqual($0 as? DerivationError, .hardenedFromPublicKey(path: "m/0'/1/2'"))
        }
    }

    func testInvalidExtendedKeysOfVectorFive() throws {
        let doc = try TestPaths.json(TestPaths.vector("bip32.json")) as! [String: Any]
        let invalid = doc["invalid_extended_keys"] as! [[String: String]]
        XCTAssertEqual(invalid.count, 16)
        for entry in invalid {
            XCTAssertThrowsError(try ExtendedKey(parsing: entry["key"]!), entry["reason"]!)
        }
    }

    func testSLIP132VersionsMatchRegistry() throws {
        let doc = try TestPaths.json(TestPaths.vector("slip132.json")) as! [String: Any]
        var matched = 0
        for entry in doc["entries"] as! [[String: String]] where entry["coin"] == "Bitcoin" || entry["coin"] == "Bitcoin Testnet" {
            guard let ours = ExtendedKeyVersion.named(entry["public_prefix"]!) else { continue }
            XCTAssertEqual(String(format: "0x%08x", ours.publicVersion), entry["public_version"], entry["public_prefix"]!)
            XCTAssertEqual(String(format: "0x%08x", ours.privateVersion), entry["private_version"])
            XCTAssertEqual(ours.privatePrefix, entry["private_prefix"])
            matched += 1
        }
        XCTAssertEqual(matched, 10)
    }

    func testPathParsing() throws {
        XCTAssertEqual(try DerivationPath(parsing: "m/84h/0H/0'/1/5").description, "m/84'/0'/0'/1/5")
        XCTAssertEqual(try DerivationPath.parseRange("m/84'/0'/0'/0/0-19").count, 20)
        XCTAssertEqual(try DerivationPath.parseRange("m/0'-2'").map(\.description), ["m/0'", "m/1'", "m/2'"])
        for bad in ["84'/0", "m/", "m/01", "m/2147483648", "m/-1", "m/a", "m/0-1/2", "m/5-3", "m/1-2'x"] {
            XCTAssertThrowsError(try DerivationPath.parseRange(bad), bad)
        }
    }

    func testDescriptorChecksum() {
        // BIP380's example.
        XCTAssertEqual(Descriptor.withChecksum("raw(deadbeef)"), "raw(deadbeef)#89f8spxm")
    }
}

/// BIP44/49/84/86 vectors and the independent-oracle development set.
final class AddressVectorTests: XCTestCase {
    let bip39 = BIP39()

    private func master(_ phrase: String, _ passphrase: String = "") throws -> ExtendedKey {
        let m = try bip39.parse(phrase, language: nil)
        return try ExtendedKey.master(seed: try bip39.seed(of: m, passphrase: SecureBytes(Array(passphrase.utf8))))
    }

    private func entries(_ list: Any?) -> [String: String] {
        var out = [String: String]()
        for case let section as [String: String] in list as! [Any] {
            for (k, v) in section where k != "section" {
                out[section["section"]! + "." + k] = v.replacingOccurrences(of: " (testnet)", with: "")
            }
        }
        return out
    }

    func testBIP84And86And49Vectors() throws {
        let doc = try TestPaths.json(TestPaths.vector("bip44-49-84-86.json")) as! [String: Any]
        let root = try master(doc["mnemonic"] as! String)
        let btc = CoinNetwork.find(coin: "btc", network: "main")!, test = CoinNetwork.find(coin: "btc", network: "test")!
        let h = DerivationPath.hardened

        let v84 = entries(doc["bip84"])
        let zpub = ExtendedKeyVersion.named("zpub")!
        XCTAssertEqual(root.serialized(version: zpub), v84["root.rootpriv"])
        let account84 = try root.derive([84 + h, h, h])
        XCTAssertEqual(account84.serialized(version: zpub), v84["Account 0, root = m/84'/0'/0'.xpriv"])
        XCTAssertEqual(account84.neutered.serialized(version: zpub), v84["Account 0, root = m/84'/0'/0'.xpub"])
        let first = try account84.derive([0, 0])
        XCTAssertEqual(
            try btc.address(for: first.publicKey, script: .p2wpkh).address,
            v84["Account 0, first receiving address = m/84'/0'/0'/0/0.address"])
        XCTAssertEqual(btc.wif(first.privateKey!), v84["Account 0, first receiving address = m/84'/0'/0'/0/0.privkey"])

        let v86 = entries(doc["bip86"])
        let first86 = try root.derive([86 + h, h, h, 0, 0])
        let (address, output) = try btc.address(for: first86.publicKey, script: .p2tr)
        XCTAssertEqual(
            Hex.encode(first86.publicKey.compressed.dropFirst()), v86["Account 0, first receiving address = m/86'/0'/0'/0/0.internal_key"])
        XCTAssertEqual(output.map { Hex.encode($0) }, v86["Account 0, first receiving address = m/86'/0'/0'/0/0.output_key"])
        XCTAssertEqual(address, v86["Account 0, first receiving address = m/86'/0'/0'/0/0.address"])

        let v49 = entries(doc["bip49"])
        let uprv = ExtendedKeyVersion.named("uprv")!
        let account49 = try root.derive([49 + h, 1 + h, h])
        XCTAssertEqual(account49.serialized(version: uprv), v49["Account 0, root = m/49'/1'/0'.account0Xpriv"])
        XCTAssertEqual(account49.neutered.serialized(version: uprv), v49["Account 0, root = m/49'/1'/0'.account0Xpub"])
        let recv49 = try account49.derive([0, 0])
        XCTAssertEqual(test.wif(recv49.privateKey!), v49["Account 0, first receiving private key = m/49'/1'/0'/0/0.account0recvPrivateKey"])
        XCTAssertTrue(
            v49["addressBytes base58check encoded for testnet.address"]!.contains(
                try test.address(for: recv49.publicKey, script: .p2shP2wpkh).address))

        let v44 = doc["bip44"] as! [String: Any]
        let account44 = try root.derive([44 + h, h, h])
        XCTAssertEqual(account44.neutered.serialized(), v44["account_xpub"] as? String)
        for a in v44["addresses"] as! [[String: String]] {
            let key = try root.derive(try DerivationPath(parsing: a["path"]!).components)
            XCTAssertEqual(Hex.encode(key.publicKey.compressed), a["pubkey"])
            XCTAssertEqual(try btc.address(for: key.publicKey, script: .p2pkh).address, a["address"])
        }
    }

    /// Every case of the development oracle set: BTC in four script kinds (and their account
    /// keys), ETH, LTC, BCH.
    func testHDOracleDevelopmentSet() throws {
        let cases = try TestPaths.jsonLines(TestPaths.fixture("hd-oracle-dev.jsonl"))
        let btc = CoinNetwork.find(coin: "btc", network: "main")!
        var addressesChecked = 0
        for c in cases {
            let id = c["id"] as! String
            let root = try ExtendedKey.master(seed: try Hex.decodeSecret(c["seed"] as! String))
            let b = c["btc"] as! [String: [String: Any]]
            for (purpose, info) in b {
                let script = ScriptKind(rawValue: info["script"] as! String)!
                let accountPath = try DerivationPath(parsing: info["account_path"] as! String)
                let account = try root.derive(accountPath.components).neutered
                let keyField = ["account_xpub", "account_ypub", "account_zpub"].first { info[$0] != nil }!
                XCTAssertEqual(
                    account.serialized(version: ExtendedKeyVersion.slip132(for: script, testnet: false)), info[keyField] as? String,
                    "\(id) \(purpose)")
                for a in info["addresses"] as! [[String: String]] {
                    let path = try DerivationPath(parsing: a["path"]!)
                    // Watch-only: from the account xpub, as a server would.
                    let key = try account.derive(Array(path.components.suffix(2)))
                    XCTAssertEqual(Hex.encode(key.publicKey.compressed), a["pubkey"], "\(id) \(a["path"]!)")
                    XCTAssertEqual(try btc.address(for: key.publicKey, script: script).address, a["address"], "\(id) \(a["path"]!)")
                    addressesChecked += 1
                }
            }
            let eth = CoinNetwork.find(coin: "eth", network: "main")!
            for a in (c["eth"] as! [String: Any])["addresses"] as! [[String: String]] {
                let key = try root.derive(try DerivationPath(parsing: a["path"]!).components)
                XCTAssertEqual(try eth.address(for: key.publicKey, script: .ethereum).address, a["address"], id)
                addressesChecked += 1
            }
            let ltc = CoinNetwork.find(coin: "ltc", network: "main")!
            for a in ((c["ltc"] as! [String: Any])["bip84"] as! [String: Any])["addresses"] as! [[String: String]] {
                let key = try root.derive(try DerivationPath(parsing: a["path"]!).components)
                XCTAssertEqual(try ltc.address(for: key.publicKey, script: .p2wpkh).address, a["address"], id)
                addressesChecked += 1
            }
            let bchInfo = c["bch"] as! [String: String]
            let bch = CoinNetwork.find(coin: "bch", network: "main")!
            let bchKey = try root.derive(try DerivationPath(parsing: bchInfo["path"]!).components)
            XCTAssertEqual(try bch.address(for: bchKey.publicKey, script: .p2pkh).address, bchInfo["address"], id)
            XCTAssertEqual(bch.legacyAddress(for: bchKey.publicKey), bchInfo["legacy_address"], id)
            addressesChecked += 2
        }
        XCTAssertEqual(addressesChecked, 20 * (4 * 3 + 3 + 3 + 2))
    }
}

/// Coins without a vector file: the address must decode to the right prefix and HASH160.
final class AddressPrefixTests: XCTestCase {
    func testLegacyPrefixes() throws {
        let key = try ExtendedKey.master(seed: try Hex.decodeSecret("000102030405060708090a0b0c0d0e0f")).publicKey
        let hash = Hash.hash160(key.compressed)
        let cases: [(String, String, [UInt8], String)] = [
            ("zec", "main", [0x1C, 0xB8], "t1"), ("doge", "main", [0x1E], "D"), ("ltc", "main", [0x30], "L"),
            ("btc", "test", [0x6F], ""), ("btc", "main", [0x00], "1"),
        ]
        for (coin, network, prefix, start) in cases {
            let chain = try XCTUnwrap(CoinNetwork.find(coin: coin, network: network))
            let address = try chain.address(for: key, script: .p2pkh).address
            XCTAssertTrue(address.hasPrefix(start), "\(coin) \(address)")
            XCTAssertEqual(try Base58.decodeCheck(address), prefix + hash, coin)
        }
        let regtest = try CoinNetwork.find(coin: "btc", network: "regtest")!.address(for: key, script: .p2wpkh).address
        XCTAssertTrue(regtest.hasPrefix("bcrt1q"))
        XCTAssertEqual(try SegwitAddress.decode(regtest, hrp: "bcrt").program, hash)
        XCTAssertThrowsError(try CoinNetwork.find(coin: "doge", network: "main")!.address(for: key, script: .p2wpkh))
    }
}
