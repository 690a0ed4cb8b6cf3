// bitcoin-bench psbt: a 100-input PSBT (P2WPKH inputs below one BIP84 account, each with its
// previous transaction and witness UTXO, as Bitcoin Core's wallet writes them) read, checked,
// signed and written back by the PSBT signer with a fresh key ring per round — the whole of
// what sign-tx does per PSBT but the JSON — beside the reference measured in the same run:
// libsecp256k1 signing the same 100 hashes with the same keys, with Bitcoin Core's low-R
// grinding (the signatures sign-tx writes), and its plain RFC 6979 loop for comparison.
#if canImport(Glibc)
    import Glibc
#endif
import BenchSupport
import Bitcoin
import CSecp256k1
import WalletCore
import WalletKeys
import WalletCrypto

func psbtBench(inputs count: Int) throws {
    let seed = SecureBytes((0..<64).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) })
    let master = try ExtendedKey.master(seed: seed)
    let account: [UInt32] = [84, 1, 0].map { $0 | DerivationPath.hardened } + [0]
    var previous = [BitcoinTx](), keys = [ExtendedKey]()
    let chain = try master.derive(account)
    for i in 0..<count {
        let key = try chain.child(UInt32(i))
        keys.append(key)
        let script = ScriptTemplate.p2wpkh(key.publicKey.compressed)
        previous.append(
            BitcoinTx(
                version: 2,
                inputs: [
                    .init(previousTxID: Hash.sha256(Array("funding \(i)".utf8)), previousIndex: 0, scriptSig: [0x00], sequence: 0xFFFF_FFFE)
                ],
                outputs: [
                    .init(value: 1_000_000 + UInt64(i), script: script),
                    .init(value: 5_000_000, script: ScriptTemplate.p2wpkh([0x02] + Hash.sha256([UInt8(i & 0xFF)]))),
                ],
                lockTime: 0))
    }
    let tx = BitcoinTx(
        version: 2, inputs: previous.map { .init(previousTxID: $0.txid, previousIndex: 0, sequence: 0xFFFF_FFFD) },
        outputs: [
            .init(value: 90_000_000, script: ScriptTemplate.p2wpkh([0x03] + Hash.sha256([1]))),
            .init(
                value: UInt64(count) * 1_000_000 - 90_000_000 - 20_000,
                script: ScriptTemplate.p2wpkh(try chain.child(1_000).publicKey.compressed)),
        ],
        lockTime: 0)
    var psbt = try PSBT(unsignedTransaction: tx)
    let fingerprint = master.fingerprint
    for i in 0..<count {
        var utxo = [UInt8]()
        withUnsafeBytes(of: previous[i].outputs[0].value.littleEndian) { utxo += $0 }
        utxo += [UInt8(previous[i].outputs[0].script.count)] + previous[i].outputs[0].script
        let origin = fingerprint + (account + [UInt32(i)]).flatMap { c in withUnsafeBytes(of: c.littleEndian) { Array($0) } }
        psbt.inputs[i].insertInOrder(PSBT.Pair(type: PSBTField.inNonWitnessUtxo, value: previous[i].serialized()))
        psbt.inputs[i].insertInOrder(PSBT.Pair(type: PSBTField.inWitnessUtxo, value: utxo))
        psbt.inputs[i].insertInOrder(PSBT.Pair(type: PSBTField.inBIP32Derivation, keyData: keys[i].publicKey.compressed, value: origin))
    }
    let text = psbt.base64

    // The reference: the same keys sign the same hashes with libsecp256k1 directly.
    let hashes = (0..<count).map {
        try! Sighash.segwitV0(
            tx, input: $0, scriptCode: ScriptTemplate.p2pkh(Hash.hash160(keys[$0].publicKey.compressed)),
            amount: previous[$0].outputs[0].value, type: Sighash.all)
    }
    let secrets = keys.map { $0.privateKey!.bytes }
    let context = secp256k1_context_create(UInt32(SECP256K1_CONTEXT_NONE))!
    defer { secp256k1_context_destroy(context) }
    var signature = secp256k1_ecdsa_signature()
    var compact = [UInt8](repeating: 0, count: 64)
    var sink = 0
    func lowR() {
        for i in 0..<count {
            var counter: UInt32 = 0
            var entropy = [UInt8](repeating: 0, count: 32)
            while true {
                withUnsafeBytes(of: counter.littleEndian) { entropy.replaceSubrange(0..<4, with: $0) }
                _ = entropy.withUnsafeBytes { extra in
                    secp256k1_ecdsa_sign(context, &signature, hashes[i], secrets[i], nil, counter == 0 ? nil : extra.baseAddress)
                }
                // Bitcoin Core's SigHasLowR: R < 2^255, so DER needs no padding byte.
                _ = secp256k1_ecdsa_signature_serialize_compact(context, &compact, &signature)
                if compact[0] < 0x80 { break }
                counter += 1
            }
            sink &+= Int(compact[5])
        }
    }
    func plain() {
        for i in 0..<count {
            _ = secp256k1_ecdsa_sign(context, &signature, hashes[i], secrets[i], nil, nil)
            sink &+= Int(signature.data.0)
        }
    }
    var signedCount = 0
    func ours() throws {
        let keyring = try BIP32Keyring(root: master)
        let (signed, report) = try PSBTSigner(coinType: 1).sign(try PSBT(base64: text), keys: keyring) { _ in }
        signedCount = report.inputs.filter { $0.signed == 1 }.count
        sink &+= signed.base64.utf8.count
    }
    // Interleaved rounds, so that a slow spell of the machine hits both sides alike; medians.
    var times = [[Double]](repeating: [], count: 3)
    for _ in 0..<15 {
        var start = now()
        try ours()
        times[0].append(now() - start)
        start = now()
        lowR()
        times[1].append(now() - start)
        start = now()
        plain()
        times[2].append(now() - start)
    }
    guard signedCount == count else { fatalError("signed \(signedCount) of \(count) inputs") }
    let medians = times.map { $0.sorted()[$0.count / 2] / Double(count) }
    report("psbt_sign_input", medians[0])
    report("secp256k1_sign_low_r", medians[1])
    report("secp256k1_sign_rfc6979", medians[2])
    if sink == 42 { print("") }
}
