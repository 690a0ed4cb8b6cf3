import Foundation
import SatchelTestSupport
import WalletCore
import XCTest
@testable import Zcash

/// zcash-test-vectors' `zip_0244.json`: ten random v5 transactions, each with its txid, its
/// authorizing digest, the shielded signature hash and, where it has a transparent input, that
/// input's hash under each of the six hash types. The signature hashes are the signer's own:
/// each transaction is made a PCZT (its effecting data, the input's amount and script) and
/// `PCZT.shieldedSighash`/`transparentSighash` computes them.
final class ZIP244VectorTests: XCTestCase {
    private static let hashTypes: [(field: String, type: UInt8)] = [
        ("sighash_all", 0x01), ("sighash_none", 0x02), ("sighash_single", 0x03),
        ("sighash_all_anyone", 0x81), ("sighash_none_anyone", 0x82), ("sighash_single_anyone", 0x83),
    ]

    func testEveryVector() throws {
        let rows = try XCTUnwrap(try TestPaths.json(TestPaths.vector("zcash/zip_0244.json")) as? [[Any]])
        XCTAssertEqual(
            rows[1] as? [String],
            [
                "tx, txid, auth_digest, amounts, script_pubkeys, transparent_input, sighash_shielded, sighash_all, sighash_none, "
                    + "sighash_single, sighash_all_anyone, sighash_none_anyone, sighash_single_anyone"
            ])
        let vectors = rows.dropFirst(2)
        XCTAssertEqual(vectors.count, 10)
        var transparentHashes = 0
        for (n, v) in vectors.enumerated() {
            let tx = try ZcashFullTransaction(try Hex.decode(try XCTUnwrap(v[0] as? String)))
            XCTAssertEqual(Hex.encode(ZcashTransactionID.of(tx)), v[1] as? String, "vector \(n) txid")
            XCTAssertEqual(ZcashTransactionID.authDigest(tx).map(Hex.encode), v[2] as? String, "vector \(n) auth digest")
            let amounts = try XCTUnwrap(v[3] as? [NSNumber]).map(\.uint64Value)
            let scripts = try XCTUnwrap(v[4] as? [String]).map { try Hex.decode($0) }
            var pczt = Self.pczt(tx, amounts: amounts, scripts: scripts)
            // The PCZT encoder and parser keep what the hashes read.
            XCTAssertEqual(try PCZT(parsing: try pczt.serialized()), pczt, "vector \(n)")
            XCTAssertEqual(Hex.encode(try pczt.shieldedSighash()), v[6] as? String, "vector \(n) shielded")
            guard let input = v[5] as? Int else {
                XCTAssertTrue(v[7...].allSatisfy { $0 is NSNull }, "vector \(n)")
                continue
            }
            for (offset, hashType) in Self.hashTypes.enumerated() {
                guard let expected = v[7 + offset] as? String else {
                    // Only SIGHASH_SINGLE without an output at the input's index is left out.
                    XCTAssertEqual(hashType.type & 0x1F, PCZT.SighashType.single, "vector \(n) \(hashType.field)")
                    XCTAssertGreaterThanOrEqual(input, tx.outputs.count, "vector \(n)")
                    continue
                }
                pczt.transparent!.inputs[input].sighashType = hashType.type
                XCTAssertEqual(Hex.encode(try pczt.transparentSighash(input: input)), expected, "vector \(n) \(hashType.field)")
                transparentHashes += 1
            }
        }
        XCTAssertEqual(transparentHashes, 32)
    }

    /// The digests can fail: another amount, script or hash type gives another hash.
    func testEachInputFieldIsCommitted() throws {
        let rows = try XCTUnwrap(try TestPaths.json(TestPaths.vector("zcash/zip_0244.json")) as? [[Any]])
        let v = rows[5]  // vector 3: one input, one output
        let tx = try ZcashFullTransaction(try Hex.decode(try XCTUnwrap(v[0] as? String)))
        let amounts = try XCTUnwrap(v[3] as? [NSNumber]).map(\.uint64Value)
        let scripts = try XCTUnwrap(v[4] as? [String]).map { try Hex.decode($0) }
        let expected = try XCTUnwrap(v[7] as? String)
        var pczt = Self.pczt(tx, amounts: amounts, scripts: scripts)
        pczt.transparent!.inputs[0].sighashType = PCZT.SighashType.all
        XCTAssertEqual(Hex.encode(try pczt.transparentSighash(input: 0)), expected)
        for change in [
            { (p: inout PCZT) in p.transparent!.inputs[0].value += 1 },
            { (p: inout PCZT) in p.transparent!.inputs[0].scriptPubKey += [0x51] },
            { (p: inout PCZT) in p.transparent!.inputs[0].sighashType = PCZT.SighashType.none },
            { (p: inout PCZT) in p.transparent!.outputs[0].value += 1 },
            { (p: inout PCZT) in p.global.expiryHeight += 1 },
        ] {
            var changed = pczt
            change(&changed)
            XCTAssertNotEqual(Hex.encode(try changed.transparentSighash(input: 0)), expected)
        }
    }

    /// A PCZT of a whole transaction: its effecting data, and each transparent input's amount
    /// and script (which the transaction does not carry).
    static func pczt(_ tx: ZcashFullTransaction, amounts: [UInt64], scripts: [[UInt8]]) -> PCZT {
        func u32<C: Collection<UInt8>>(_ b: C) -> UInt32 { b.reversed().reduce(0) { $0 << 8 | UInt32($1) } }
        func i64(_ b: [UInt8]) -> Int64 { b.isEmpty ? 0 : Int64(bitPattern: b.reversed().reduce(0) { $0 << 8 | UInt64($1) }) }
        var global = PCZTGlobal()
        global.txVersion = tx.version
        global.versionGroupID = u32(tx.header[4..<8])
        global.consensusBranchID = u32(tx.header[8..<12])
        global.fallbackLockTime = u32(tx.header[12..<16])
        global.expiryHeight = u32(tx.header[16..<20])
        global.coinType = 133
        var transparent = PCZTTransparentBundle()
        transparent.inputs = tx.inputs.enumerated().map { index, txin in
            var input = PCZTTransparentInput()
            input.prevoutTxid = Array(txin.outpoint[0..<32])
            input.prevoutIndex = u32(txin.outpoint[32..<36])
            input.sequence = u32(txin.sequence)
            input.scriptSig = txin.script
            // A coinbase's input has neither.
            input.value = amounts.indices.contains(index) ? amounts[index] : 0
            input.scriptPubKey = scripts.indices.contains(index) ? scripts[index] : []
            input.sighashType = PCZT.SighashType.all
            return input
        }
        transparent.outputs = tx.outputs.map {
            var output = PCZTTransparentOutput()
            output.value = UInt64(bitPattern: i64($0.value))
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
            (output.cv, output.cmu, output.ephemeralKey) = ($0.cv, $0.cmu, $0.ephemeralKey)
            (output.encCiphertext, output.outCiphertext) = ($0.encCiphertext, $0.outCiphertext)
            return output
        }
        sapling.valueSum = Int128(i64(tx.saplingValueBalance))
        if !tx.saplingAnchor.isEmpty { sapling.anchor = tx.saplingAnchor }
        var orchard = PCZTOrchardBundle(version: 1)
        orchard.actions = tx.orchard.actions.map {
            var action = PCZTAction()
            action.cvNet = $0.cv
            (action.spend.nullifier, action.spend.rk) = ($0.nullifier, $0.rk)
            (action.output.cmx, action.output.ephemeralKey) = ($0.cmx, $0.ephemeralKey)
            (action.output.encCiphertext, action.output.outCiphertext) = (.encrypted($0.encCiphertext), $0.outCiphertext)
            return action
        }
        orchard.flags = tx.orchard.flags
        let balance = i64(tx.orchard.valueBalance)
        (orchard.valueSumMagnitude, orchard.valueSumNegative) = (balance.magnitude, balance < 0)
        orchard.anchor = tx.orchard.anchor.isEmpty ? Array(repeating: 0, count: 32) : tx.orchard.anchor
        return PCZT(version: 1, global: global, transparent: transparent, sapling: sapling, orchard: orchard, ironwood: nil)
    }
}
