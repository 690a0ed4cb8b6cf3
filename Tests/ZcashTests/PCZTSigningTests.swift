import SatchelTestSupport
import WalletCore
import WalletCrypto
import WalletKeys
import XCTest
import Zcash

/// The Signer's transparent part on keystone_pczt_ext_transparent_to_orchard, whose two
/// inputs are SEP-0005's test seed's m/44'/133'/0'/0/0: signatures over the sighashes
/// Keystone's firmware states, under the key the PCZT names, and tx_modifiable fixed.
final class PCZTSigningTests: XCTestCase {
    func testTransparentInputs() throws {
        var pczt = try PCZT(parsing: try PCZTTests.bytes("keystone_pczt_ext_transparent_to_orchard"))
        let root = try ExtendedKey.master(seed: SecureBytes(PCZTOutputRecoveryTests.sep5Seed))
        let inputs = try XCTUnwrap(pczt.transparent?.inputs)
        let derivation = try XCTUnwrap(inputs[0].bip32Derivation.entries.first)
        XCTAssertEqual(derivation.value.seedFingerprint, zip32SeedFingerprint(PCZTOutputRecoveryTests.sep5Seed))
        let node = try root.derive(derivation.value.path)
        XCTAssertEqual(node.publicKey.compressed, derivation.key)
        let key = try XCTUnwrap(node.privateKey)
        XCTAssertEqual(pczt.global.txModifiable, 0b0000_0000)
        pczt.global.txModifiable = 0b1000_0011  // as a Creator leaves it, to see the Signer clear it
        try pczt.signTransparent(input: 0, privateKey: key)
        try pczt.signTransparent(input: 1, privateKey: key)
        XCTAssertEqual(pczt.global.txModifiable, 0)
        let expected = [
            "a2865e1c7f3de700eee25fe233da6bbdab267d524bc788998485359441ad3140",
            "9c10678495dfdb1f29beb6583d652bc66cb4e3d27d24d75fb6922f230e9953e8",
        ]
        let publicKey = try Secp256k1.PublicKey(parsing: derivation.key)
        for index in 0..<2 {
            let entries = try XCTUnwrap(pczt.transparent?.inputs[index].partialSignatures.entries)
            XCTAssertEqual(entries.map(\.key), [derivation.key])
            let signature = try XCTUnwrap(entries.first?.value)
            XCTAssertEqual(signature.last, PCZT.SighashType.all)
            XCTAssertTrue(
                Secp256k1.verifyECDSA(hash: try Hex.decode(expected[index]), der: Array(signature.dropLast()), publicKey: publicKey))
        }
        // Signed, written and read back: the signatures stay, and the sighashes do not move.
        let back = try PCZT(parsing: try pczt.serialized())
        XCTAssertEqual(back, pczt)
        XCTAssertEqual(Hex.encode(try back.transparentSighash(input: 1)), expected[1])
        // Another key is refused by name: its script is not the input's.
        let other = try XCTUnwrap(try root.derive([44 | 1 << 31, 133 | 1 << 31, 1 << 31, 0, 1]).privateKey)
        XCTAssertThrowsError(try pczt.signTransparent(input: 0, privateKey: other)) {
            XCTAssertEqual($0 as? PCZTError, .unsupported("transparent input 0 is not paid to this key's P2PKH script"))
        }
    }
}

/// The Signer's shielded part: keystone_fw's Orchard spend signed with the published test
/// seed's key, what must be refused refused.
final class PCZTShieldedSigningTests: XCTestCase {
    func testOrchardSpend() throws {
        var pczt = try PCZT(parsing: try PCZTTests.bytes("keystone_fw_orchard_to_transparent"))
        pczt.global.txModifiable = 0b1000_0011
        let before = try XCTUnwrap(pczt.orchard?.actions)
        XCTAssertEqual(try pczt.signShielded(seed: RedPallasTests.keystoneSeed), 1)
        let after = try XCTUnwrap(pczt.orchard?.actions)
        let signature = try XCTUnwrap(after[0].spend.spendAuthSig)
        XCTAssertTrue(RedPallas.verify(signature, message: try pczt.shieldedSighash(), key: try XCTUnwrap(after[0].spend.rk)))
        XCTAssertEqual(after[1], before[1])  // the dummy, signed by the IO Finalizer already
        XCTAssertEqual(pczt.global.txModifiable, 0)
        // Signed once: a second pass signs nothing.
        XCTAssertEqual(try pczt.signShielded(seed: RedPallasTests.keystoneSeed), 0)
        // Another seed has nothing here.
        var untouched = try PCZT(parsing: try PCZTTests.bytes("keystone_fw_orchard_to_transparent"))
        XCTAssertEqual(try untouched.signShielded(seed: PCZTOutputRecoveryTests.sep5Seed), 0)
    }

    func testRefusals() throws {
        var unfinalized = try PCZT(parsing: try PCZTTests.bytes("keystone_v302_transparent_orchard_unfinalized"))
        XCTAssertThrowsError(try unfinalized.signShielded(seed: RedPallasTests.keystoneSeed)) {
            XCTAssertEqual($0 as? PCZTError, .refused("orchard.actions[1] still carries dummy_sk (ZIP 374: a Signer refuses it)"))
        }
        // Our derivation, another alpha: rk is not what our key gives.
        var moved = try PCZT(parsing: try PCZTTests.bytes("keystone_fw_orchard_to_transparent"))
        moved.orchard!.actions[0].spend.alpha![0] ^= 1
        XCTAssertThrowsError(try moved.signShielded(seed: RedPallasTests.keystoneSeed)) {
            XCTAssertEqual($0 as? PCZTError, .refused("orchard.actions[0] names our seed, but its rk is not our key's"))
        }
        XCTAssertNil(moved.orchard?.actions[0].spend.spendAuthSig)
        var v4 = try PCZT(parsing: try PCZTTests.bytes("trustwallet_v4_unsigned"))
        XCTAssertThrowsError(try v4.signShielded(seed: RedPallasTests.keystoneSeed))
    }
}
