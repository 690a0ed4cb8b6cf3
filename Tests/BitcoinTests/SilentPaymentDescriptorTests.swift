import Bitcoin
import WalletCore
import WalletKeys
import XCTest
import WalletCrypto

/// BIP392 sp() descriptors. BIP392 (bitcoin/bips 41f99576) has no test vectors yet: the expected
/// texts are embit's (its BIP350 bech32m and BIP380 checksum; scripts/bip392-oracle.py), for the
/// keys of "abandon … about" at m/352'/0'/0' (DeriveRecordsTests has the same keys).
final class SilentPaymentDescriptorTests: XCTestCase {
    static let scanKey = "78e7fd7d2b7a2c1456709d147021a122d2dccaafeada040cc1002083e2833b09"
    static let spendKey = "c88567742d5019d7ccc81f6e82cef8ef01997a6a3761cc9166036b580549539b"
    static let spendPublic = "02fa210b3c4a60b80dd1616f48ae53bbdf0db744b3f9083385108f81be0acb58c6"
    static let testnetScan =
        "sp([73c5da0a/352'/0'/0']tspscan1q0rnl6lft0gkpg4nsn528qgdpytfdej40atdqgrxpqqsg8c5r8vys973ppv7y5c9cphgkzm6g4efmhhcdkazt87ggxwz3pruphc9vkkxx3tpsdj)#tph337zw"
    static let mainSpend =
        "sp([73c5da0a/352'/0'/0']spspend1q0rnl6lft0gkpg4nsn528qgdpytfdej40atdqgrxpqqsg8c5r8vyu3pt8wsk4qxwhenyp7m5zemuw7qve0f4rwcwvj9nqx66cq4y48xcdu9qer)#5lme3500"
    static let mainScan =
        "sp(spscan1q0rnl6lft0gkpg4nsn528qgdpytfdej40atdqgrxpqqsg8c5r8vys973ppv7y5c9cphgkzm6g4efmhhcdkazt87ggxwz3pruphc9vkkxxhtvyag)#2z4nx9j3"
    static let origin = (
        [UInt8]([0x73, 0xC5, 0xDA, 0x0A]),
        DerivationPath([352 | DerivationPath.hardened, DerivationPath.hardened, DerivationPath.hardened])
    )

    func keys(spend: Bool) throws -> SilentPaymentKeys {
        try SilentPaymentKeys(
            scanPrivateKey: SecureBytes(Hex.decode(Self.scanKey)),
            spendPublicKey: Secp256k1.PublicKey(parsing: Hex.decode(Self.spendPublic)),
            spendPrivateKey: spend ? SecureBytes(Hex.decode(Self.spendKey)) : nil)
    }

    func testWrittenAsEmbitWritesThem() throws {
        XCTAssertEqual(
            try SilentPaymentDescriptor(keys: keys(spend: false), testnet: true, origin: Self.origin).text(spend: false), Self.testnetScan)
        XCTAssertEqual(
            try SilentPaymentDescriptor(keys: keys(spend: true), testnet: false, origin: Self.origin).text(spend: true), Self.mainSpend)
        XCTAssertEqual(try SilentPaymentDescriptor(keys: keys(spend: true), testnet: false, origin: nil).text(spend: false), Self.mainScan)
        XCTAssertThrowsError(try SilentPaymentDescriptor(keys: keys(spend: false), testnet: false, origin: nil).text(spend: true)) {
            XCTAssertEqual(
                ($0 as? SilentPaymentError)?.message,
                "not a silent payment key: spspend needs the spend private key; the keys are watch-only")
        }
    }

    func testReadBack() throws {
        for (text, testnet, spend) in [(Self.testnetScan, true, false), (Self.mainSpend, false, true), (Self.mainScan, false, false)] {
            let read = try SilentPaymentDescriptor(parsing: text)
            XCTAssertEqual(read.testnet, testnet)
            XCTAssertEqual(read.keys.scanPrivateKey.hex, Self.scanKey)
            XCTAssertEqual(Hex.encode(read.keys.spendPublicKey.compressed), Self.spendPublic)
            XCTAssertEqual(read.keys.spendPrivateKey?.hex, spend ? Self.spendKey : nil)
            XCTAssertEqual(try read.text(spend: spend), text)
        }
        // Without its checksum, and with h for hardened steps: the same keys and origin.
        let bare = try SilentPaymentDescriptor(
            parsing: String(Self.testnetScan.prefix(while: { $0 != "#" })).replacingOccurrences(of: "'", with: "h"))
        XCTAssertEqual(bare.origin?.fingerprint, Self.origin.0)
        XCTAssertEqual(bare.origin?.path, Self.origin.1)
        XCTAssertEqual(bare.keys.scanPrivateKey.hex, Self.scanKey)
    }

    /// sp(SCAN,SPEND): a WIF scan key (embit's WIF of the scan key) and the spend key in hex,
    /// WIF, or as an extended key.
    func testTwoKeyForm() throws {
        let wifMain = "L1GjghsqGebpTGHowGAbwWDbEuS6SSp1nvi3Pw8iFJVxb4jE18eS"
        let wifTest = "cRdj9csghiJ5chm5KfyjJpies8jW6tuhrxrWWMbDkR9xqokXUkNf"
        let watch = try SilentPaymentDescriptor(parsing: "sp(\(wifMain),\(Self.spendPublic))")
        XCTAssertFalse(watch.testnet)
        XCTAssertEqual(try watch.text(spend: false), Self.mainScan)
        let test = try SilentPaymentDescriptor(parsing: Descriptor.withChecksum("sp(\(wifTest),\(Self.spendPublic))")!)
        XCTAssertTrue(test.testnet)
        let spendWIF = "L3wVpZzEJza5iZJsrGdsNocC7Y5nveARTLzvP8QRPmfucrrcucUz"  // embit's, of the spend key
        XCTAssertEqual(try SilentPaymentDescriptor(parsing: "sp(\(wifMain),\(spendWIF))").keys.spendPrivateKey?.hex, Self.spendKey)
        // The spend key as BIP32 test vector 1's master xpub, one step below.
        let xpub = "xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8"
        let child = try ExtendedKey(parsing: xpub).child(0)
        XCTAssertEqual(try SilentPaymentDescriptor(parsing: "sp(\(wifMain),\(xpub)/0)").keys.spendPublicKey, child.publicKey)
    }

    func testRefusals() throws {
        let wifMain = "L1GjghsqGebpTGHowGAbwWDbEuS6SSp1nvi3Pw8iFJVxb4jE18eS"
        let spscan = String(Self.mainScan.dropFirst(3).prefix(while: { $0 != ")" }))
        let xpub = "xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8"
        let cases: [(String, String)] = [
            ("sp()", "sp() needs a key: an spscan or spspend key, or a scan key and a spend key"),
            ("sp(\(xpub))", "sp(KEY) takes an spscan or spspend key (tspscan or tspspend on test networks)"),
            ("sp(\(spscan.dropLast())q)", "its key is not bech32m: the checksum does not match (a character is wrong)"),
            ("sp(\(xpub),\(xpub))", "the two-key form's first key is the scan key, and it must be private (WIF or xprv)"),
            ("sp(\(spscan),\(spscan))", "its scan key is neither WIF, a hex public key nor an extended key"),
            (
                "sp(5KYZdUEo39z3FPrtuX2QbbwGnNP5zTd7yyr2SC1j299sBCnWjss,\(Self.spendPublic))",
                "its scan key is an uncompressed WIF key; BIP352 takes compressed keys only"
            ),
            ("sh(sp(\(spscan)))", "BIP392's descriptor is sp(KEY) or sp(SCAN,SPEND), and only at the top level"),
            ("wsh(sp(\(spscan)))", "BIP392's descriptor is sp(KEY) or sp(SCAN,SPEND), and only at the top level"),
            ("sp(\(wifMain),musig(\(Self.spendPublic),\(Self.spendPublic)))", "a musig() spend key is not supported here"),
            (
                "sp(\(wifMain),\(Self.spendPublic),\(Self.spendPublic))",
                "sp() takes one key (spscan or spspend) or two (scan, spend), not 3"
            ),
            (String(Self.mainScan.dropLast()) + "4", "its checksum is wrong (a character was mistyped)"),
            ("sp(\(wifMain),04\(String(repeating: "11", count: 64)))", "its spend key is uncompressed; BIP352 takes compressed keys only"),
        ]
        for (text, reason) in cases {
            XCTAssertThrowsError(try SilentPaymentDescriptor(parsing: text), text) { error in
                XCTAssertEqual((error as? SilentPaymentError)?.message, "not a BIP392 sp() descriptor: " + reason, text)
            }
        }
        // A version other than 0, and an sp1 address where a key belongs.
        let version1 = Bech32.encode(
            hrp: "spscan", data: [1] + (try Bech32.convertBits([UInt8](repeating: 1, count: 65), from: 8, to: 5, pad: true)),
            variant: .bech32m)
        XCTAssertThrowsError(try SilentPaymentDescriptor(parsing: "sp(\(version1))")) {
            XCTAssertEqual(
                ($0 as? SilentPaymentError)?.message,
                "not a BIP392 sp() descriptor: its key is not version 0 (q), the only one BIP392 defines")
        }
        let address = try keys(spend: false).address(testnet: false).description
        XCTAssertThrowsError(try SilentPaymentDescriptor(parsing: "sp(\(address))")) {
            XCTAssertEqual(
                ($0 as? SilentPaymentError)?.message,
                "not a BIP392 sp() descriptor: sp(KEY) takes an spscan or spspend key (tspscan or tspspend on test networks)")
        }
        XCTAssertTrue(SilentPaymentDescriptor.isClaimed(" sp(x)"))
        XCTAssertTrue(SilentPaymentDescriptor.isClaimed("sh(sp(x))"))
        XCTAssertFalse(SilentPaymentDescriptor.isClaimed("wpkh(\(xpub)/0/*)"))
    }

    /// A record's receiver: the descriptor, the hex pair, or both when they agree.
    func testRecordReceiver() throws {
        let agreed = try SilentPaymentDescriptor.receiver(
            descriptorField: Self.mainScan, scanKeyHex: Self.scanKey, spendPublicKeyHex: Self.spendPublic)
        XCTAssertEqual(agreed?.keys.scanPrivateKey.hex, Self.scanKey)
        XCTAssertEqual(agreed?.descriptor?.testnet, false)
        let pairOnly = try SilentPaymentDescriptor.receiver(
            descriptorField: "wpkh(xpub…/0/*)", scanKeyHex: Self.scanKey, spendPublicKeyHex: Self.spendPublic)
        XCTAssertNil(pairOnly?.descriptor)
        XCTAssertEqual(pairOnly.map { Hex.encode($0.keys.spendPublicKey.compressed) }, Self.spendPublic)
        XCTAssertNil(try SilentPaymentDescriptor.receiver(descriptorField: nil, scanKeyHex: nil, spendPublicKeyHex: nil))
        let otherSpend = "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"  // G
        XCTAssertThrowsError(
            try SilentPaymentDescriptor.receiver(descriptorField: Self.mainScan, scanKeyHex: Self.scanKey, spendPublicKeyHex: otherSpend)
        ) {
            XCTAssertEqual(
                ($0 as? SilentPaymentError)?.message,
                "not a silent payment key: the record's sp() descriptor and its sp_scan_key/sp_spend_public_key are different receivers")
        }
    }
}
