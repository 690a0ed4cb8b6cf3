import WalletCore
import WalletKeys
import XCTest
import SatchelTestSupport
import WalletCrypto

/// Account descriptors as scan-blocks takes them, on BIP84's and BIP86's test phrase: the key,
/// its origin, the chains, the checksum, and what is refused.
final class AccountDescriptorTests: XCTestCase {
    private let master: ExtendedKey = {
        let bip39 = BIP39()
        let phrase = try! bip39.parse(
            TestPhrase.abandonAbout, language: nil)
        return try! ExtendedKey.master(seed: try! bip39.seed(of: phrase, passphrase: SecureBytes([])))
    }()
    private let h = DerivationPath.hardened

    private func account(_ purpose: UInt32) throws -> ExtendedKey { try master.derive([purpose + h, h, h]).neutered }

    /// The first receive address BIP84 and BIP86 give for this phrase, from the parsed key.
    func testTheOfficialFirstAddresses() throws {
        let wpkh = try AccountDescriptor(parsing: "wpkh([73c5da0a/84'/0'/0']\(try account(84).serialized())/<0;1>/*)")
        XCTAssertEqual(wpkh.script, .p2wpkh)
        XCTAssertEqual(wpkh.chains, [0, 1])
        XCTAssertEqual(wpkh.origin?.fingerprint, [0x73, 0xC5, 0xDA, 0x0A])
        XCTAssertEqual(wpkh.origin?.path.description, "m/84'/0'/0'")
        let first = try wpkh.key.child(0).child(0).publicKey
        XCTAssertEqual(
            SegwitAddress.encode(hrp: "bc", version: 0, program: Hash.hash160(first.compressed)),
            "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu")

        let tr = try AccountDescriptor(parsing: "tr([73c5da0a/86h/0h/0h]\(try account(86).serialized())/0/*)")
        XCTAssertEqual(tr.script, .p2tr)
        XCTAssertEqual(tr.chains, [0])
        let output = try tr.key.child(0).child(0).publicKey.taprootOutputKey()
        XCTAssertEqual(
            SegwitAddress.encode(hrp: "bc", version: 1, program: output), "bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr")
    }

    func testFormsOriginsAndChecksums() throws {
        let xpub = try account(49).serialized()
        let nested = try AccountDescriptor(parsing: "sh(wpkh(\(xpub)/1/*))")
        XCTAssertEqual(nested.script, .p2shP2wpkh)
        XCTAssertEqual(nested.chains, [1])
        XCTAssertNil(nested.origin)
        XCTAssertEqual(nested.key.publicKey, try account(49).publicKey)
        // Steps after the xpub are part of the account key; the origin then covers them.
        let depth2 = try master.derive([44 + h, h]).neutered
        let stepped = try AccountDescriptor(parsing: "pkh([73c5da0a/44'/0']\(depth2.serialized())/7/0/*)")
        XCTAssertEqual(stepped.key.publicKey, try depth2.child(7).publicKey)
        XCTAssertEqual(stepped.origin?.path.description, "m/44'/0'/7")
        // A checksum is checked when given.
        let body = "wpkh(\(try account(84).serialized())/0/*)"
        let summed = try XCTUnwrap(Descriptor.withChecksum(body))
        XCTAssertEqual(try AccountDescriptor(parsing: summed).key.publicKey, try account(84).publicKey)
        var typo = Array(summed)
        typo[typo.count - 1] = typo[typo.count - 1] == "q" ? "p" : "q"
        XCTAssertThrowsError(try AccountDescriptor(parsing: String(typo))) {
            XCTAssertEqual(
                $0 as? DerivationError, .unsupported("descriptor '\(summed.prefix(20))…': its checksum is wrong (a character was mistyped)")
            )
        }
    }

    func testRefusals() throws {
        let xpub = try account(84).serialized()
        let xprv = try master.derive([84 + h, h, h]).serialized()
        let cases: [(String, String)] = [
            ("wsh(\(xpub)/0/*)", "only pkh(KEY), sh(wpkh(KEY)), wpkh(KEY) and tr(KEY) are watched"),
            ("wpkh(\(xpub)/0/5)", "the key must end in /0/*, /1/* or /<0;1>/* (ranged, for a gap-limit scan)"),
            ("wpkh(\(xpub)/2/*)", "the key must end in /0/*, /1/* or /<0;1>/* (receive, change, or both)"),
            ("wpkh(\(xprv)/0/*)", "a watch-only scan takes an extended public key, not a private one"),
            ("wpkh([73c5da0a/84'/0']\(xpub)/0/*)", "its origin and steps say depth 2, the key is at depth 3"),
            ("wpkh([73c5da/84'/0'/0']\(xpub)/0/*)", "a key origin starts with the 4-byte master fingerprint in hex"),
            (
                "tr(\(try account(86).serialized(version: ExtendedKeyVersion.named("zpub")!))/0/*)",
                "tr() takes an xpub or tpub (BIP86 has no SLIP-132 prefix)"
            ),
        ]
        for (text, why) in cases {
            XCTAssertThrowsError(try AccountDescriptor(parsing: text), text) { error in
                XCTAssertEqual((error as? DerivationError)?.message.hasSuffix(": " + why), true, "\(error)")
                // The message shows the descriptor's start, never the whole key.
                XCTAssertFalse((error as? DerivationError)?.message.contains(xpub) ?? true)
                XCTAssertFalse((error as? DerivationError)?.message.contains(xprv) ?? true)
            }
        }
        XCTAssertThrowsError(try AccountDescriptor(parsing: "wpkh(\(xpub)/1'/0/*)")) {
            XCTAssertEqual($0 as? DerivationError, .hardenedFromPublicKey(path: "the step 1' after the xpub"))
        }
    }
}
