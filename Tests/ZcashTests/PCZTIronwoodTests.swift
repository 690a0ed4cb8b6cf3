import Foundation
import SatchelTestSupport
import WalletCore
import WalletCrypto
import WalletKeys
import XCTest
import Zcash

/// A version 2 PCZT of a v6 transaction, built here from fixtures/zcash-ironwood (no public v2
/// PCZT exists): wallet W's Ironwood note I2 spent in the fixture's own action (3,428,157/3/1),
/// whose output is W's change I8, and 1 ZEC paid to a t-address. Reviewed with W's seed (the
/// nullifier it computes is the fixture's; the change is found by W's internal key), signed
/// over the v6 sighash, the signature verified, the PCZT written and read back as version 2.
final class PCZTIronwoodTests: XCTestCase {
    static let dir = "zcash-ironwood/"

    static func lines(_ name: String) throws -> [[String: Any]] {
        try TestPaths.jsonLines(TestPaths.fixture(dir + name))
    }

    static func seed() throws -> [UInt8] {
        let wallet = try XCTUnwrap(TestPaths.json(TestPaths.fixture(dir + "wallet.json")) as? [String: Any])
        return try Hex.decode(try XCTUnwrap(wallet["bip39_seed"] as? String))
    }

    static func hex(_ object: [String: Any], _ key: String) throws -> [UInt8] { try Hex.decode(try XCTUnwrap(object[key] as? String)) }

    /// The payee: a P2PKH script not of W's.
    static let payee: [UInt8] = [0x76, 0xA9, 0x14] + [UInt8](repeating: 0x5A, count: 20) + [0x88, 0xAC]

    static func build() throws -> PCZT {
        let notes = try lines("expected_notes.jsonl")
        let i2 = try XCTUnwrap(notes.first { $0["id"] as? String == "I2" })
        let i8 = try XCTUnwrap(notes.first { $0["id"] as? String == "I8" })
        let action = try XCTUnwrap(
            try lines("ironwood_actions_full.jsonl").first {
                $0["height"] as? Int == 3_428_157 && $0["txIndex"] as? Int == 3 && $0["actionIndex"] as? Int == 1
            })
        let seed = try seed()
        let fvk = try OrchardExtendedSpendingKey.account(seed: seed, coinType: 133, account: 0).fullViewingKey()
        let alpha = try XCTUnwrap(PallasScalar(bytes: [UInt8](repeating: 0x07, count: 31) + [0]))
        let ak = try XCTUnwrap(PallasPoint(bytes: fvk.ak.bytes))

        var global = PCZTGlobal()
        (global.txVersion, global.versionGroupID, global.consensusBranchID, global.expiryHeight, global.coinType) = (
            6, 0xD884_B698, 0x37A5_165B, 3_428_200, 133
        )
        var transparent = PCZTTransparentBundle()
        var out = PCZTTransparentOutput()
        (out.value, out.scriptPubKey) = (100_000_000, payee)
        out.userAddress = ZcashNetwork.main.transparentAddress(script: payee)
        transparent.outputs = [out]

        var a = PCZTAction()
        a.cvNet = try hex(action, "cv")
        a.spend.nullifier = try hex(i2, "nullifier")
        a.spend.recipient = try hex(i2, "address_raw")
        a.spend.value = 314_150_000
        a.spend.rho = try hex(i2, "rho")
        a.spend.rseed = try hex(i2, "rseed")
        a.spend.alpha = alpha.bytes
        a.spend.rk = (ak + PallasPoint(bytes: RedPallas.verificationKey(alpha))!).bytes  // ak + [alpha]G
        var derivation = PCZTDerivation()
        (derivation.seedFingerprint, derivation.path) = (zip32SeedFingerprint(seed)!, [32 | 1 << 31, 133 | 1 << 31, 1 << 31])
        a.spend.derivation = derivation
        a.output.cmx = try hex(action, "cmx")
        a.output.ephemeralKey = try hex(action, "ephemeralKey")
        a.output.encCiphertext = .encrypted(try hex(action, "encCiphertext"))
        a.output.outCiphertext = try hex(action, "outCiphertext")
        a.output.value = 214_140_000
        a.output.recipient = try hex(i8, "address_raw")
        var ironwood = PCZTOrchardBundle(version: 2)
        (ironwood.actions, ironwood.flags, ironwood.valueSumMagnitude, ironwood.noteVersion) = ([a], 0b011, 100_010_000, 1)
        return PCZT(version: 2, global: global, transparent: transparent, sapling: nil, orchard: nil, ironwood: ironwood)
    }

    func testReviewSignAndReadBack() throws {
        let seed = try Self.seed()
        var pczt = try Self.build()
        let report = try pczt.review(seed: SecureBytes(seed))
        XCTAssertEqual(report.spends.map(\.pool), ["ironwood"])
        XCTAssertEqual(report.spends.map(\.value), [314_150_000])
        XCTAssertEqual(report.spends.map(\.path), [[32 | 1 << 31, 133 | 1 << 31, 1 << 31]])
        XCTAssertEqual(report.outputs.map(\.pool), ["transparent", "ironwood"])
        XCTAssertEqual(report.outputs.map(\.value), [100_000_000, 214_140_000])
        XCTAssertEqual(report.outputs.map(\.role), [.payment, .change])
        XCTAssertEqual(report.fee, 10_000)
        XCTAssertEqual(report.toSign, 1)

        XCTAssertEqual(try pczt.sign(seed: SecureBytes(seed)).toSign, 1)
        let spend = try XCTUnwrap(pczt.ironwood?.actions[0].spend)
        let sighash = try pczt.shieldedSighash()
        XCTAssertTrue(RedPallas.verify(try XCTUnwrap(spend.spendAuthSig), message: sighash, key: try XCTUnwrap(spend.rk)))
        // v6's own digest: the same PCZT as a v5 transaction hashes otherwise.
        var v5 = pczt
        (v5.global.txVersion, v5.global.versionGroupID) = (5, 0x26A7_270A)
        XCTAssertNotEqual(try v5.digests().header, try pczt.digests().header)
        let bytes = try pczt.serialized()
        XCTAssertEqual(Array(bytes[0..<8]), Array("PCZT".utf8) + [2, 0, 0, 0])
        XCTAssertEqual(try PCZT(parsing: bytes), pczt)
        XCTAssertEqual(try PCZT(parsing: bytes).review(seed: SecureBytes(seed)).toSign, 0)
    }

    /// The same PCZT changed: refused by name.
    func testHostileChanges() throws {
        let seed = SecureBytes(try Self.seed())
        func refused(_ expected: String, line: UInt = #line, _ change: (inout PCZT) -> Void) throws {
            try assertReviewRefuses(try Self.build(), seed: seed, expected, line: line, change)
        }
        // More change than the note says: the value sum no longer adds up.
        try refused("ironwood.actions[0]: the output says 214150000 zatoshi, its note 214140000") {
            $0.ironwood!.actions[0].output.value = 214_150_000
        }
        try refused("ironwood value_sum is 100020000, but its actions' values give 100010000") {
            $0.ironwood!.valueSumMagnitude = 100_020_000
        }
        // A note of another pool's rule: I2 read as Orchard's V2 note has another nullifier.
        try refused("ironwood.actions[0] names our seed, but its nullifier is not of the note it describes under our key") {
            $0.ironwood!.noteVersion = 0
        }
        // (the address as Python's base58check of 1cb8 ‖ 5a×20 gives it)
        try refused(
            "transparent.outputs[0] pays t1S7M4S3woybcUVs6wvsXid2FmbsUZrwNUK, not its user_address t1Vue7LGpGVeKqcZw4fWQtrHrPeMpZpvzUM"
        ) {
            $0.transparent!.outputs[0].userAddress = "t1Vue7LGpGVeKqcZw4fWQtrHrPeMpZpvzUM"
        }
    }

    /// What examples/zcash-air-gapped.sh signs: W's unspent Ironwood note I12 (6 ZEC), 1 ZEC to
    /// the payee, 4.99985 ZEC back to W's transparent change key m/44'/133'/0'/1/0, a ZIP 317
    /// fee of 15,000 (three logical actions).
    static func buildExample() throws -> PCZT { try buildSpending(["I12"], fee: 15_000) }

    /// A v6 transaction's PCZT spending W's unspent notes `ids` (all of one pool), each in an
    /// action whose output is a zero-value dummy (fixed bytes, its value committed with rcv) as
    /// a builder pads; 1 ZEC to the payee, the rest less `fee` to W's transparent change key.
    static func buildSpending(_ ids: [String], fee: UInt64) throws -> PCZT {
        let seed = try seed()
        let notes = try lines("expected_notes.jsonl")
        var pczt = try build()
        let fvk = try OrchardExtendedSpendingKey.account(seed: seed, coinType: 133, account: 0).fullViewingKey()
        let ak = try XCTUnwrap(PallasPoint(bytes: fvk.ak.bytes))
        var bundle = PCZTOrchardBundle(version: 2)
        (bundle.flags, bundle.noteVersion) = (0b011, ids[0].hasPrefix("I") ? 1 : 0)
        var total: UInt64 = 0
        for (n, id) in ids.enumerated() {
            let note = try XCTUnwrap(notes.first { $0["id"] as? String == id })
            XCTAssertNil(note["spent"] as? [String: Any], id)
            let value = UInt64(try XCTUnwrap(note["value"] as? Int))
            let alpha = try XCTUnwrap(PallasScalar(bytes: [UInt8](repeating: UInt8(0x09 + n), count: 31) + [0]))
            let rcv = try XCTUnwrap(PallasScalar(bytes: [UInt8](repeating: UInt8(0x0A + n), count: 31) + [0]))
            var a = PCZTAction()
            (a.spend.nullifier, a.spend.recipient, a.spend.value) = (try hex(note, "nullifier"), try hex(note, "address_raw"), value)
            (a.spend.rho, a.spend.rseed, a.spend.alpha) = (try hex(note, "rho"), try hex(note, "rseed"), alpha.bytes)
            a.spend.rk = (ak + PallasPoint(bytes: RedPallas.verificationKey(alpha))!).bytes  // ak + [alpha]G
            a.spend.derivation = pczt.ironwood!.actions[0].spend.derivation
            (a.cvNet, a.rcv) = (OrchardValueCommitment.commit(spent: value, created: 0, rcv: rcv), rcv.bytes)
            a.output.cmx = [UInt8](repeating: UInt8(0x01 + n), count: 31) + [0]
            a.output.ephemeralKey = [UInt8](repeating: 0x02, count: 32)
            a.output.encCiphertext = .encrypted([UInt8](repeating: 0x03, count: 580))
            a.output.outCiphertext = [UInt8](repeating: 0x04, count: 80)
            a.output.value = 0
            bundle.actions.append(a)
            total += value
        }
        bundle.valueSumMagnitude = total
        (pczt.orchard, pczt.ironwood) = ids[0].hasPrefix("I") ? (nil, bundle) : (bundle, nil)
        let changeKey = try ExtendedKey.master(seed: SecureBytes(seed)).derive([44 | 1 << 31, 133 | 1 << 31, 1 << 31, 1, 0])
        let publicKey = changeKey.publicKey.compressed
        var change = PCZTTransparentOutput()
        (change.value, change.scriptPubKey) = (total - 100_000_000 - fee, [0x76, 0xA9, 0x14] + Hash.hash160(publicKey) + [0x88, 0xAC])
        var derivation = PCZTDerivation()
        (derivation.seedFingerprint, derivation.path) = (zip32SeedFingerprint(seed)!, [44 | 1 << 31, 133 | 1 << 31, 1 << 31, 1, 0])
        change.bip32Derivation.entries = [.init(key: publicKey, value: derivation)]
        pczt.transparent!.outputs.append(change)
        return pczt
    }

    func testTheExampleReviews() throws {
        let report = try Self.buildExample().review(seed: SecureBytes(try Self.seed()))
        XCTAssertEqual(report.spends.map(\.value), [600_000_000])
        XCTAssertEqual(report.outputs.map(\.value), [100_000_000, 499_985_000])
        XCTAssertEqual(report.outputs.map(\.role), [.payment, .change])
        XCTAssertEqual(report.fee, 15_000)
        XCTAssertEqual(report.toSign, 1)
    }

    /// examples/zcash-air-gapped.sh signs this PCZT: the file is `buildExample()`'s bytes
    /// (written with SATCHEL_WRITE_EXAMPLES=1 in the environment, checked otherwise).
    func testTheExamplesPCZTIsThisOne() throws {
        let url = TestPaths.packageRoot.appendingPathComponent("examples/data/zcash-ironwood-spend.pczt")
        let bytes = try Self.buildExample().serialized()
        if ProcessInfo.processInfo.environment["SATCHEL_WRITE_EXAMPLES"] == "1" { try Data(bytes).write(to: url) }
        XCTAssertEqual(try [UInt8](Data(contentsOf: url)), bytes)
    }

    /// What `make bench` signs (bench/pczt_sign.py): W's two unspent Orchard notes O5 and O4 in
    /// a v6 transaction, 1 ZEC paid, 0.7498 ZEC change, a ZIP 317 fee of 20,000 (four logical
    /// actions). The file is checked as the example's is.
    func testTheBenchPCZTIsThisOne() throws {
        let pczt = try Self.buildSpending(["O5", "O4"], fee: 20_000)
        let report = try pczt.review(seed: SecureBytes(try Self.seed()))
        XCTAssertEqual(report.spends.map(\.pool), ["orchard", "orchard"])
        XCTAssertEqual(report.spends.map(\.value), [125_000_000, 50_000_000])
        XCTAssertEqual(report.outputs.map(\.value), [100_000_000, 74_980_000])
        XCTAssertEqual(report.outputs.map(\.role), [.payment, .change])
        XCTAssertEqual([report.fee, UInt64(report.toSign)], [20_000, 2])
        let url = TestPaths.packageRoot.appendingPathComponent("bench/data/pczt-two-orchard-spends.pczt")
        if ProcessInfo.processInfo.environment["SATCHEL_WRITE_EXAMPLES"] == "1" { try Data(try pczt.serialized()).write(to: url) }
        XCTAssertEqual(try [UInt8](Data(contentsOf: url)), try pczt.serialized())
    }

    /// An account of ZIP 2005's use_qsk rule (fixtures/zcash-ironwood's account 2, a FROST
    /// wallet's kind): Q1 spent in the fixture's own action (3,428,171/2/1), whose output is
    /// the account's change Q2. ak and nk are the usual ones (the spend checks out); the change
    /// opens only under the quantum-secure rivk, which the review tries after the standard one.
    func testUseQskAccount() throws {
        let seed = try Self.seed()
        let notes = try Self.lines("optional_notes.jsonl")
        let q1 = try XCTUnwrap(notes.first { $0["id"] as? String == "Q1" })
        let q2 = try XCTUnwrap(notes.first { $0["id"] as? String == "Q2" })
        let action = try XCTUnwrap(
            try Self.lines("ironwood_actions_full.jsonl").first {
                $0["height"] as? Int == 3_428_171 && $0["txIndex"] as? Int == 2 && $0["actionIndex"] as? Int == 1
            })
        let fvk = try OrchardExtendedSpendingKey.account(seed: seed, coinType: 133, account: 2).fullViewingKey(rivkRule: .quantumSecure)
        let alpha = try XCTUnwrap(PallasScalar(bytes: [UInt8](repeating: 0x0C, count: 31) + [0]))
        var pczt = try Self.build()
        var a = pczt.ironwood!.actions[0]
        a.cvNet = try Self.hex(action, "cv")
        (a.spend.nullifier, a.spend.recipient, a.spend.value) = (try Self.hex(q1, "nullifier"), try Self.hex(q1, "address_raw"), 5_000_000)
        (a.spend.rho, a.spend.rseed, a.spend.alpha) = (try Self.hex(q1, "rho"), try Self.hex(q1, "rseed"), alpha.bytes)
        a.spend.rk = (try XCTUnwrap(PallasPoint(bytes: fvk.ak.bytes)) + PallasPoint(bytes: RedPallas.verificationKey(alpha))!).bytes
        a.spend.derivation!.path = [32 | 1 << 31, 133 | 1 << 31, 2 | 1 << 31]
        (a.output.cmx, a.output.ephemeralKey) = (try Self.hex(action, "cmx"), try Self.hex(action, "ephemeralKey"))
        (a.output.encCiphertext, a.output.outCiphertext) = (
            .encrypted(try Self.hex(action, "encCiphertext")), try Self.hex(action, "outCiphertext")
        )
        (a.output.value, a.output.recipient) = (3_990_000, try Self.hex(q2, "address_raw"))
        pczt.ironwood!.actions = [a]
        pczt.ironwood!.valueSumMagnitude = 1_010_000
        pczt.transparent!.outputs[0].value = 1_000_000
        let report = try pczt.review(seed: SecureBytes(seed))
        XCTAssertEqual(report.spends.map(\.path), [[32 | 1 << 31, 133 | 1 << 31, 2 | 1 << 31]])
        XCTAssertEqual(report.outputs.map(\.value), [1_000_000, 3_990_000])
        XCTAssertEqual(report.outputs.map(\.role), [.payment, .change])
        XCTAssertEqual(report.fee, 10_000)
        XCTAssertEqual(try pczt.sign(seed: SecureBytes(seed)).toSign, 1)
        let spend = try XCTUnwrap(pczt.ironwood?.actions[0].spend)
        XCTAssertTrue(
            RedPallas.verify(try XCTUnwrap(spend.spendAuthSig), message: try pczt.shieldedSighash(), key: try XCTUnwrap(spend.rk)))
    }
}
