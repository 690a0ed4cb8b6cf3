import SatchelTestSupport
import WalletCore
import XCTest
@testable import Zcash

/// The signature hashes of real PCZTs against the digests Keystone's firmware states for them
/// (KeystoneHQ/keystone3-firmware, `rust/zcash_vendor/src/pczt_ext.rs`, tests
/// `test_basic_functions_*`: the same three PCZTs, byte for byte).
final class PCZTSighashTests: XCTestCase {
    private func pczt(_ name: String) throws -> PCZT { try PCZT(parsing: try PCZTTests.bytes(name)) }

    func testOrchardToOrchard() throws {
        let pczt = try pczt("keystone_pczt_ext_orchard_to_orchard")
        XCTAssertEqual(pczt.lockTime, 0)
        let d = try pczt.digests()
        XCTAssertEqual(Hex.encode(d.header), "3f85a5b3ff138bde71704243213f0cdd8d7483832dc4c2007c0f15fc2e3d17eb")
        XCTAssertEqual(Hex.encode(d.prevouts), "a04b16834dc939ccf632d15dddaa6bcaed253d12068dca169fbd28bc403cf3ba")
        XCTAssertEqual(Hex.encode(d.sequence), "3a0033336603235001742438238d713c09c1c55bf67bd20b80805aea0b46eba5")
        XCTAssertEqual(Hex.encode(d.outputs), "25f311cc149ecccef0e8ca8c9facd897ef88806008bc15818069470db9f84a37")
        XCTAssertEqual(Hex.encode(d.sapling), "6f2fc8f98feafd94e74a0df4bed74391ee0b5a69945e4ced8ca8a095206f00ae")
        XCTAssertEqual(Hex.encode(d.orchard), "0ee1912a92e13f43e2511d9c0a12ab26c165391eefc7311e382d752806e6cb8a")
        XCTAssertNil(d.ironwood)
        XCTAssertEqual(Hex.encode(try pczt.shieldedSighash()), "bd0488e0117fe59e2b58fe9897ce803200ad72f74a9a94594217a6a79050f66f")
    }

    func testTransparentToOrchard() throws {
        let pczt = try pczt("keystone_pczt_ext_transparent_to_orchard")
        let d = try pczt.digests()
        XCTAssertEqual(Hex.encode(d.header), "b17f07724f36f3cfe54140d9225d853a9246f4e4cfea722b583fdb151f005f76")
        XCTAssertEqual(Hex.encode(d.prevouts), "8c34a460a39541d94e062f481e45495c90f3420b39ea0b4ecc45d55485c28c8b")
        XCTAssertEqual(Hex.encode(d.sequence), "7b0e9ba5bfc487e7471c657ef3cb743f90c7548c3fdcc355dc267559394c1bc1")
        XCTAssertEqual(Hex.encode(d.outputs), "25f311cc149ecccef0e8ca8c9facd897ef88806008bc15818069470db9f84a37")
        XCTAssertEqual(Hex.encode(d.orchard), "56dd210c9d1813eda55d7e2abea55091759b53deec092a4eda9e6f1b536b527a")
        XCTAssertEqual(Hex.encode(try pczt.shieldedSighash()), "fea284c0b63a4de21c2f660587b2e04461f7089d6c9f8c2e60a3caed77c037ae")
        XCTAssertEqual(pczt.transparent?.inputs.map(\.sighashType), [PCZT.SighashType.all, PCZT.SighashType.all])
        XCTAssertEqual(
            Hex.encode(try pczt.transparentSighash(input: 0)), "a2865e1c7f3de700eee25fe233da6bbdab267d524bc788998485359441ad3140")
        XCTAssertEqual(
            Hex.encode(try pczt.transparentSighash(input: 1)), "9c10678495dfdb1f29beb6583d652bc66cb4e3d27d24d75fb6922f230e9953e8")
        XCTAssertThrowsError(try pczt.transparentSighash(input: 2)) {
            XCTAssertEqual($0 as? PCZTError, .unsupported("there is no transparent input 2"))
        }
    }

    func testOrchardToTransparent() throws {
        let pczt = try pczt("keystone_pczt_ext_orchard_to_transparent")
        let d = try pczt.digests()
        XCTAssertEqual(Hex.encode(d.header), "96c60ee6c88b3b44c751be6793669a38154552ddb490b58d5b732c80255c5be5")
        XCTAssertEqual(Hex.encode(d.outputs), "f214119a412438e233a369039397ed5e247da4511b49af8304f25392292de53c")
        XCTAssertEqual(Hex.encode(d.orchard), "90dc4739bdcae8f81c162213e9742d988b6abd29beecf1203e1a59a794e8cb4b")
        XCTAssertEqual(Hex.encode(try pczt.shieldedSighash()), "d9b80aac7a7e0f9cd525572877656bd923ff0c557be9a1ff16ff6e8e389ccc81")
    }

    /// Transaction version 4 is no PCZT a signer signs (ZIP 374 and the crate take v5 and v6).
    func testVersion4IsRefused() throws {
        XCTAssertThrowsError(try pczt("trustwallet_v4_unsigned").shieldedSighash()) {
            XCTAssertEqual($0 as? PCZTError, .unsupported("transaction version 4 (version group 892f2085); v5 and v6 are signed"))
        }
    }

    /// The crate's lock time: the largest required height, or time; the fallback without any;
    /// none when the inputs name both kinds, even on one input.
    func testLockTime() throws {
        var pczt = try pczt("keystone_pczt_ext_transparent_to_orchard")
        pczt.global.fallbackLockTime = 7
        XCTAssertEqual(pczt.lockTime, 7)
        pczt.transparent!.inputs[0].requiredHeightLockTime = 100
        pczt.transparent!.inputs[1].requiredHeightLockTime = 300
        XCTAssertEqual(pczt.lockTime, 300)
        pczt.transparent!.inputs[1].requiredTimeLockTime = 600_000_000
        XCTAssertNil(pczt.lockTime)
        pczt.transparent!.inputs[0].requiredHeightLockTime = nil
        pczt.transparent!.inputs[1].requiredHeightLockTime = nil
        pczt.transparent!.inputs[0].requiredTimeLockTime = 500_000_001
        XCTAssertEqual(pczt.lockTime, 600_000_000)
        pczt.global.fallbackLockTime = nil
        pczt.transparent!.inputs[0].requiredTimeLockTime = nil
        pczt.transparent!.inputs[1].requiredTimeLockTime = nil
        XCTAssertEqual(pczt.lockTime, 0)
    }
}

/// The fixtures' transactions as PCZTs: for a transaction without transparent inputs the
/// shielded signature hash is its id (ZIP 244's S.2 takes T.2's digest then), which the txid
/// tests hold to the reference code — v5 and v6, Sapling, Orchard and Ironwood bundles.
final class PCZTSighashFixtureTests: XCTestCase {
    private func text(_ value: Any?) -> String { value as? String ?? "" }

    private static func int64(_ bytes: [UInt8]) -> Int64 {
        Int64(bitPattern: bytes.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }

    private static func uint32(_ bytes: ArraySlice<UInt8>) -> UInt32 { bytes.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }

    /// A PCZT carrying a full transaction's effecting data, and each transparent input's
    /// amount and script (which the transaction does not carry; a coinbase's input has none).
    static func pczt(of tx: ZcashFullTransaction, amounts: [UInt64] = [], scripts: [[UInt8]] = []) -> PCZT {
        var global = PCZTGlobal()
        global.txVersion = tx.version
        global.versionGroupID = uint32(tx.header[4..<8])
        global.consensusBranchID = uint32(tx.header[8..<12])
        global.fallbackLockTime = uint32(tx.header[12..<16])
        global.expiryHeight = uint32(tx.header[16..<20])
        var transparent = PCZTTransparentBundle()
        transparent.inputs = tx.inputs.enumerated().map { index, txin in
            var input = PCZTTransparentInput()
            input.prevoutTxid = Array(txin.outpoint[0..<32])
            input.prevoutIndex = uint32(txin.outpoint[32..<36])
            input.sequence = uint32(txin.sequence[...])
            input.scriptSig = txin.script
            input.value = amounts.indices.contains(index) ? amounts[index] : 0
            input.scriptPubKey = scripts.indices.contains(index) ? scripts[index] : []
            input.sighashType = PCZT.SighashType.all
            return input
        }
        transparent.outputs = tx.outputs.map {
            var output = PCZTTransparentOutput()
            output.value = UInt64(bitPattern: int64($0.value))
            output.scriptPubKey = $0.script
            return output
        }
        var sapling = PCZTSaplingBundle()
        sapling.spends = tx.spends.map {
            var spend = PCZTSaplingSpend()
            (spend.cv, spend.nullifier, spend.rk) = ($0.cv, $0.nullifier, $0.rk)
            return spend
        }
        sapling.outputs = tx.saplingOutputs.map {
            var output = PCZTSaplingOutput()
            (output.cv, output.cmu, output.ephemeralKey, output.encCiphertext, output.outCiphertext) = (
                $0.cv, $0.cmu, $0.ephemeralKey, $0.encCiphertext, $0.outCiphertext
            )
            return output
        }
        if !tx.saplingValueBalance.isEmpty { sapling.valueSum = Int128(int64(tx.saplingValueBalance)) }
        if tx.saplingAnchor.count == 32 { sapling.anchor = tx.saplingAnchor }
        func bundle(_ b: ZcashFullTransaction.Bundle, version: UInt32) -> PCZTOrchardBundle {
            var out = PCZTOrchardBundle(version: version)
            out.actions = b.actions.map {
                var action = PCZTAction()
                action.cvNet = $0.cv
                (action.spend.nullifier, action.spend.rk) = ($0.nullifier, $0.rk)
                (action.output.cmx, action.output.ephemeralKey, action.output.outCiphertext) = ($0.cmx, $0.ephemeralKey, $0.outCiphertext)
                action.output.encCiphertext = .encrypted($0.encCiphertext)
                return action
            }
            out.flags = b.flags
            let balance = b.valueBalance.isEmpty ? 0 : int64(b.valueBalance)
            (out.valueSumMagnitude, out.valueSumNegative) = (balance.magnitude, balance < 0)
            out.anchor = b.anchor.count == 32 ? b.anchor : out.anchor
            return out
        }
        let version: UInt32 = tx.isV6 ? 2 : 1
        var orchard = bundle(tx.orchard, version: version)
        if version == 2 { orchard.noteVersion = 0 }
        var ironwood = tx.ironwood.map { bundle($0, version: 2) }
        ironwood?.noteVersion = 1
        return PCZT(version: version, global: global, transparent: transparent, sapling: sapling, orchard: orchard, ironwood: ironwood)
    }

    func testShieldedSighashIsTheTxidWithoutTransparentInputs() throws {
        var checked = [UInt32: Int]()
        for fixture in ["zcash-sapling", "zcash-orchard", "zcash-ironwood"] {
            for row in try TestPaths.jsonLines(TestPaths.fixture("\(fixture)/transactions.jsonl")) {
                let tx = try ZcashFullTransaction(try Hex.decode(text(row["raw_tx"])))
                guard tx.inputs.isEmpty else { continue }
                let pczt = Self.pczt(of: tx)
                XCTAssertEqual(Hex.encode(try pczt.shieldedSighash()), text(row["txid"]), "\(fixture) \(text(row["txid"]))")
                // Written and read again, the PCZT signs the same hash.
                XCTAssertEqual(try PCZT(parsing: try pczt.serialized()).shieldedSighash(), try pczt.shieldedSighash())
                checked[tx.version, default: 0] += 1
            }
        }
        XCTAssertEqual(checked[5], 246)
        XCTAssertEqual(checked[6], 59)
    }
}
