import Foundation
import SatchelTestSupport
import WalletCore
import XCTest
import Zcash

/// RedPallas against the signatures the crate made (the dummy spends Keystone's PCZTs carry,
/// signed by the IO Finalizer), and our own: from a public test seed's key, over the sighash.
final class RedPallasTests: XCTestCase {
    /// The seed Keystone's firmware tests publish for keystone_fw_orchard_to_transparent
    /// (KeystoneHQ/keystone3-firmware `rust/apps/zcash/src/pczt/sign.rs`): a test seed, no funds.
    static let keystoneSeed = try! Hex.decode(
        "d561f5aba9db8b100a9a84197322e522f952171a388ad74eaab1ab9db815be3335c3099a0a2bb0fee57e630db5ed7251412b6bd4b905cf518627411fee3f32dd")

    /// Every spend authorization the vectors carry verifies under its rk over the PCZT's
    /// shielded sighash, and fails over another message or key.
    func testTheCratesSignaturesVerify() throws {
        var verified = 0
        for name in PCZTTests.files where !name.hasPrefix("trustwallet") {
            let pczt = try PCZT(parsing: try PCZTTests.bytes(name))
            let sighash = try pczt.shieldedSighash()
            for action in pczt.orchard?.actions ?? [] {
                guard let signature = action.spend.spendAuthSig, let rk = action.spend.rk else { continue }
                XCTAssertTrue(RedPallas.verify(signature, message: sighash, key: rk), name)
                var other = sighash
                other[0] ^= 1
                XCTAssertFalse(RedPallas.verify(signature, message: other, key: rk), name)
                var forged = signature
                forged[40] ^= 1
                XCTAssertFalse(RedPallas.verify(forged, message: sighash, key: rk), name)
                verified += 1
            }
        }
        XCTAssertEqual(verified, 9)  // the dummies of 7 PCZTs (2 each in the two from transparent)
    }

    /// ZIP 32's seed fingerprints, as zcash-test-vectors gives them (Bech32m, "zip32seedfp").
    func testSeedFingerprints() throws {
        let rows = try XCTUnwrap(try TestPaths.json(TestPaths.vector("zcash/zip_0032_registered.json")) as? [[Any]])
        var checked = 0
        for row in rows.dropFirst(2) {
            let seed = try Hex.decode(try XCTUnwrap(row[1] as? String))
            let (hrp, five, variant) = try Bech32.decode(try XCTUnwrap(row[2] as? String))
            XCTAssertEqual(hrp, "zip32seedfp")
            XCTAssertEqual(variant, .bech32m)
            XCTAssertEqual(zip32SeedFingerprint(seed), try Bech32.convertBits(five, from: 5, to: 8, pad: false))
            checked += 1
        }
        XCTAssertEqual(checked, 3)
        XCTAssertNil(zip32SeedFingerprint([UInt8](repeating: 1, count: 31)))
    }

    /// The spend of keystone_fw_orchard_to_transparent is the test seed's account 0: rsk = ask +
    /// alpha gives the PCZT's rk, and a signature made with it verifies.
    func testSigningTheKeystoneSpend() throws {
        let pczt = try PCZT(parsing: try PCZTTests.bytes("keystone_fw_orchard_to_transparent"))
        let spend = try XCTUnwrap(pczt.orchard?.actions[0].spend)
        let derivation = try XCTUnwrap(spend.derivation)
        XCTAssertEqual(zip32SeedFingerprint(Self.keystoneSeed), derivation.seedFingerprint)
        let account = OrchardExtendedSpendingKey.account(seed: Self.keystoneSeed, coinType: 133, account: 0)
        let ask = OrchardFullViewingKey.ask(spendingKey: account.spendingKey.withUnsafeBytes { Array($0) })
        let alpha = try XCTUnwrap(PallasScalar(bytes: try XCTUnwrap(spend.alpha)))
        let rsk = ask + alpha
        XCTAssertEqual(RedPallas.verificationKey(rsk), spend.rk)
        let sighash = try pczt.shieldedSighash()
        let signature = RedPallas.sign(sighash, key: rsk)
        XCTAssertTrue(RedPallas.verify(signature, message: sighash, key: try XCTUnwrap(spend.rk)))
        XCTAssertNotEqual(RedPallas.sign(sighash, key: rsk), signature)  // randomized
        // The same T gives the same signature: the nonce is T's, the key's and the message's.
        let t = [UInt8](repeating: 7, count: 80)
        XCTAssertEqual(RedPallas.sign(sighash, key: rsk, random: t), RedPallas.sign(sighash, key: rsk, random: t))
        XCTAssertFalse(RedPallas.verify(signature, message: sighash, key: RedPallas.verificationKey(ask)))
    }

    /// Both ways against the independent RedPallas (scripts/redpallas-oracle.py, from the
    /// specification and the published base): it accepts the crate's 9 signatures in the
    /// vectors and our 20, and refuses each with a byte changed; ours accepts its 20 and
    /// refuses each changed.
    func testAgainstTheIndependentOracle() throws {
        var lines = [String](), expected = [String]()
        for name in PCZTTests.files where !name.hasPrefix("trustwallet") {
            let pczt = try PCZT(parsing: try PCZTTests.bytes(name))
            let sighash = try pczt.shieldedSighash()
            for action in pczt.orchard?.actions ?? [] {
                guard let signature = action.spend.spendAuthSig, let rk = action.spend.rk else { continue }
                lines.append("\(Hex.encode(signature)) \(Hex.encode(sighash)) \(Hex.encode(rk))")
                expected.append("ok")
            }
        }
        XCTAssertEqual(lines.count, 9)
        var keys = [(PallasScalar, [UInt8])]()
        for n in 0..<20 {
            let key = PallasScalar(wide: (0..<64).map { _ in UInt8.random(in: 0...255) })
            let message = (0..<(n == 0 ? 1 : 32)).map { _ in UInt8.random(in: 0...255) }
            keys.append((key, message))
            let signature = RedPallas.sign(message, key: key), vk = RedPallas.verificationKey(key)
            var forged = signature
            forged[n % 64] ^= 1 << (n % 8)
            lines += [
                "\(Hex.encode(signature)) \(Hex.encode(message)) \(Hex.encode(vk))",
                "\(Hex.encode(forged)) \(Hex.encode(message)) \(Hex.encode(vk))",
            ]
            expected += ["ok", "bad"]
        }
        let verified = try Shell.run("python3 scripts/redpallas-oracle.py verify", stdin: Data((lines.joined(separator: "\n") + "\n").utf8))
        XCTAssertEqual(verified.status, 0, verified.stderr)
        XCTAssertEqual(verified.lines, expected)

        let requests = keys.map { "\(Hex.encode($0.0.bytes)) \(Hex.encode($0.1))" }.joined(separator: "\n") + "\n"
        let signed = try Shell.run("python3 scripts/redpallas-oracle.py sign", stdin: Data(requests.utf8))
        XCTAssertEqual(signed.status, 0, signed.stderr)
        XCTAssertEqual(signed.lines.count, 20)
        for (n, line) in signed.lines.enumerated() {
            let fields = line.split(separator: " ").map { try! Hex.decode(String($0)) }
            XCTAssertEqual(fields[0], RedPallas.verificationKey(keys[n].0), "key \(n)")
            XCTAssertTrue(RedPallas.verify(fields[1], message: keys[n].1, key: fields[0]), "signature \(n)")
            var forged = fields[1]
            forged[(n * 7) % 64] ^= 0x10
            XCTAssertFalse(RedPallas.verify(forged, message: keys[n].1, key: fields[0]), "forged \(n)")
        }
    }
}
