import WalletCore
import WalletKeys
import XCTest
import WalletCrypto

/// Addresses read back for signature checks: each kind with the key it pays to (the
/// "abandon … about" wallet's first keys, BIP44/49/84/86 and Ethereum), and the addresses
/// that name no single key.
final class SignerAddressTests: XCTestCase {
    func key(_ hex: String) throws -> Secp256k1.PublicKey { try Secp256k1.PublicKey(parsing: try Hex.decode(hex)) }

    func testEachKindPaysToItsKey() throws {
        let bip44 = try key("03aaeb52dd7494c361049de67cc680e83ebcbbbdbeb13637d92cd845f70308af5e")
        let bip49 = try key("039b3b694b8fc5b5e07fb069c783cac754f5d38c3e08bed1960e31fdb1dda35c24")
        let bip84 = try key("0330d54fd0dd420a6e5f8d3624f5f3482cae350f79d5f0753bf5beef9c2d91af3c")
        let cases: [(String, ScriptKind, Secp256k1.PublicKey, [String])] = [
            ("1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA", .p2pkh, bip44, ["btc main", "bch main"]),
            ("37VucYSaXLCAsxYyAPfbSi9eh4iEcbShgf", .p2shP2wpkh, bip49, ["btc main", "bch main"]),
            ("bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu", .p2wpkh, bip84, ["btc main"]),
            ("BC1QCR8TE4KR609GCAWUTMRZA0J4XV80JY8Z306FYU", .p2wpkh, bip84, ["btc main"]),
        ]
        for (text, script, key, networks) in cases {
            let address = try SignerAddress(parsing: text)
            XCTAssertEqual(address.script, script, text)
            XCTAssertEqual(address.networks, networks, text)
            XCTAssertTrue(address.isPaid(to: key), text)
            for other in [bip44, bip49, bip84] where other != key { XCTAssertFalse(address.isPaid(to: other), text) }
        }
        // The same key's address on every coin and network derive writes.
        for chain in CoinNetwork.all {
            for script in chain.scripts where script != .p2tr {
                let text = try chain.address(for: bip84, script: script).address
                let address = try SignerAddress(parsing: text)
                XCTAssertEqual(address.script, script == .ethereum ? .ethereum : script, text)
                XCTAssertTrue(address.networks.contains("\(chain.coin) \(chain.network)"), text)
                XCTAssertTrue(address.isPaid(to: bip84), text)
                XCTAssertFalse(address.isPaid(to: bip44), text)
            }
        }
        let taproot = try SignerAddress(parsing: "bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr")
        XCTAssertEqual(taproot.script, .p2tr)
        XCTAssertEqual(Hex.encode(taproot.program), "a60869f0dbcf1dc659c9cecbaf8050135ea9e8cdc487053f1dc6880949dc684c")
        XCTAssertFalse(taproot.isPaid(to: bip44), "a taproot address is checked as a Schnorr key, never by ECDSA")
        let eth = try SignerAddress(parsing: "0x9858EfFD232B4033E47d90003D41EC34EcaEda94")
        XCTAssertEqual(eth.script, .ethereum)
        XCTAssertEqual(try SignerAddress(parsing: "0x9858effd232b4033e47d90003d41ec34ecaeda94"), eth)
    }

    func testAddressesThatNameNoKey() {
        let cases: [(String, String)] = [
            ("hello", "sign.unknown_address"),
            ("", "sign.unknown_address"),
            ("0x123", "sign.unknown_address"),
            ("0X9858EFFD232B4033E47D90003D41EC34ECAEDA94", "sign.unknown_address"),
            ("0x9858efFD232B4033E47d90003D41EC34EcaEda94", "sign.address_checksum"),
            ("1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabB", "sign.address_checksum"),
            ("bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyv", "sign.address_checksum"),
            ("bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3", "sign.script_address"),
            ("bitcoincash:ppm2qsznhks23z7629mms6s4cwef74vcwvn0h829pq", "sign.script_address"),
            ("bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6b", "sign.address_checksum"),
            (String(repeating: "1", count: 100), "sign.unknown_address"),
        ]
        for (text, code) in cases {
            XCTAssertThrowsError(try SignerAddress(parsing: text), text) { error in
                XCTAssertEqual((error as? SignerAddressError)?.code, code, text)
            }
        }
    }
}
