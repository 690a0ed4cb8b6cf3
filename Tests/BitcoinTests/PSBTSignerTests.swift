import Bitcoin
import Foundation
import SatchelTestSupport
import WalletCore
import WalletKeys
import XCTest
import WalletCrypto

/// The PSBT Signer, Finalizer and Extractor: BIP174's worked example of the roles byte for byte
/// (Tests/Fixtures/psbt/bip174-roles.json), and each refusal by name. The live flow against
/// litecoind is in the end-to-end tests.
final class PSBTSignerTests: XCTestCase {
    static func roles() throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: TestPaths.projectFixture("psbt/bip174-roles.json"))) as! [String: Any]
    }

    static func master(_ v: [String: Any]) throws -> ExtendedKey { try ExtendedKey(parsing: v["master_tprv"] as! String) }

    /// One of BIP174's signers: the master key, holding only some of the paths.
    final class SomeKeys: PSBTKeyring {
        let keys: BIP32Keyring, paths: Set<[UInt32]>
        init(_ keys: BIP32Keyring, paths: [String]) throws {
            (self.keys, self.paths) = (keys, Set(try paths.map { try DerivationPath(parsing: $0).components }))
        }
        func owns(fingerprint: [UInt8], path: [UInt32]) -> Bool { keys.owns(fingerprint: fingerprint, path: path) && paths.contains(path) }
        func publicKey(at path: [UInt32]) throws -> Secp256k1.PublicKey { try keys.publicKey(at: path) }
        func signECDSA(_ hash: [UInt8], at path: [UInt32]) throws -> ECDSASignature { try keys.signECDSA(hash, at: path) }
        func signSchnorr(_ hash: [UInt8], at path: [UInt32], merkleRoot: [UInt8]?) throws -> [UInt8] {
            try keys.signSchnorr(hash, at: path, merkleRoot: merkleRoot)
        }
    }

    /// BIP174's signers use plain RFC 6979 nonces: each of its two signers, given its keys,
    /// writes exactly the PSBT the BIP gives; one signer with the master key signs every input,
    /// and its PSBT finalizes to the finalizer's PSBT and the extractor's transaction exactly.
    func testBIP174SignerFinalizerAndExtractorVectors() throws {
        let v = try Self.roles()
        let psbt = try PSBT(base64: v["updated_with_sighash_all"] as! String)
        let master = try BIP32Keyring(root: try Self.master(v), nonces: .rfc6979)
        for n in [1, 2] {
            let keys = try SomeKeys(master, paths: v["signer_\(n)_paths"] as! [String])
            let (signed, report) = try PSBTSigner().sign(psbt, keys: keys) { _ in }
            XCTAssertEqual(signed.base64, v["signed_by_signer_\(n)"] as? String, "signer \(n)")
            XCTAssertEqual(report.inputs.map(\.signed), [1, 1])
            XCTAssertFalse(report.complete)
        }
        var seen: PSBTReport?
        let (signed, report) = try PSBTSigner().sign(psbt, keys: master) { seen = $0 }
        XCTAssertEqual(seen?.fee, 10_000)
        XCTAssertEqual(seen?.inputs.map(\.complete), [false, false])
        XCTAssertEqual(report.inputs.map(\.kind), ["p2sh", "p2sh-p2wsh"])
        XCTAssertEqual(report.inputs.map(\.amount), [50_000_000, 200_000_000])
        XCTAssertEqual(report.inputs.map(\.paths), [["m/0'/0'/0'", "m/0'/0'/1'"], ["m/0'/0'/3'", "m/0'/0'/2'"]])
        XCTAssertEqual(report.inputs.map(\.signed), [2, 2])
        XCTAssertEqual(report.inputs.map(\.sighash), [Sighash.all, Sighash.all])
        XCTAssertTrue(report.complete)
        // Both outputs pay keys of this master (m/0'/0'/4' and 5'), checked by deriving them,
        // and neither is a change path of an account (BIP174's paths have no chain): payments.
        XCTAssertEqual(report.outputs.map(\.change), [false, false])
        XCTAssertEqual(report.outputs.map(\.paths), [["m/0'/0'/4'"], ["m/0'/0'/5'"]])
        // The same signatures as the two signers', every one (the combiner's PSBT has them all).
        let combined = try PSBT(base64: v["combined"] as! String)
        for i in 0..<2 {
            XCTAssertEqual(
                Set(signed.inputs[i].all(PSBTField.inPartialSig).map { $0.keyData + $0.value }),
                Set(combined.inputs[i].all(PSBTField.inPartialSig).map { $0.keyData + $0.value }))
        }
        let final = try PSBTFinalizer.finalized(signed)
        XCTAssertEqual(final.base64, v["finalized"] as? String)
        XCTAssertEqual(try PSBTFinalizer.finalized(combined).base64, v["finalized"] as? String)
        let tx = try PSBTFinalizer.extract(final)
        XCTAssertEqual(Hex.encode(tx.serialized()), v["extracted_hex"] as? String)
        XCTAssertEqual(report.vsize, PSBTFinalizer.vsize(tx))
        XCTAssertFalse(report.vsizeEstimated)
        // Signing again adds nothing: every key of ours has its signature.
        let (again, second) = try PSBTSigner().sign(signed, keys: master) { _ in }
        XCTAssertEqual(again, signed)
        XCTAssertEqual(second.inputs.map(\.signed), [0, 0])
    }

    /// Bitcoin Core's low-R grinding: the three signatures whose first nonce already has a low R
    /// are BIP174's; the fourth (R ≥ 2^255 there) is ground to a shorter one that still finalizes.
    func testLowRGrindingChangesOnlyTheHighRSignature() throws {
        let v = try Self.roles()
        let expected = try PSBT(base64: v["combined"] as! String)
        let (signed, _) = try PSBTSigner().sign(
            try PSBT(base64: v["updated_with_sighash_all"] as! String), keys: try BIP32Keyring(root: try Self.master(v))
        ) { _ in }
        // In key order: the combiner's PSBT has them in the order its two signers gave them.
        let sigs = { (p: PSBT) in p.inputs.flatMap { $0.all(PSBTField.inPartialSig).sorted { $0.key.lexicographicallyPrecedes($1.key) } } }
        XCTAssertEqual(sigs(signed).count, 4)
        for (ours, theirs) in zip(sigs(signed), sigs(expected)) {
            XCTAssertEqual(ours.keyData, theirs.keyData)
            // DER's R length: 32 bytes for a low R, 33 (a zero byte first) for a high one.
            XCTAssertEqual(ours.value[3], 0x20, "R is low")
            if theirs.value[3] == 0x20 {
                XCTAssertEqual(ours.value, theirs.value)
            } else {
                XCTAssertEqual(Hex.encode(theirs.keyData), "02dab61ff49a14db6a7d02b0cd1fbb78fc4b18312b5b4e54dae4dba2fbfef536d7")
                XCTAssertNotEqual(ours.value, theirs.value)
                XCTAssertLessThan(ours.value.count, theirs.value.count)
            }
        }
        XCTAssertNoThrow(try PSBTFinalizer.extract(try PSBTFinalizer.finalized(signed)))
    }

    func refusal(
        _ psbt: PSBT, signer: PSBTSigner = PSBTSigner(), keys: PSBTKeyring? = nil, file: StaticString = #filePath, line: UInt = #line
    ) throws -> PSBTSignError? {
        let keys = try keys ?? BIP32Keyring(root: try Self.master(try Self.roles()))
        var confirmed = false
        do {
            _ = try signer.sign(psbt, keys: keys) { _ in confirmed = true }
            XCTFail("signed", file: file, line: line)
            return nil
        } catch let error as PSBTSignError {
            XCTAssertFalse(confirmed, "refused before the summary", file: file, line: line)
            return error
        }
    }

    func testEachRefusalOfTheRolesPSBT() throws {
        let v = try Self.roles()
        let good = try PSBT(base64: v["updated_with_sighash_all"] as! String)
        let fullOutput = [UInt8](try Hex.decode("80f0fa02000000001" + "7a9140fb9463421696b82c833af241c78c17ddbde493487"))

        // A witness UTXO that is not the previous transaction's output: the fee attack.
        var p = good
        p.inputs[0].insertInOrder(PSBT.Pair(type: PSBTField.inWitnessUtxo, value: [0x81] + fullOutput.dropFirst()))
        XCTAssertEqual(try refusal(p)?.code, "psbt.utxo_mismatch")
        // The same output in both is fine.
        p = good
        p.inputs[0].insertInOrder(PSBT.Pair(type: PSBTField.inWitnessUtxo, value: fullOutput))
        XCTAssertNoThrow(try PSBTSigner().sign(p, keys: try BIP32Keyring(root: try Self.master(v))) { _ in })

        p = good
        p.inputs[1].remove { $0.type == PSBTField.inWitnessUtxo }
        XCTAssertEqual(try refusal(p), .missingUTXO(input: 1))

        // A previous transaction changed after the PSBT was read (its lock time): the signer
        // checks it against the outpoint again.
        p = good
        var previous = p.inputs[0].value(PSBTField.inNonWitnessUtxo)!
        previous[previous.count - 1] ^= 1
        p.inputs[0].insertInOrder(PSBT.Pair(type: PSBTField.inNonWitnessUtxo, value: previous))
        XCTAssertEqual(
            try refusal(p),
            .witnessUTXOMismatch(input: 0, reason: "PSBT_IN_NON_WITNESS_UTXO is not the transaction whose output 0 the input spends"))

        // A legacy input of ours proven by a witness UTXO alone.
        p = good
        p.inputs[0].remove { $0.type == PSBTField.inNonWitnessUtxo }
        p.inputs[0].insertInOrder(PSBT.Pair(type: PSBTField.inWitnessUtxo, value: fullOutput))
        XCTAssertEqual(try refusal(p), .legacyNeedsPreviousTransaction(input: 0))

        // A derivation whose path gives another key.
        p = good
        let key = try Hex.decode("029583bf39ae0a609747ad199addd634fa6108559d6c5cd39b4c2183f1ab96e07f")
        p.inputs[0].insertInOrder(
            PSBT.Pair(type: PSBTField.inBIP32Derivation, keyData: key, value: try Hex.decode("d90c6a4f000000800000008005000080")))
        XCTAssertEqual(
            try refusal(p),
            .wrongDerivation(
                map: "input 0", path: "m/0'/0'/5'", claimed: Hex.encode(key),
                derived: "027f6399757d2eff55a136ad02c684b1838b6556e5f1b6b34282a94b6b50051096"))

        // A redeem script that is not the one the output commits to.
        p = good
        var redeem = p.inputs[0].value(PSBTField.inRedeemScript)!
        redeem[0] = 0x51
        p.inputs[0].insertInOrder(PSBT.Pair(type: PSBTField.inRedeemScript, value: redeem))
        XCTAssertEqual(try refusal(p), .scriptMismatch(input: 0, reason: "PSBT_IN_REDEEM_SCRIPT does not hash to the script's hash"))

        // The fee limit: 10,000 satoshis is signed at a limit of 10,000, refused at 9,999.
        XCTAssertEqual(try refusal(good, signer: PSBTSigner(maxFee: 9_999)), .feeAboveLimit(fee: 10_000, limit: 9_999))
        XCTAssertNoThrow(try PSBTSigner(maxFee: 10_000).sign(good, keys: try BIP32Keyring(root: try Self.master(v))) { _ in })

        // SIGHASH_SINGLE|ANYONECANPAY only when allowed, and then with that byte.
        p = good
        p.inputs[1].insertInOrder(PSBT.Pair(type: PSBTField.inSighashType, value: [0x83, 0, 0, 0]))
        XCTAssertEqual(try refusal(p), .sighashNotAllowed(input: 1, type: "SINGLE|ANYONECANPAY"))
        let (signed, report) = try PSBTSigner(allowOtherSighash: true).sign(p, keys: try BIP32Keyring(root: try Self.master(v))) { _ in }
        XCTAssertEqual(signed.inputs[1].all(PSBTField.inPartialSig).map { $0.value.last }, [0x83, 0x83])
        XCTAssertEqual(report.inputs[1].sighash, 0x83)

        // Someone else's keys: nothing of theirs here.
        let stranger = try BIP32Keyring(root: ExtendedKey.master(seed: SecureBytes([UInt8](repeating: 7, count: 32))))
        XCTAssertEqual(try refusal(good, keys: stranger), .nothingToSign)

        // A summary refused: no signature leaves the signer.
        struct No: Error {}
        XCTAssertThrowsError(try PSBTSigner().sign(good, keys: try BIP32Keyring(root: try Self.master(v))) { _ in throw No() }) {
            XCTAssertTrue($0 is No)
        }
    }

    // MARK: PSBTs built here: P2WPKH with change, taproot's key path

    static let seed = SecureBytes((0..<32).map { UInt8($0) })
    static let fingerprint = try! ExtendedKey.master(seed: seed).fingerprint

    static func origin(_ path: String, leaves: Bool = false) throws -> [UInt8] {
        (leaves ? [0x00] : []) + fingerprint
            + (try DerivationPath(parsing: path)).components.flatMap { c in withUnsafeBytes(of: c.littleEndian) { Array($0) } }
    }

    static func key(_ path: String) throws -> Secp256k1.PublicKey {
        try ExtendedKey.master(seed: seed).derive(try DerivationPath(parsing: path).components).publicKey
    }

    static func txOut(_ value: UInt64, _ script: [UInt8]) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) } + [UInt8(script.count)] + script
    }

    /// A P2WPKH input of ours; outputs to a stranger, to our change (verified), and to a script
    /// that the PSBT calls ours but pays a key hash of someone else.
    func testP2WPKHSignatureAndChangeThatIsVerified() throws {
        let spend = try Self.key("m/84'/1'/0'/0/0"), change = try Self.key("m/84'/1'/0'/1/0"), other = try Self.key("m/84'/1'/0'/1/1")
        let inputScript = ScriptTemplate.p2wpkh(spend.compressed)
        let tx = BitcoinTx(
            version: 2, inputs: [.init(previousTxID: [UInt8](repeating: 0xAB, count: 32), previousIndex: 1, sequence: 0xFFFF_FFFD)],
            outputs: [
                .init(value: 40_000, script: ScriptTemplate.p2wpkh([0x02] + [UInt8](repeating: 5, count: 32))),
                .init(value: 59_000, script: ScriptTemplate.p2wpkh(change.compressed)),
                .init(value: 500, script: ScriptTemplate.p2wpkh([0x03] + [UInt8](repeating: 6, count: 32))),
            ],
            lockTime: 0)
        var psbt = try PSBT(unsignedTransaction: tx)
        psbt.inputs[0].insertInOrder(PSBT.Pair(type: PSBTField.inWitnessUtxo, value: Self.txOut(100_000, inputScript)))
        psbt.inputs[0].insertInOrder(
            PSBT.Pair(type: PSBTField.inBIP32Derivation, keyData: spend.compressed, value: try Self.origin("m/84'/1'/0'/0/0")))
        psbt.outputs[1].insertInOrder(
            PSBT.Pair(type: PSBTField.outBIP32Derivation, keyData: change.compressed, value: try Self.origin("m/84'/1'/0'/1/0")))
        psbt.outputs[2].insertInOrder(
            PSBT.Pair(type: PSBTField.outBIP32Derivation, keyData: other.compressed, value: try Self.origin("m/84'/1'/0'/1/1")))
        let keys = try BIP32Keyring(root: ExtendedKey.master(seed: Self.seed))
        let (signed, report) = try PSBTSigner(coinType: 1).sign(psbt, keys: keys) { _ in }
        XCTAssertEqual(report.fee, 500)
        XCTAssertEqual(report.outputs.map(\.change), [false, true, false])
        XCTAssertEqual(report.outputs[1].paths, ["m/84'/1'/0'/1/0"])
        XCTAssertEqual(report.inputs[0].kind, "p2wpkh")
        let sig = signed.inputs[0].all(PSBTField.inPartialSig)
        XCTAssertEqual(sig.map(\.keyData), [spend.compressed])
        // The signature verifies against BIP143's hash of this input.
        let hash = try Sighash.segwitV0(
            tx, input: 0, scriptCode: ScriptTemplate.p2pkh(Hash.hash160(spend.compressed)), amount: 100_000, type: Sighash.all)
        XCTAssertTrue(try Self.verifyDER(Array(sig[0].value.dropLast()), hash: hash, key: spend))
        XCTAssertEqual(sig[0].value.last, 0x01)
        let final = try PSBTFinalizer.extract(try PSBTFinalizer.finalized(signed))
        XCTAssertEqual(final.inputs[0].witness, [sig[0].value, spend.compressed])
        XCTAssertEqual(report.vsize, PSBTFinalizer.vsize(final))
        // An estimated size is never below the real one (signatures counted at their largest).
        XCTAssertGreaterThanOrEqual(
            PSBTFinalizer.estimatedVsize(psbt, utxos: [BitcoinTx.Output(value: 100_000, script: inputScript)])!, report.vsize!)

        // The mainnet coin type for a testnet path: refused, the network named.
        XCTAssertEqual(try refusal(psbt, signer: PSBTSigner(coinType: 0), keys: keys), .wrongNetwork(path: "m/84'/1'/0'/0/0", expected: 0))
        // A change derivation whose path gives another key: refused, not just "not change".
        var forged = psbt
        forged.outputs[1].insertInOrder(
            PSBT.Pair(type: PSBTField.outBIP32Derivation, keyData: change.compressed, value: try Self.origin("m/84'/1'/0'/1/7")))
        XCTAssertEqual(try refusal(forged, keys: keys)?.code, "psbt.wrong_derivation")
        // Our key on an input that pays another key hash.
        var wrongInput = psbt
        wrongInput.inputs[0].insertInOrder(
            PSBT.Pair(type: PSBTField.inWitnessUtxo, value: Self.txOut(100_000, ScriptTemplate.p2wpkh(other.compressed))))
        XCTAssertEqual(try refusal(wrongInput, keys: keys)?.code, "psbt.script_mismatch")
    }

    /// Change that is not ours (#42): outputs whose derivations carry our fingerprint and give
    /// the keys they claim, but at another coin type, purpose or account, on the receive chain,
    /// at an absurd or hardened index, at m itself, or in a 1-of-2 with a stranger: each a
    /// payment, in `sent`. Only the account's chain 1 below the bound, and a multisig no other
    /// keys can spend, is change.
    func testChangeIsOnlyTheSignedAccountsChangeChain() throws {
        let spend = try Self.key("m/84'/1'/0'/0/0")
        let foreign = [0x02] + [UInt8](repeating: 7, count: 32)
        func multisig(_ m: UInt8, _ keys: [[UInt8]]) -> [UInt8] {
            [0x50 + m] + keys.flatMap { [0x21] + $0 } + [0x50 + UInt8(keys.count), 0xAE]
        }
        let single = [
            "m/84'/1'/0'/1/0", "m/84'/2'/0'/1/0", "m/84'/1'/7'/1/0", "m/84'/1'/0'/0/3", "m/84'/1'/0'/1/2000000000",
            "m/84'/1'/0'/1/5'", "m", "m/49'/1'/0'/1/0", "m/84'/1'/0'/1/99999", "m/84'/1'/0'/1/100000",
        ]
        let oneOfTwo = multisig(1, [try Self.key("m/84'/1'/0'/1/3").compressed, foreign])
        let twoOfTwo = multisig(2, [try Self.key("m/84'/1'/0'/1/4").compressed, try Self.key("m/84'/1'/0'/1/5").compressed])
        let twoOfThree = multisig(2, [try Self.key("m/84'/1'/0'/1/6").compressed, try Self.key("m/84'/1'/0'/1/7").compressed, foreign])
        var outputs = try single.map { BitcoinTx.Output(value: 1_000, script: ScriptTemplate.p2wpkh(try Self.key($0).compressed)) }
        outputs += [oneOfTwo, twoOfTwo, twoOfThree].map { BitcoinTx.Output(value: 2_000, script: [0x00, 0x20] + Hash.sha256($0)) }
        let tx = BitcoinTx(
            version: 2, inputs: [.init(previousTxID: [UInt8](repeating: 0xCD, count: 32), previousIndex: 0, sequence: 0xFFFF_FFFD)],
            outputs: outputs, lockTime: 0)
        var psbt = try PSBT(unsignedTransaction: tx)
        psbt.inputs[0].insertInOrder(
            PSBT.Pair(type: PSBTField.inWitnessUtxo, value: Self.txOut(100_000, ScriptTemplate.p2wpkh(spend.compressed))))
        psbt.inputs[0].insertInOrder(
            PSBT.Pair(type: PSBTField.inBIP32Derivation, keyData: spend.compressed, value: try Self.origin("m/84'/1'/0'/0/0")))
        for (o, path) in single.enumerated() {
            psbt.outputs[o].insertInOrder(
                PSBT.Pair(type: PSBTField.outBIP32Derivation, keyData: try Self.key(path).compressed, value: try Self.origin(path)))
        }
        for (o, (script, paths)) in [
            (oneOfTwo, ["m/84'/1'/0'/1/3"]), (twoOfTwo, ["m/84'/1'/0'/1/4", "m/84'/1'/0'/1/5"]),
            (twoOfThree, ["m/84'/1'/0'/1/6", "m/84'/1'/0'/1/7"]),
        ].enumerated() {
            psbt.outputs[single.count + o].insertInOrder(PSBT.Pair(type: PSBTField.outWitnessScript, value: script))
            for path in paths {
                psbt.outputs[single.count + o].insertInOrder(
                    PSBT.Pair(type: PSBTField.outBIP32Derivation, keyData: try Self.key(path).compressed, value: try Self.origin(path)))
            }
        }
        let keys = try BIP32Keyring(root: ExtendedKey.master(seed: Self.seed))
        let (_, report) = try PSBTSigner(coinType: 1).sign(psbt, keys: keys) { _ in }
        // The 2-of-3 holds two of our keys: the stranger alone cannot spend it, so it is change.
        XCTAssertEqual(
            report.outputs.map(\.change), [true, false, false, false, false, false, false, false, true, false, false, true, true])
        XCTAssertEqual(report.fee, 100_000 - 16_000)
    }

    /// The same outpoint spent by two inputs (#42: signed, its amount counted twice in the
    /// fee): refused by name. A derivation path of more than 255 steps (#42: 50,000 steps
    /// with our fingerprint took 4 GB): refused as the PSBT is read.
    func testDuplicateInputsAndOverlongPaths() throws {
        let spend = try Self.key("m/84'/1'/0'/0/0")
        let outpoint = BitcoinTx.Input(previousTxID: [UInt8](repeating: 0x55, count: 32), previousIndex: 2, sequence: 0xFFFF_FFFD)
        let tx = BitcoinTx(
            version: 2, inputs: [outpoint, outpoint],
            outputs: [.init(value: 150_000, script: ScriptTemplate.p2wpkh([0x02] + [UInt8](repeating: 5, count: 32)))], lockTime: 0)
        var psbt = try PSBT(unsignedTransaction: tx)
        for i in 0..<2 {
            psbt.inputs[i].insertInOrder(
                PSBT.Pair(type: PSBTField.inWitnessUtxo, value: Self.txOut(100_000, ScriptTemplate.p2wpkh(spend.compressed))))
            psbt.inputs[i].insertInOrder(
                PSBT.Pair(type: PSBTField.inBIP32Derivation, keyData: spend.compressed, value: try Self.origin("m/84'/1'/0'/0/0")))
        }
        let keys = try BIP32Keyring(root: ExtendedKey.master(seed: Self.seed))
        XCTAssertEqual(try refusal(psbt, keys: keys), .duplicateInput(first: 0, second: 1))

        func withPath(steps: Int) throws -> PSBT {
            var p = try PSBT(unsignedTransaction: BitcoinTx(version: 2, inputs: [outpoint], outputs: tx.outputs, lockTime: 0))
            p.inputs[0].insertInOrder(
                PSBT.Pair(type: PSBTField.inWitnessUtxo, value: Self.txOut(200_000, ScriptTemplate.p2wpkh(spend.compressed))))
            let path = [UInt8](repeating: 0, count: 4 * steps)
            p.inputs[0].insertInOrder(
                PSBT.Pair(type: PSBTField.inBIP32Derivation, keyData: spend.compressed, value: Self.fingerprint + path))
            return try PSBT(parsing: p.serialized())
        }
        XCTAssertNoThrow(try withPath(steps: 255))
        for steps in [256, 50_000] {
            XCTAssertThrowsError(try withPath(steps: steps)) { error in
                XCTAssertEqual(
                    (error as? PSBTError).map { "\($0.message)" },
                    "input 0 PSBT_IN_BIP32_DERIVATION: its path has \(steps) steps, and BIP32 keys are at most 255 deep")
            }
        }
    }

    /// A 2-of-3 multisig wallet this key is a cosigner of (#42): told by its descriptor, the
    /// signer shows the wallet's own change as change (the descriptor builds the same script at
    /// a change index); the same path with another policy, the receive chain, and every
    /// output without the descriptor stay payments. A descriptor whose key under our
    /// fingerprint is not ours, or with no key of ours, is refused.
    func testAMultisigWalletsChangeByItsDescriptor() throws {
        let seeds = [Self.seed, SecureBytes((0..<32).map { UInt8($0 + 100) }), SecureBytes((0..<32).map { UInt8($0 + 200) })]
        let masters = try seeds.map { try ExtendedKey.master(seed: $0) }
        let account = try DerivationPath(parsing: "m/48'/1'/0'/2'")
        let xpubs = try masters.map { try $0.derive(account.components).neutered }
        func key(_ m: Int, _ chain: UInt32, _ index: UInt32) throws -> [UInt8] {
            try xpubs[m].child(chain).child(index).publicKey.compressed
        }
        func origin(_ m: Int, _ chain: UInt32, _ index: UInt32) -> [UInt8] {
            masters[m].fingerprint
                + (account.components + [chain, index]).flatMap { c in withUnsafeBytes(of: c.littleEndian) { Array($0) } }
        }
        let keyText = { (m: Int, xpub: ExtendedKey) in
            "[\(Hex.encode(masters[m].fingerprint))/48'/1'/0'/2']\(xpub.serialized(version: .tpub))/<0;1>/*"
        }
        let text = "wsh(sortedmulti(2,\((0..<3).map { keyText($0, xpubs[$0]) }.joined(separator: ","))))"
        let wallet = try MultisigDescriptor(parsing: text)
        let (inputScript, inputWitness) = try wallet.script(chain: 0, index: 0)
        let (change, changeWitness) = try wallet.script(chain: 1, index: 5)
        let oneOfThree = try MultisigDescriptor(parsing: text.replacingOccurrences(of: "sortedmulti(2,", with: "sortedmulti(1,")).script(
            chain: 1, index: 5)
        let receive = try wallet.script(chain: 0, index: 7)
        let tx = BitcoinTx(
            version: 2, inputs: [.init(previousTxID: [UInt8](repeating: 0x31, count: 32), previousIndex: 0, sequence: 0xFFFF_FFFD)],
            outputs: [
                .init(value: 60_000, script: change), .init(value: 10_000, script: oneOfThree.scriptPubKey),
                .init(value: 20_000, script: receive.scriptPubKey),
            ], lockTime: 0)
        var psbt = try PSBT(unsignedTransaction: tx)
        psbt.inputs[0].insertInOrder(PSBT.Pair(type: PSBTField.inWitnessUtxo, value: Self.txOut(100_000, inputScript)))
        psbt.inputs[0].insertInOrder(PSBT.Pair(type: PSBTField.inWitnessScript, value: inputWitness))
        for m in 0..<3 {
            psbt.inputs[0].insertInOrder(PSBT.Pair(type: PSBTField.inBIP32Derivation, keyData: try key(m, 0, 0), value: origin(m, 0, 0)))
        }
        for (o, (witness, chain, index)) in [
            (changeWitness, UInt32(1), UInt32(5)), (oneOfThree.witnessScript, 1, 5), (receive.witnessScript, 0, 7),
        ].enumerated() {
            psbt.outputs[o].insertInOrder(PSBT.Pair(type: PSBTField.outWitnessScript, value: witness))
            for m in 0..<3 {
                psbt.outputs[o].insertInOrder(
                    PSBT.Pair(type: PSBTField.outBIP32Derivation, keyData: try key(m, chain, index), value: origin(m, chain, index)))
            }
        }
        let keys = try BIP32Keyring(root: masters[0])
        // Without the descriptor: the shared wallet's change is a payment (our key alone cannot spend it).
        XCTAssertEqual(try PSBTSigner(coinType: 1).sign(psbt, keys: keys) { _ in }.report.outputs.map(\.change), [false, false, false])
        var signer = PSBTSigner(coinType: 1)
        signer.wallets = [wallet]
        let (signed, report) = try signer.sign(psbt, keys: keys) { _ in }
        XCTAssertEqual(report.outputs.map(\.change), [true, false, false])
        XCTAssertEqual(report.outputs.map(\.wallet), [0, nil, nil])
        XCTAssertEqual(report.inputs.map(\.signed), [1])
        XCTAssertEqual(signed.inputs[0].all(PSBTField.inPartialSig).map(\.keyData), [try key(0, 0, 0)])
        // Our fingerprint with another key, and a wallet with no key of ours.
        let stranger = try ExtendedKey.master(seed: SecureBytes((0..<32).map { UInt8($0 + 50) })).derive(account.components).neutered
        for (bad, why) in [
            (
                text.replacingOccurrences(of: xpubs[0].serialized(version: .tpub), with: stranger.serialized(version: .tpub)),
                "names our fingerprint at m/48'/1'/0'/2' with another key"
            ),
            (
                "wsh(sortedmulti(2,\(keyText(1, xpubs[1])),\(keyText(2, xpubs[2]))))",
                "holds no key of ours (no key origin with our fingerprint)"
            ),
        ] {
            signer.wallets = [try MultisigDescriptor(parsing: bad)]
            XCTAssertEqual(try refusal(psbt, signer: signer, keys: keys), .notOurWallet(why))
        }
        // Malformed descriptors are refused as they are read.
        for bad in [
            "wpkh(\(keyText(0, xpubs[0])))", "wsh(sortedmulti(4,\((0..<3).map { keyText($0, xpubs[$0]) }.joined(separator: ","))))",
            "wsh(sortedmulti(2,\(xpubs[0].serialized(version: .tpub))/<0;1>/*,\(keyText(1, xpubs[1]))))", text + "#aaaaaaaa",
        ] {
            XCTAssertThrowsError(try MultisigDescriptor(parsing: bad), bad)
        }
    }

    /// A version 2 PSBT (BIP370: the transaction in per-input and per-output fields) of the same
    /// transaction as a version 0 one: the same signature, written back into the version 2 maps.
    func testAVersion2PSBTIsSignedAsItsVersion0Twin() throws {
        let spend = try Self.key("m/84'/1'/0'/0/0")
        let tx = BitcoinTx(
            version: 2, inputs: [.init(previousTxID: [UInt8](repeating: 0x42, count: 32), previousIndex: 3, sequence: 0xFFFF_FFFD)],
            outputs: [.init(value: 90_000, script: ScriptTemplate.p2wpkh([0x02] + [UInt8](repeating: 5, count: 32)))], lockTime: 0)
        let utxo = Self.txOut(100_000, ScriptTemplate.p2wpkh(spend.compressed))
        let derivation = PSBT.Pair(type: PSBTField.inBIP32Derivation, keyData: spend.compressed, value: try Self.origin("m/84'/1'/0'/0/0"))
        var v0 = try PSBT(unsignedTransaction: tx)
        v0.inputs[0].insertInOrder(PSBT.Pair(type: PSBTField.inWitnessUtxo, value: utxo))
        v0.inputs[0].insertInOrder(derivation)
        func le32(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
        func le64(_ v: UInt64) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
        let maps: [[PSBT.Pair]] = [
            [
                .init(type: PSBTField.globalTxVersion, value: le32(2)), .init(type: PSBTField.globalInputCount, value: [1]),
                .init(type: PSBTField.globalOutputCount, value: [1]), .init(type: PSBTField.globalVersion, value: le32(2)),
            ],
            [
                .init(type: PSBTField.inWitnessUtxo, value: utxo), derivation,
                .init(type: PSBTField.inPreviousTxid, value: tx.inputs[0].previousTxID),
                .init(type: PSBTField.inOutputIndex, value: le32(3)), .init(type: PSBTField.inSequence, value: le32(0xFFFF_FFFD)),
            ],
            [.init(type: PSBTField.outAmount, value: le64(90_000)), .init(type: PSBTField.outScript, value: tx.outputs[0].script)],
        ]
        var bytes = PSBT.magic
        for map in maps {
            for pair in map { bytes += [UInt8(pair.key.count)] + pair.key + [UInt8(pair.value.count)] + pair.value }
            bytes.append(0)
        }
        // An output amount of 2^64 − 1 (version 2 writes amounts as bare 8 bytes): refused, no
        // sum overflows.
        var huge = bytes
        let at = huge.indices.first { $0 + 11 <= huge.count && Array(huge[$0..<$0 + 11]) == [1, 0x03, 8] + le64(90_000) }!
        huge.replaceSubrange(at + 3..<at + 11, with: [UInt8](repeating: 0xFF, count: 8))
        XCTAssertEqual(
            try refusal(try PSBT(parsing: huge), keys: try BIP32Keyring(root: ExtendedKey.master(seed: Self.seed)))?.code,
            "psbt.negative_fee")
        // Transaction version 1 in a version 2 PSBT (#42: it was signed): refused as policy.
        var old = bytes
        let v = old.indices.first { $0 + 7 <= old.count && Array(old[$0..<$0 + 7]) == [1, 0x02, 4] + le32(2) }!
        old.replaceSubrange(v + 3..<v + 7, with: le32(1))
        XCTAssertEqual(try PSBT(parsing: old).transaction.version, 1)
        XCTAssertEqual(
            try refusal(try PSBT(parsing: old), keys: try BIP32Keyring(root: ExtendedKey.master(seed: Self.seed))), .transactionVersion(1))

        let v2 = try PSBT(parsing: bytes)
        XCTAssertEqual(v2.version, 2)
        XCTAssertEqual(v2.transaction, tx)
        let keys = try BIP32Keyring(root: ExtendedKey.master(seed: Self.seed))
        let (signed0, _) = try PSBTSigner(coinType: 1).sign(v0, keys: keys) { _ in }
        let (signed2, report) = try PSBTSigner(coinType: 1).sign(v2, keys: keys) { _ in }
        XCTAssertEqual(report.inputs.map(\.signed), [1])
        XCTAssertEqual(signed2.inputs[0].all(PSBTField.inPartialSig), signed0.inputs[0].all(PSBTField.inPartialSig))
        // Finalized, a version 2 input keeps the fields that make up the transaction.
        let final = try PSBTFinalizer.finalized(signed2)
        XCTAssertEqual(
            final.inputs[0].pairs.map(\.type),
            [
                PSBTField.inWitnessUtxo, PSBTField.inFinalScriptWitness, PSBTField.inPreviousTxid,
                PSBTField.inOutputIndex, PSBTField.inSequence,
            ])
        XCTAssertEqual(try PSBTFinalizer.extract(final), try PSBTFinalizer.extract(try PSBTFinalizer.finalized(signed0)))
    }

    static func verifyDER(_ der: [UInt8], hash: [UInt8], key: Secp256k1.PublicKey) throws -> Bool {
        // DER: 30 len 02 rlen r 02 slen s, each integer left-padded to 32 bytes.
        let rLen = Int(der[3]), r = Array(der[4..<4 + rLen]), sLen = Int(der[5 + rLen]), s = Array(der[6 + rLen..<6 + rLen + sLen])
        func fixed(_ v: [UInt8]) -> [UInt8] { let t = Array(v.drop { $0 == 0 }); return [UInt8](repeating: 0, count: 32 - t.count) + t }
        return try Secp256k1.verifyECDSA(hash: hash, compact: fixed(r) + fixed(s), publicKey: key)
    }

    /// BIP86 key path: the x-only internal key of ours, the output key its tweak; the signature
    /// is BIP340 over BIP341's hash, by the tweaked key, 64 bytes (SIGHASH_DEFAULT).
    func testTaprootKeyPath() throws {
        let internalKey = try Self.key("m/86'/1'/0'/0/0")
        let xOnly = Array(internalKey.compressed.dropFirst())
        let outputKey = try internalKey.taprootOutputKey()
        let script = [0x51, 0x20] + outputKey
        let otherScript = ScriptTemplate.p2wpkh(try Self.key("m/84'/1'/0'/0/9").compressed)
        let tx = BitcoinTx(
            version: 2,
            inputs: [
                .init(previousTxID: [UInt8](repeating: 0xCD, count: 32), previousIndex: 0),
                .init(previousTxID: [UInt8](repeating: 0xEF, count: 32), previousIndex: 3),
            ],
            outputs: [.init(value: 70_000, script: [0x51, 0x20] + [UInt8](repeating: 9, count: 32))], lockTime: 0)
        var psbt = try PSBT(unsignedTransaction: tx)
        psbt.inputs[0].insertInOrder(PSBT.Pair(type: PSBTField.inWitnessUtxo, value: Self.txOut(50_000, script)))
        psbt.inputs[0].insertInOrder(PSBT.Pair(type: PSBTField.inTapInternalKey, value: xOnly))
        psbt.inputs[0].insertInOrder(
            PSBT.Pair(type: PSBTField.inTapBIP32Derivation, keyData: xOnly, value: try Self.origin("m/86'/1'/0'/0/0", leaves: true)))
        // The second input is not ours (no derivation), but its UTXO is committed to.
        psbt.inputs[1].insertInOrder(PSBT.Pair(type: PSBTField.inWitnessUtxo, value: Self.txOut(30_000, otherScript)))
        let keys = try BIP32Keyring(root: ExtendedKey.master(seed: Self.seed))
        let (signed, report) = try PSBTSigner(coinType: 1).sign(psbt, keys: keys) { _ in }
        XCTAssertEqual(report.inputs.map(\.kind), ["p2tr", "p2wpkh"])
        XCTAssertEqual(report.inputs.map(\.ours), [true, false])
        XCTAssertEqual(report.inputs.map(\.complete), [true, false])
        XCTAssertEqual(report.inputs[0].sighash, Sighash.taprootDefault)
        let sig = try XCTUnwrap(signed.inputs[0].value(PSBTField.inTapKeySig))
        XCTAssertEqual(sig.count, 64)
        let hash = try Sighash.taprootKeyPath(
            tx, input: 0, prevouts: [.init(value: 50_000, script: script), .init(value: 30_000, script: otherScript)], type: 0)
        XCTAssertTrue(Secp256k1.verifySchnorr(message: hash, signature: sig, xOnlyPublicKey: outputKey))
        // The finalizer puts the signature alone in the witness; input 1 still waits for its signer.
        XCTAssertThrowsError(try PSBTFinalizer.finalized(signed)) { XCTAssertEqual($0 as? PSBTSignError, .notComplete(inputs: [1])) }

        // An internal key that does not tweak to the output key: refused.
        var wrong = psbt
        wrong.inputs[0].insertInOrder(PSBT.Pair(type: PSBTField.inTapMerkleRoot, value: [UInt8](repeating: 1, count: 32)))
        XCTAssertEqual(try refusal(wrong, keys: keys)?.code, "psbt.script_mismatch")
        // With SIGHASH_ALL asked for, the signature carries the byte (65 bytes).
        var all = psbt
        all.inputs[0].insertInOrder(PSBT.Pair(type: PSBTField.inSighashType, value: [1, 0, 0, 0]))
        let (signedAll, _) = try PSBTSigner().sign(all, keys: keys) { _ in }
        XCTAssertEqual(signedAll.inputs[0].value(PSBTField.inTapKeySig)?.count, 65)
        XCTAssertEqual(signedAll.inputs[0].value(PSBTField.inTapKeySig)?.last, 0x01)

        // Signed again: the signature there verifies, so it counts and nothing is added.
        let (again, againReport) = try PSBTSigner(coinType: 1).sign(signed, keys: keys) { _ in }
        XCTAssertEqual(againReport.inputs.map(\.signed), [0, 0])
        XCTAssertEqual(againReport.inputs.map(\.complete), [true, false])
        XCTAssertEqual(again.inputs[0].value(PSBTField.inTapKeySig), sig)
        // A garbage key-path signature on our BIP86 input (#42: it gave signed_inputs [] and
        // complete): refused by name, as is a valid one that signs another sighash type.
        var garbage = psbt
        garbage.inputs[0].insertInOrder(PSBT.Pair(type: PSBTField.inTapKeySig, value: [UInt8](repeating: 0x11, count: 64)))
        XCTAssertEqual(try refusal(garbage, keys: keys), .badSignature(input: 0, field: "PSBT_IN_TAP_KEY_SIG", key: Hex.encode(outputKey)))
        var otherType = psbt
        otherType.inputs[0].insertInOrder(PSBT.Pair(type: PSBTField.inTapKeySig, value: sig + [0x01]))
        XCTAssertEqual(try refusal(otherType, keys: keys)?.code, "psbt.bad_signature")
    }

    /// A signature already in the PSBT under our key (#42): a garbage one was taken as ours,
    /// the input counted complete and, with --finalize, an invalid transaction written. Each
    /// is verified against its sighash: a valid one counts, a bad one is refused by name, and
    /// so is one under a stranger's key on our input or one of a key the input does not pay.
    func testSignaturesAlreadyThereAreVerified() throws {
        let spend = try Self.key("m/84'/1'/0'/0/0")
        let tx = BitcoinTx(
            version: 2, inputs: [.init(previousTxID: [UInt8](repeating: 0x77, count: 32), previousIndex: 0, sequence: 0xFFFF_FFFD)],
            outputs: [.init(value: 90_000, script: ScriptTemplate.p2wpkh([0x02] + [UInt8](repeating: 5, count: 32)))], lockTime: 0)
        var psbt = try PSBT(unsignedTransaction: tx)
        psbt.inputs[0].insertInOrder(
            PSBT.Pair(type: PSBTField.inWitnessUtxo, value: Self.txOut(100_000, ScriptTemplate.p2wpkh(spend.compressed))))
        psbt.inputs[0].insertInOrder(
            PSBT.Pair(type: PSBTField.inBIP32Derivation, keyData: spend.compressed, value: try Self.origin("m/84'/1'/0'/0/0")))
        let keys = try BIP32Keyring(root: ExtendedKey.master(seed: Self.seed))
        let (signed, first) = try PSBTSigner(coinType: 1).sign(psbt, keys: keys) { _ in }
        XCTAssertEqual(first.inputs.map(\.signed), [1])
        let (_, again) = try PSBTSigner(coinType: 1).sign(signed, keys: keys) { _ in }
        XCTAssertEqual(again.inputs.map(\.signed), [0])
        XCTAssertTrue(again.complete)
        let good = try XCTUnwrap(signed.inputs[0].all(PSBTField.inPartialSig).first?.value)
        func with(_ value: [UInt8], key: [UInt8] = spend.compressed) -> PSBT {
            var p = psbt
            p.inputs[0].insertInOrder(PSBT.Pair(type: PSBTField.inPartialSig, keyData: key, value: value))
            return p
        }
        let bad = PSBTSignError.badSignature(input: 0, field: "PSBT_IN_PARTIAL_SIG", key: Hex.encode(spend.compressed))
        var flipped = good
        flipped[10] ^= 1
        for forged in [[0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01, 0x01], flipped, Array(good.dropLast()) + [0x03], [0x01]] {
            XCTAssertEqual(try refusal(with(forged), keys: keys), bad)
        }
        // The right signature under another key: that key's P2WPKH is not this input.
        let stranger = try Self.key("m/84'/1'/0'/0/1").compressed
        XCTAssertEqual(
            try refusal(with(good, key: stranger), keys: keys),
            .badSignature(input: 0, field: "PSBT_IN_PARTIAL_SIG", key: Hex.encode(stranger)))
        // --finalize of the forged PSBT can no longer happen: the signer refuses it first.
        XCTAssertThrowsError(try PSBTSigner().sign(with(flipped), keys: keys) { _ in XCTFail("the summary of a forged PSBT") })
    }
}
