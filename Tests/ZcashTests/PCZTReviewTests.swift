import SatchelTestSupport
import WalletCore
import WalletCrypto
import XCTest
import Zcash

/// What the signer says a PCZT does, from its own keys: Keystone's PCZTs with the public seeds
/// that made them (the amounts their tests state), and hostile changes to them, each refused
/// by name.
final class PCZTReviewTests: XCTestCase {
    static let account0: [UInt32] = [32 | 1 << 31, 133 | 1 << 31, 1 << 31]

    func review(_ name: String, _ seed: [UInt8], _ change: (inout PCZT) -> Void = { _ in }) throws -> PCZTReport {
        var pczt = try PCZT(parsing: try PCZTTests.bytes(name))
        change(&pczt)
        return try pczt.review(seed: SecureBytes(seed))
    }

    func assertRefused(
        _ name: String, _ seed: [UInt8], _ expected: PCZTError, file: StaticString = #filePath, line: UInt = #line,
        _ change: (inout PCZT) -> Void
    ) {
        XCTAssertThrowsError(try review(name, seed, change), file: file, line: line) {
            XCTAssertEqual($0 as? PCZTError, expected, file: file, line: line)
        }
    }

    /// Keystone's firmware test: 0.12 ZEC spent, 0.1 to a t-address, 0.01985 change, 0.00015 fee.
    func testKeystoneOrchardToTransparent() throws {
        let report = try review("keystone_fw_orchard_to_transparent", RedPallasTests.keystoneSeed)
        XCTAssertEqual(report.network, .main)
        XCTAssertEqual(report.spends.map(\.pool), ["orchard"])
        XCTAssertEqual(report.spends.map(\.value), [12_000_000])
        XCTAssertEqual(report.spends.map(\.path), [Self.account0])
        XCTAssertEqual(report.outputs.map(\.pool), ["transparent", "orchard"])
        XCTAssertEqual(report.outputs.map(\.value), [10_000_000, 1_985_000])
        XCTAssertEqual(report.outputs.map(\.role), [.payment, .change])
        XCTAssertEqual(report.outputs[0].address, "t1TMLJ7k2N4Narqk5Fd5uUo82NXSMbKRgCc")
        XCTAssertEqual(report.fee, 15_000)
        XCTAssertEqual(report.toSign, 1)
    }

    func testPcztExtVectors() throws {
        let toOrchard = try review("keystone_pczt_ext_orchard_to_orchard", PCZTOutputRecoveryTests.sep5Seed)
        XCTAssertEqual(toOrchard.spends.map(\.value), [10_000_000])
        XCTAssertEqual(toOrchard.outputs.map(\.value), [1_000_000, 8_990_000])
        XCTAssertEqual(toOrchard.outputs.map(\.role), [.payment, .change])
        // The payment is shown at the user address it was checked to be in.
        let pczt = try PCZT(parsing: try PCZTTests.bytes("keystone_pczt_ext_orchard_to_orchard"))
        XCTAssertEqual(toOrchard.outputs[0].address, pczt.orchard?.actions[0].output.userAddress)
        XCTAssertEqual(toOrchard.outputs[0].memo.flatMap(SaplingMemo.text), "hello")
        XCTAssertNil(toOrchard.outputs[1].memo)
        XCTAssertEqual(toOrchard.fee, 10_000)

        let fromTransparent = try review("keystone_pczt_ext_transparent_to_orchard", PCZTOutputRecoveryTests.sep5Seed)
        XCTAssertEqual(fromTransparent.spends.map(\.pool), ["transparent", "transparent"])
        XCTAssertEqual(fromTransparent.spends.map(\.value), [3_000_000, 9_000_000])
        XCTAssertEqual(
            fromTransparent.spends.map(\.address), ["t1Vue7LGpGVeKqcZw4fWQtrHrPeMpZpvzUM", "t1Vue7LGpGVeKqcZw4fWQtrHrPeMpZpvzUM"])
        let receive0: [UInt32] = [44 | 1 << 31, 133 | 1 << 31, 1 << 31, 0, 0]
        XCTAssertEqual(fromTransparent.spends.map(\.path), [receive0, receive0])
        XCTAssertEqual(fromTransparent.outputs.map(\.value), [11_980_000])
        XCTAssertEqual(fromTransparent.outputs.map(\.role), [.change])
        XCTAssertEqual(fromTransparent.fee, 20_000)
        XCTAssertEqual(fromTransparent.toSign, 2)

        let toTransparent = try review("keystone_pczt_ext_orchard_to_transparent", PCZTOutputRecoveryTests.sep5Seed)
        XCTAssertEqual(toTransparent.outputs.map(\.value), [9_000_000, 985_000])
        XCTAssertEqual(toTransparent.outputs.map(\.role), [.payment, .change])
        XCTAssertEqual(toTransparent.fee, 15_000)
    }

    func testHostilePCZTsAreRefusedByName() throws {
        let fw = "keystone_fw_orchard_to_transparent", seed = RedPallasTests.keystoneSeed
        // An amount changed after the PCZT was made: the value commitment no longer opens.
        assertRefused(fw, seed, .refused("orchard.actions[0]: cv_net is not the commitment of its values (changed after it was made?)")) {
            $0.orchard!.actions[0].output.value! += 1_000
        }
        // Both values moved together keep cv_net, not the note: the output's note says otherwise.
        assertRefused(
            fw, seed, .refused("orchard.actions[0] names our seed, but its nullifier is not of the note it describes under our key")
        ) {
            $0.orchard!.actions[0].spend.value! += 1_000
            $0.orchard!.actions[0].output.value! += 1_000
        }
        assertRefused(fw, seed, .refused("orchard value_sum is 10016000, but its actions' values give 10015000")) {
            $0.orchard!.valueSumMagnitude += 1_000
        }
        // A wrong rk: another alpha.
        assertRefused(
            fw, seed, .refused("orchard.actions[0] names our seed at m/32'/133'/0', but its rk is not our key's")
        ) { $0.orchard!.actions[0].spend.alpha![0] ^= 1 }
        // Another seed's PCZT (both fingerprints as Python's hashlib.blake2b gives them).
        assertRefused(
            fw, PCZTOutputRecoveryTests.sep5Seed,
            .refused(
                "nothing in it is ours: no spend or input names our seed (ZIP 32 fingerprint af5d9c247e91d0cbf603f6f6f49cfc218eabf9a2c1d886ce94fc167d6da7e664); it names afb475105f1f5b477c52aa3c32ccf131b0c556b80f55ac555460e6b5148bf853"
            )
        ) { _ in }
        // An output nobody can decrypt, worth something.
        assertRefused(
            fw, seed,
            .refused("orchard.actions[0]: an output of 1985000 zatoshi that none of our keys decrypts (where it goes cannot be shown)")
        ) {
            guard case .encrypted(var bytes) = $0.orchard!.actions[0].output.encCiphertext else { return }
            bytes[0] ^= 1
            $0.orchard!.actions[0].output.encCiphertext = .encrypted(bytes)
        }
        // The transparent recipient is not the address the PCZT shows.
        assertRefused(
            fw, seed,
            .refused(
                "transparent.outputs[0] pays t1TMLJ7k2N4Narqk5Fd5uUo82NXSMbKRgCc, not its user_address t1Vue7LGpGVeKqcZw4fWQtrHrPeMpZpvzUM")
        ) {
            $0.transparent!.outputs[0].userAddress = "t1Vue7LGpGVeKqcZw4fWQtrHrPeMpZpvzUM"
        }
        assertRefused(
            "keystone_v302_transparent_orchard_unfinalized", seed,
            .refused("orchard.actions[1] still carries dummy_sk (ZIP 374: a Signer refuses it)")
        ) { _ in }
        XCTAssertThrowsError(try review("trustwallet_v4_unsigned", seed)) {
            XCTAssertEqual($0 as? PCZTError, .unsupported("transaction version 4 (version group 892f2085); v5 and v6 are signed"))
        }
    }

    /// A shielded recipient outside the user address the wallet showed: refused.
    func testRecipientNotInUserAddress() throws {
        let name = "keystone_pczt_ext_orchard_to_orchard", seed = PCZTOutputRecoveryTests.sep5Seed
        let otherFvk = try OrchardExtendedSpendingKey.account(seed: seed, coinType: 133, account: 7).fullViewingKey()
        let other = UnifiedEncoding.orchardAddress(
            otherFvk.incomingViewingKey(change: false).address(at: DiversifierIndex(0)).bytes, network: .main)
        assertRefused(name, seed, .refused("orchard.actions[0]: its recipient is not in its user_address \(other)")) {
            $0.orchard!.actions[0].output.userAddress = other
        }
        assertRefused(
            name, seed, .refused("orchard.actions[0]: its recipient is not in its user_address t1Vue7LGpGVeKqcZw4fWQtrHrPeMpZpvzUM")
        ) {
            $0.orchard!.actions[0].output.userAddress = "t1Vue7LGpGVeKqcZw4fWQtrHrPeMpZpvzUM"
        }
        assertRefused(name, seed, .refused("orchard.actions[0]: the output's recipient is not its note's")) {
            $0.orchard!.actions[0].output.recipient![5] ^= 1
        }
    }

    /// `sign(seed:)` adds what the review counted: each signature verifies, a second pass adds none.
    func testSignAddsWhatTheReviewCounted() throws {
        for (name, seed, count) in [
            ("keystone_fw_orchard_to_transparent", RedPallasTests.keystoneSeed, 1),
            ("keystone_pczt_ext_transparent_to_orchard", PCZTOutputRecoveryTests.sep5Seed, 2),
            ("keystone_pczt_ext_orchard_to_orchard", PCZTOutputRecoveryTests.sep5Seed, 1),
        ] {
            var pczt = try PCZT(parsing: try PCZTTests.bytes(name))
            let before = pczt
            XCTAssertEqual(try pczt.sign(seed: SecureBytes(seed)).toSign, count, name)
            var added = 0
            let sighash = try pczt.shieldedSighash()
            for (index, action) in (pczt.orchard?.actions ?? []).enumerated() where before.orchard?.actions[index].spend.spendAuthSig == nil
            {
                let signature = try XCTUnwrap(action.spend.spendAuthSig, name)
                XCTAssertTrue(RedPallas.verify(signature, message: sighash, key: try XCTUnwrap(action.spend.rk)), name)
                added += 1
            }
            for (index, input) in (pczt.transparent?.inputs ?? []).enumerated() {
                for entry in input.partialSignatures.entries
                where !(before.transparent?.inputs[index].partialSignatures.entries.contains(entry) ?? false) {
                    XCTAssertEqual(entry.value.last, PCZT.SighashType.all)
                    let key = try Secp256k1.PublicKey(parsing: entry.key)
                    XCTAssertTrue(
                        Secp256k1.verifyECDSA(
                            hash: try pczt.transparentSighash(input: index), der: Array(entry.value.dropLast()), publicKey: key),
                        name)
                    added += 1
                }
            }
            XCTAssertEqual(added, count, name)
            XCTAssertEqual(try pczt.review(seed: SecureBytes(seed)).toSign, 0, name)
        }
    }
}

/// A transparent input of ours that asks for another hash type than ALL: refused by name
/// unless allowed; allowed, signed under that type's ZIP 244 hash, with that byte, and the
/// `tx_modifiable` bits ZIP 374 sets for it.
final class PCZTSighashTypeTests: XCTestCase {
    private let vector = "keystone_pczt_ext_transparent_to_orchard"

    private func pczt(_ types: [UInt8]) throws -> PCZT {
        var pczt = try PCZT(parsing: try PCZTTests.bytes(vector))
        for (index, type) in types.enumerated() { pczt.transparent!.inputs[index].sighashType = type }
        return pczt
    }

    func testOtherTypesAreRefusedUnlessAllowed() throws {
        let seed = SecureBytes(PCZTOutputRecoveryTests.sep5Seed)
        let none = try pczt([PCZT.SighashType.all, PCZT.SighashType.none])
        XCTAssertThrowsError(try none.review(seed: seed)) {
            XCTAssertEqual(
                $0 as? PCZTError,
                .refused(
                    "transparent.inputs[1] asks for SIGHASH_NONE, which lets others change what its signature covers: "
                        + "sign it only on purpose, with --allow-sighash"))
        }
        let anyone = try pczt([PCZT.SighashType.all | PCZT.SighashType.anyoneCanPay])
        XCTAssertThrowsError(try anyone.review(seed: seed)) {
            XCTAssertEqual(
                $0 as? PCZTError,
                .refused(
                    "transparent.inputs[0] asks for SIGHASH_ALL|ANYONECANPAY, which lets others change what its signature covers: "
                        + "sign it only on purpose, with --allow-sighash"))
        }
        // Never signed: a type ZIP 244 does not define, and SINGLE with no output at its index
        // (this PCZT has no transparent output).
        for (type, message) in [
            (UInt8(0x04), "transparent.inputs[0] asks for sighash type 4, which ZIP 244 does not define"),
            (UInt8(0x41), "transparent.inputs[0] asks for sighash type 65, which ZIP 244 does not define"),
            (PCZT.SighashType.single, "transparent.inputs[0] asks for SIGHASH_SINGLE and there is no output 0 to pair it with"),
        ] {
            XCTAssertThrowsError(try pczt([type]).review(seed: seed, allowOtherSighash: true)) {
                XCTAssertEqual($0 as? PCZTError, .refused(message))
            }
        }
    }

    func testAllowedTypesAreSignedUnderTheirOwnHash() throws {
        let seed = SecureBytes(PCZTOutputRecoveryTests.sep5Seed)
        let types = [PCZT.SighashType.none | PCZT.SighashType.anyoneCanPay, PCZT.SighashType.all]
        var pczt = try pczt(types)
        pczt.global.txModifiable = 0b1000_0011
        let report = try pczt.review(seed: seed, allowOtherSighash: true)
        XCTAssertEqual(report.spends.map(\.sighashType), types)
        XCTAssertEqual(report.toSign, 2)
        XCTAssertEqual(try pczt.sign(seed: seed, allowOtherSighash: true).toSign, 2)
        for (index, type) in types.enumerated() {
            let entry = try XCTUnwrap(pczt.transparent!.inputs[index].partialSignatures.entries.first)
            XCTAssertEqual(entry.value.last, type)
            let hash = try pczt.transparentSighash(input: index)
            let key = try Secp256k1.PublicKey(parsing: entry.key)
            XCTAssertTrue(Secp256k1.verifyECDSA(hash: hash, der: Array(entry.value.dropLast()), publicKey: key))
            // The hash is the type's own: it differs from the ALL hash of the same input.
            var asAll = pczt
            asAll.transparent!.inputs[index].sighashType = PCZT.SighashType.all
            XCTAssertEqual(hash == (try asAll.transparentSighash(input: index)), type == PCZT.SighashType.all)
        }
        // Input 1's ALL fixes the inputs and the outputs; every signature, the shielded parts.
        XCTAssertEqual(pczt.global.txModifiable, 0)
        XCTAssertEqual(PCZT.sighashName(0x83), "SINGLE|ANYONECANPAY")
    }
}

/// That the review refuses `pczt` changed by `change`, with exactly `expected`.
func assertReviewRefuses(
    _ pczt: PCZT, seed: SecureBytes, _ expected: String, file: StaticString = #filePath, line: UInt, _ change: (inout PCZT) -> Void
) throws {
    var changed = pczt
    change(&changed)
    XCTAssertThrowsError(try changed.review(seed: seed), file: file, line: line) {
        XCTAssertEqual($0 as? PCZTError, .refused(expected), file: file, line: line)
    }
}
