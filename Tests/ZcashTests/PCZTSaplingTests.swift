import SatchelTestSupport
import WalletCore
import WalletCrypto
import XCTest
import Zcash

/// A Sapling PCZT built from fixtures/zcash-sapling (no public PCZT spends Sapling with a
/// published seed): the fixture's transaction at 2,900,040/3 as a PCZT: wallet W's note of
/// 2.51609035 ZEC (position 1,330,172) spent, and its two real outputs: 1.67729357 ZEC paid
/// (found by W's outgoing key) and 0.83869678 ZEC change (W's internal key), a 10,000 fee.
/// Reviewed with W's seed (the nullifier it computes is the fixture's), signed with
/// RedJubjub, the signature verified.
final class PCZTSaplingTests: XCTestCase {
    static let dir = "zcash-sapling/"
    static let account0: [UInt32] = [32 | 1 << 31, 133 | 1 << 31, 1 << 31]

    static func seed() throws -> [UInt8] {
        let wallet = try XCTUnwrap(TestPaths.json(TestPaths.fixture(dir + "wallet.json")) as? [String: Any])
        return try Hex.decode(try XCTUnwrap(wallet["bip39_seed"] as? String))
    }

    static func note(value: Int) throws -> [String: Any] {
        try XCTUnwrap(try TestPaths.jsonLines(TestPaths.fixture(dir + "expected_notes.jsonl")).first { $0["value"] as? Int == value })
    }

    static func build() throws -> PCZT {
        let seed = try seed()
        let spent = try note(value: 251_609_035)
        let tx = try XCTUnwrap(
            try TestPaths.jsonLines(TestPaths.fixture(dir + "transactions.jsonl")).first {
                $0["height"] as? Int == 2_900_040 && $0["txIndex"] as? Int == 3
            })
        let real = try ZcashFullTransaction(try Hex.decode(try XCTUnwrap(tx["raw_tx"] as? String))).shieldedOutputs.sapling
        let key = SaplingExtendedSpendingKey.account(seed: seed, network: .main, account: 0).fullViewingKey
        let d = try Hex.decode(try XCTUnwrap(spent["diversifier"] as? String))
        let pkd = try XCTUnwrap(SaplingDiversifier.base(d)).times(key.incomingViewingKey.ivk).bytes
        let alpha = Fr(wide: [UInt8](repeating: 0x11, count: 64)), rcv = Fr(wide: [UInt8](repeating: 0x22, count: 64))

        var global = PCZTGlobal()
        (global.txVersion, global.versionGroupID, global.consensusBranchID, global.expiryHeight, global.coinType) = (
            5, 0x26A7_270A, 0xC8E7_1055, 2_900_100, 133
        )
        var spend = PCZTSaplingSpend()
        spend.value = 251_609_035
        spend.rcv = rcv.bytes
        spend.cv = SaplingValueCommitment.commit(value: 251_609_035, rcv: rcv)
        spend.nullifier = try Hex.decode(try XCTUnwrap(spent["nullifier"] as? String))
        spend.recipient = d + pkd
        spend.rseed = try Hex.decode(try XCTUnwrap(spent["rseed"] as? String))
        spend.witness = PCZTWitness(position: 1_330_172, path: Array(repeating: [UInt8](repeating: 0, count: 32), count: 32))
        spend.alpha = alpha.bytes
        spend.rk = (key.ak + SaplingGenerators.spendAuth.times(alpha)).bytes  // ak + [alpha]G
        var derivation = PCZTDerivation()
        (derivation.seedFingerprint, derivation.path) = (zip32SeedFingerprint(seed)!, account0)
        spend.derivation = derivation
        let outputs = zip(real, [167_729_357, 83_869_678]).map { full, value in
            var output = PCZTSaplingOutput()
            (output.cv, output.cmu, output.ephemeralKey) = (full.cv, full.cmu, full.ephemeralKey)
            (output.encCiphertext, output.outCiphertext, output.value) = (full.encCiphertext, full.outCiphertext, UInt64(value))
            return output
        }
        var sapling = PCZTSaplingBundle()
        (sapling.spends, sapling.outputs, sapling.valueSum) = ([spend], outputs, 10_000)
        return PCZT(
            version: 1, global: global, transparent: PCZTTransparentBundle(), sapling: sapling, orchard: PCZTOrchardBundle(version: 1),
            ironwood: nil)
    }

    func testReviewAndSign() throws {
        let seed = SecureBytes(try Self.seed())
        var pczt = try PCZT(parsing: try Self.build().serialized())
        let report = try pczt.review(seed: seed)
        XCTAssertEqual(report.spends.map(\.pool), ["sapling"])
        XCTAssertEqual(report.spends.map(\.value), [251_609_035])
        XCTAssertEqual(report.spends.map(\.path), [Self.account0])
        XCTAssertEqual(report.outputs.map(\.pool), ["sapling", "sapling"])
        XCTAssertEqual(report.outputs.map(\.value), [167_729_357, 83_869_678])
        XCTAssertEqual(report.outputs.map(\.role), [.payment, .change])
        XCTAssertEqual(report.outputs.map { $0.address?.hasPrefix("zs1") }, [true, true])
        XCTAssertEqual(report.outputs[1].address, try Self.note(value: 83_869_678)["address"] as? String)
        XCTAssertEqual(report.outputs[0].memo.flatMap(SaplingMemo.text), "payment from W")  // opened by the outgoing key
        // The payment at a user address that holds its recipient: shown as that address.
        var shown = pczt
        shown.sapling!.outputs[0].userAddress = report.outputs[0].address
        XCTAssertEqual(try shown.review(seed: seed).outputs[0].address, report.outputs[0].address)
        XCTAssertEqual(report.fee, 10_000)
        XCTAssertEqual(report.toSign, 1)

        XCTAssertEqual(try pczt.sign(seed: seed).toSign, 1)
        let spend = try XCTUnwrap(pczt.sapling?.spends[0])
        let sighash = try pczt.shieldedSighash()
        XCTAssertTrue(RedJubjub.verify(try XCTUnwrap(spend.spendAuthSig), message: sighash, key: spend.rk))
        XCTAssertFalse(RedJubjub.verify(try XCTUnwrap(spend.spendAuthSig), message: sighash.reversed(), key: spend.rk))
        XCTAssertEqual(try PCZT(parsing: try pczt.serialized()), pczt)
        XCTAssertEqual(try pczt.review(seed: seed).toSign, 0)
    }

    func testHostileChanges() throws {
        let seed = SecureBytes(try Self.seed())
        func refused(_ expected: String, line: UInt = #line, _ change: (inout PCZT) -> Void) throws {
            try assertReviewRefuses(try Self.build(), seed: seed, expected, line: line, change)
        }
        try refused("sapling.spends[0]: cv is not the commitment of its value (changed after it was made?)") {
            $0.sapling!.spends[0].value! += 1
        }
        try refused("sapling.outputs[1]: the output says 83869679 zatoshi, its note 83869678") { $0.sapling!.outputs[1].value! += 1 }
        try refused("sapling value_sum is 10001, but its spends' and outputs' values give 10000") { $0.sapling!.valueSum += 1 }
        try refused("sapling.spends[0] names our seed at m/32'/133'/0', but its rk is not our key's") {
            $0.sapling!.spends[0].alpha![0] ^= 1
        }
        try refused("sapling.spends[0] names our seed, but its nullifier is not of the note it describes under our key") {
            $0.sapling!.spends[0].witness!.position += 1
        }
        // The payment shown at one of W's own addresses: not where it goes.
        let ours = try Self.note(value: 251_609_035)["address"] as! String
        try refused("sapling.outputs[0]: its recipient is not in its user_address \(ours)") {
            $0.sapling!.outputs[0].userAddress = ours
        }
        try refused("sapling.outputs[0]: an output of 167729357 zatoshi that none of our keys decrypts (where it goes cannot be shown)") {
            $0.sapling!.outputs[0].outCiphertext[7] ^= 1
        }
        try refused("sapling.outputs[1]: an output of 83869678 zatoshi that none of our keys decrypts (where it goes cannot be shown)") {
            $0.sapling!.outputs[1].encCiphertext[7] ^= 1
        }
    }
}
