import Bitcoin
import Foundation
import WalletCore
import WalletKeys
import XCTest
import SatchelTestSupport
import WalletCrypto

/// The signer's BIP376 inputs without a node (the live test spends real outputs): the spend key
/// found by its origin or by a zero fingerprint; a signature by spend key plus tweak that
/// verifies under the output key; refusals of a tweak that does not give the output key, a
/// wrong derivation, and the fields in a version 0 PSBT.
final class SilentPaymentSpendTests: XCTestCase {
    let root = try! ExtendedKey.master(
        seed: BIP39().seed(
            of: BIP39().parse(
                TestPhrase.abandonAbout, language: nil),
            passphrase: SecureBytes([])))
    let path: [UInt32] = [352 | 0x8000_0000, 0x8000_0000, 0x8000_0000, 0x8000_0000, 0]
    let tweak = Hash.sha256(Array("a found output's tweak".utf8))

    private func le<T: FixedWidthInteger>(_ v: T) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
    private func compact(_ n: Int) -> [UInt8] { [UInt8(n)] }

    /// A one-input PSBT of `version` spending 100,000 sat at `outputKey` to 99,000 sat at OP_1 <key>.
    private func psbt(
        version: UInt32, outputKey: [UInt8], spendKey: [UInt8], origin: [UInt8], tweak: [UInt8], sighash: UInt32? = nil,
        extra: [PSBT.Pair] = []
    ) throws -> PSBT {
        func map(_ pairs: [PSBT.Pair]) -> [UInt8] {
            pairs.flatMap { compact($0.key.count) + $0.key + compact($0.value.count) + $0.value } + [0]
        }
        let sp =
            [
                PSBT.Pair(type: PSBTField.inWitnessUtxo, value: le(UInt64(100_000)) + [34, 0x51, 0x20] + outputKey),
                PSBT.Pair(type: PSBTField.inSPSpendBIP32Derivation, keyData: spendKey, value: origin),
                PSBT.Pair(type: PSBTField.inSPTweak, value: tweak),
            ] + (sighash.map { [PSBT.Pair(type: PSBTField.inSighashType, value: le($0))] } ?? []) + extra
        let payee = [UInt8]([0x51, 0x20]) + outputKey
        if version == 0 {
            let tx =
                le(UInt32(2)) + [1] + [UInt8](repeating: 7, count: 32) + le(UInt32(0)) + [0] + le(UInt32.max) + [1]
                + le(UInt64(99_000)) + [34] + payee + le(UInt32(0))
            let global = [PSBT.Pair(type: PSBTField.globalUnsignedTx, value: tx)]
            return try PSBT(parsing: PSBT.magic + map(global) + map(sp) + map([]))
        }
        let global = [
            PSBT.Pair(type: PSBTField.globalTxVersion, value: le(UInt32(2))), PSBT.Pair(type: PSBTField.globalInputCount, value: [1]),
            PSBT.Pair(type: PSBTField.globalOutputCount, value: [1]), PSBT.Pair(type: PSBTField.globalVersion, value: le(UInt32(2))),
        ]
        let input =
            sp + [
                PSBT.Pair(type: PSBTField.inPreviousTxid, value: [UInt8](repeating: 7, count: 32)),
                PSBT.Pair(type: PSBTField.inOutputIndex, value: le(UInt32(0))),
            ]
        let output = [PSBT.Pair(type: PSBTField.outAmount, value: le(UInt64(99_000))), PSBT.Pair(type: PSBTField.outScript, value: payee)]
        return try PSBT(parsing: PSBT.magic + map(global) + map(input) + map(output))
    }

    func testSignedWithTheSpendKeyPlusTheTweak() throws {
        let keys = try BIP32Keyring(root: root)
        let spend = try keys.publicKey(at: path)
        let outputKey = try spend.adding(tweak: tweak).xOnly
        let origin = root.fingerprint + path.flatMap { le($0) }
        for given in [origin, [0, 0, 0, 0]] {
            let unsigned = try psbt(version: 2, outputKey: outputKey, spendKey: spend.compressed, origin: given, tweak: tweak)
            let (signed, report) = try PSBTSigner(coinType: 0).sign(unsigned, keys: keys) { _ in }
            XCTAssertEqual(report.inputs.map(\.kind), ["p2tr-silent-payment"])
            XCTAssertEqual(report.inputs.map(\.paths), [["m/352'/0'/0'/0'/0"]])
            XCTAssertEqual(report.fee, 1_000)
            let signature = try XCTUnwrap(signed.inputs[0].value(PSBTField.inTapKeySig))
            let hash = try Sighash.taprootKeyPath(
                unsigned.transaction, input: 0, prevouts: [BitcoinTx.Output(value: 100_000, script: [0x51, 0x20] + outputKey)],
                type: Sighash.taprootDefault, shared: Sighash.Shared(unsigned.transaction))
            XCTAssertTrue(Secp256k1.verifySchnorr(message: hash, signature: signature, xOnlyPublicKey: outputKey))
            // The finalizer keeps no BIP376 field: they are known, and not the UTXO's.
            let final = try PSBTFinalizer.finalized(signed)
            XCTAssertNil(final.inputs[0].value(PSBTField.inSPTweak))
            XCTAssertTrue(final.inputs[0].all(PSBTField.inSPSpendBIP32Derivation).isEmpty)
            XCTAssertEqual(try PSBTFinalizer.extract(final).inputs[0].witness, [signature])
        }
    }

    func testRefusals() throws {
        let keys = try BIP32Keyring(root: root)
        let spend = try keys.publicKey(at: path)
        let outputKey = try spend.adding(tweak: tweak).xOnly
        let origin = root.fingerprint + path.flatMap { le($0) }
        // Another tweak: the output is not spend key plus it; nothing is signed.
        let other = try psbt(version: 2, outputKey: outputKey, spendKey: spend.compressed, origin: origin, tweak: Hash.sha256(tweak))
        XCTAssertThrowsError(try PSBTSigner().sign(other, keys: keys) { _ in XCTFail("no summary for a PSBT that is refused") }) {
            XCTAssertEqual(
                $0 as? PSBTSignError,
                .scriptMismatch(input: 0, reason: "its output key is not our spend key (m/352'/0'/0'/0'/0) plus PSBT_IN_SP_TWEAK"))
        }
        // Our origin with another key.
        let wrong = try psbt(
            version: 2, outputKey: outputKey, spendKey: try keys.publicKey(at: [0]).compressed, origin: origin, tweak: tweak)
        XCTAssertThrowsError(try PSBTSigner().sign(wrong, keys: keys) { _ in }) {
            guard case .wrongDerivation? = $0 as? PSBTSignError else { return XCTFail("\($0)") }
        }
        // A zero fingerprint whose key is none of ours: not our input, so nothing to sign.
        let stranger = try psbt(
            version: 2, outputKey: outputKey, spendKey: try keys.publicKey(at: [0]).compressed, origin: [0, 0, 0, 0], tweak: tweak)
        XCTAssertThrowsError(try PSBTSigner().sign(stranger, keys: keys) { _ in }) { XCTAssertEqual($0 as? PSBTSignError, .nothingToSign) }
        // Version 0 has no BIP376 fields.
        XCTAssertThrowsError(try psbt(version: 0, outputKey: outputKey, spendKey: spend.compressed, origin: origin, tweak: tweak)) {
            guard case .wrongVersion(_, let field, 0)? = $0 as? PSBTError else { return XCTFail("\($0)") }
            XCTAssertEqual(field, "PSBT_IN_SP_SPEND_BIP32_DERIVATION")
        }
    }

    /// The rules of every input: a spend key derived on mainnet's coin type is refused under
    /// --network test (psbt.wrong_network, as m/84'/0'/… is), and a PSBT_IN_TAP_BIP32_DERIVATION
    /// of ours whose key its path does not give is refused (psbt.wrong_derivation), not skipped.
    func testTheRulesOfEveryInput() throws {
        let keys = try BIP32Keyring(root: root)
        let spend = try keys.publicKey(at: path)
        let outputKey = try spend.adding(tweak: tweak).xOnly
        let origin = root.fingerprint + path.flatMap { le($0) }
        let mainnet = try psbt(version: 2, outputKey: outputKey, spendKey: spend.compressed, origin: origin, tweak: tweak)
        XCTAssertThrowsError(try PSBTSigner(coinType: 1).sign(mainnet, keys: keys) { _ in XCTFail("no summary") }) {
            XCTAssertEqual($0 as? PSBTSignError, .wrongNetwork(path: "m/352'/0'/0'/0'/0", expected: 1))
        }
        XCTAssertNoThrow(try PSBTSigner(coinType: 0).sign(mainnet, keys: keys) { _ in })
        let other: [UInt32] = [86 | 0x8000_0000, 0x8000_0000, 0x8000_0000, 0, 0]
        let claimed = Array(try keys.publicKey(at: [1]).compressed.dropFirst())
        let derived = Array(try keys.publicKey(at: other).compressed.dropFirst())
        let tap = PSBT.Pair(
            type: PSBTField.inTapBIP32Derivation, keyData: claimed, value: [0] + root.fingerprint + other.flatMap { le($0) })
        let wrong = try psbt(version: 2, outputKey: outputKey, spendKey: spend.compressed, origin: origin, tweak: tweak, extra: [tap])
        XCTAssertThrowsError(try PSBTSigner(coinType: 0).sign(wrong, keys: keys) { _ in XCTFail("no summary") }) {
            XCTAssertEqual(
                $0 as? PSBTSignError,
                .wrongDerivation(map: "input 0", path: "m/86'/0'/0'/0/0", claimed: Hex.encode(claimed), derived: Hex.encode(derived)))
        }
    }

    /// The sighash rules are the other inputs': DEFAULT or ALL unless others are allowed.
    func testSighashTypes() throws {
        let keys = try BIP32Keyring(root: root)
        let spend = try keys.publicKey(at: path)
        let outputKey = try spend.adding(tweak: tweak).xOnly
        let origin = root.fingerprint + path.flatMap { le($0) }
        let none = try psbt(version: 2, outputKey: outputKey, spendKey: spend.compressed, origin: origin, tweak: tweak, sighash: 2)
        XCTAssertThrowsError(try PSBTSigner().sign(none, keys: keys) { _ in XCTFail("no summary for a PSBT that is refused") }) {
            XCTAssertEqual($0 as? PSBTSignError, .sighashNotAllowed(input: 0, type: "NONE"))
        }
        let single = Sighash.single | Sighash.anyoneCanPay
        let unsigned = try psbt(version: 2, outputKey: outputKey, spendKey: spend.compressed, origin: origin, tweak: tweak, sighash: single)
        let (signed, report) = try PSBTSigner(allowOtherSighash: true).sign(unsigned, keys: keys) { _ in }
        XCTAssertEqual(report.inputs.map(\.signed), [1])
        let signature = try XCTUnwrap(signed.inputs[0].value(PSBTField.inTapKeySig))
        XCTAssertEqual(signature.count, 65)
        XCTAssertEqual(signature.last, UInt8(single))
        let hash = try Sighash.taprootKeyPath(
            unsigned.transaction, input: 0, prevouts: [BitcoinTx.Output(value: 100_000, script: [0x51, 0x20] + outputKey)],
            type: single, shared: Sighash.Shared(unsigned.transaction))
        XCTAssertTrue(Secp256k1.verifySchnorr(message: hash, signature: Array(signature.prefix(64)), xOnlyPublicKey: outputKey))
    }
}
