import Bitcoin
import CCurveBatch
import Foundation
import Monero
import WalletCore
import Zcash
import WalletCrypto

// The constant-time check of Zcash's Swift scalar multiplications (make ctime), which run on
// the portable path (a CPU without AVX2): the IVK is made of bytes that were never written —
// memory from the allocator, undefined for valgrind's memcheck — so a branch or an address
// that depends on it is a memcheck error. Only public operations turn those words into a
// scalar. Run from a copy without debug information (Debian's valgrind reads no DWARF 5).

/// Four words nothing wrote: memcheck sees every bit undefined.
func undefinedWords() -> [UInt64] {
    let p = UnsafeMutablePointer<UInt64>.allocate(capacity: 4)
    return Array(UnsafeBufferPointer(start: p, count: 4))
}

/// A field element from undefined words: Σ wᵢ · 2^(64·i), by field operations only.
func secret<M>(_: PrimeField<M>.Type) -> PrimeField<M> {
    let words = undefinedWords()
    let two32 = PrimeField<M>(1 << 32)
    var k = PrimeField<M>(0), place = PrimeField<M>(1)
    for w in words {
        k = k + PrimeField<M>(w) * place
        place = place * two32 * two32
    }
    return k
}

let which = CommandLine.arguments.dropFirst().first ?? "all"
// Public points: decoded from fixed encodings (decoding may branch on them).
var pallas = [PallasPoint]()
var seed: UInt8 = 1
while pallas.count < 3 {
    if let p = PallasPoint(bytes: [seed] + [UInt8](repeating: 0, count: 31)) { pallas.append(p) }
    seed += 1
}
var jubjub = [JubjubPoint]()
seed = 1
while jubjub.count < 3 {
    if let p = JubjubPoint(bytes: [seed] + [UInt8](repeating: 0, count: 31)) { jubjub.append(p) }
    seed += 1
}
if which == "all" || which == "pallas" {
    let ivk = PallasGLVScalar(secret(PallasScalar.self))
    let out = PallasBatch.encodedMultiples(pallas, by: ivk, path: .portable)
    print("ctime: Pallas ivk·P on the portable path (Swift): \(out.count) points")
}
if which == "all" || which == "jubjub" {
    let ivk = JubjubBatch.Scalar(secret(Fr.self))
    let out = JubjubBatch.encodedMultiples(jubjub, by: ivk, cofactor: true, path: .portable)
    print("ctime: Jubjub ivk·[8]P on the portable path (Swift): \(out.count) points")
}

/// n bytes nothing wrote.
func undefinedBytes(_ n: Int) -> [UInt8] {
    let p = UnsafeMutablePointer<UInt8>.allocate(capacity: n)
    return Array(UnsafeBufferPointer(start: p, count: n))
}

/// A valid secp256k1 private key (random bytes below n, not 0), then marked undefined for
/// memcheck: libsecp256k1 refuses memory nothing wrote, so the key is made first.
func secretSecp256k1Key() -> SecureBytes {
    var bytes = [UInt8](repeating: 0, count: 32)
    repeat { bytes = (0..<32).map { _ in UInt8.random(in: 0...255) } } while !Secp256k1.isValidPrivateKey(SecureBytes(bytes))
    let key = SecureBytes(bytes)
    key.withUnsafeBytes { satchel_classify($0.baseAddress, $0.count) }
    return key
}

if which == "all" || which == "orchard-keys" {
    // A spending key's full viewing key: PRF^expand, [ask]G, CommitIvk (Sinsemilla) for both scopes.
    let fvk = try! OrchardFullViewingKey(spendingKey: undefinedBytes(32))
    let address = fvk.incomingViewingKey(change: false).address(at: DiversifierIndex(0))
    print("ctime: Orchard full viewing key and an address from a secret spending key (Swift): \(address.transmissionKey.count) bytes")
}
if which == "all" || which == "orchard-qsk-keys" {
    // ZIP 2005's use_qsk = true rule: qsk by PRF^expand, qk by BLAKE3's derive_key, rivk by
    // PRF^expand over (qk, ak, nk), then CommitIvk for both scopes.
    let fvk = try! OrchardFullViewingKey(spendingKey: undefinedBytes(32), rivkRule: .quantumSecure)
    let address = fvk.incomingViewingKey(change: false).address(at: DiversifierIndex(0))
    print("ctime: Orchard use_qsk keys and an address from a secret spending key (Swift): \(address.transmissionKey.count) bytes")
}
if which == "all" || which == "orchard-note" {
    // A received note's commitment (NoteCommit, Sinsemilla) and nullifier (Poseidon over nk).
    let fvk = try! OrchardFullViewingKey(spendingKey: [UInt8](repeating: 7, count: 32))
    let address = fvk.incomingViewingKey(change: false).address(at: DiversifierIndex(0))
    let note = OrchardNote(
        address: address, value: UnsafeMutablePointer<UInt64>.allocate(capacity: 1).pointee,
        rho: secret(PallasBase.self), rseed: undefinedBytes(32))
    let nf = note.nullifier(nk: secret(PallasBase.self))
    print("ctime: Orchard note commitment and nullifier of a secret note (Swift): \(nf?.bytes.count ?? 0) bytes")
}
if which == "all" || which == "redpallas" {
    // A spend authorization: rsk = ask + alpha, r = H*(T ‖ vk ‖ M), [r]G, [rsk]G, S = r + c·rsk.
    let rsk = secret(PallasScalar.self) + secret(PallasScalar.self)
    let signature = RedPallas.sign([UInt8](repeating: 3, count: 32), key: rsk, random: undefinedBytes(80))
    print("ctime: a RedPallas signature with a secret key and nonce (Swift): \(signature.count) bytes")
}
if which == "all" || which == "sapling-keys" {
    // A seed's Sapling keys: ask·G, nsk·H, ivk (CRH^ivk), the default address (FF1, ivk·g_d).
    let key = SaplingExtendedSpendingKey.master(seed: undefinedBytes(32))
    let (_, address) = key.fullViewingKey.incomingViewingKey.defaultAddress()
    print("ctime: Sapling keys and an address from a secret seed (Swift): \(address.transmissionKey.count) bytes")
}
if which == "all" || which == "sapling-note" {
    // A note to a public address (our own) with a secret value and rcm.
    let (_, address) = SaplingExtendedSpendingKey.master(seed: [UInt8](repeating: 7, count: 32)).fullViewingKey.incomingViewingKey
        .defaultAddress()
    let note = SaplingNote(
        diversifier: address.diversifier, transmissionKey: address.transmissionKey,
        value: UnsafeMutablePointer<UInt64>.allocate(capacity: 1).pointee, rcm: secret(Fr.self))
    let nf = note.nullifier(nk: jubjub[1].times(secret(Fr.self)), position: 5)
    print("ctime: Sapling note commitment and nullifier of a secret note (Swift): \(nf?.count ?? 0) bytes")
}
if which == "all" || which == "monero" {
    // Monero's key derivation 8·(a·R) with the view key a (EdwardsPoint.times, Swift), as a
    // scan makes it for every transaction key R.
    let r = Ed25519.basePointMultiple(bytes: [UInt8](repeating: 3, count: 32))!
    let derivation = Ed25519.moneroDerivation(secret: SecureBytes(undefinedBytes(32)), publicKey: r)
    print("ctime: Monero key derivation with a secret view key (Swift): \(derivation?.count ?? 0) bytes")
}
if which == "all" || which == "silent-payment" {
    // A BIP352 receiver's scan with a secret scan key: its keys, the change label, the ECDH
    // with a transaction's tweak data, t_0, P_0 and the match of a payment to it (the sender's
    // side is public here: its own keys).
    let scanKey = secretSecp256k1Key()
    let keys = try! SilentPaymentKeys(
        scanPrivateKey: scanKey, spendPublicKey: try! Secp256k1.publicKey(of: SecureBytes([UInt8](repeating: 9, count: 32))))
    let receiver = try! SilentPaymentReceiver(keys: keys, labels: [0])
    let input = SecureBytes([UInt8](repeating: 5, count: 32))
    let outpoint = Bitcoin.outpoint([UInt8](repeating: 1, count: 32), 0)
    let paid = try! SilentPaymentSender.outputs(
        inputs: [.init(key: input, taproot: false)], outpoints: [outpoint], recipients: [try! keys.address(testnet: true)])
    let inputKey = try! Secp256k1.publicKey(of: input)
    let tweak = SilentPaymentTweak(inputs: [
        SilentPaymentInput(
            outpoint: outpoint, scriptSig: [], witness: [[0x30], inputKey.compressed],
            spentScript: ScriptTemplate.p2wpkh(inputKey.compressed))
    ])!
    let outputs = [[UInt8](repeating: 2, count: 32), paid[0]]
    let found = try! receiver.scan(tweak, outputs: outputs)
    // The block-at-once scan (scan-blocks'): the shared points on every path this CPU runs
    // (portable: libsecp256k1's ECDH; the others CCurveBatch's ladder with a scalar per lane),
    // the first output keys by the fixed-base kernel (every path's, the portable one's too),
    // and the kernels' own portable code.
    var paths: [String] = []
    for path in CurveBatchPath.allCases where path.isSupported {
        let secrets = try! receiver.sharedSecrets([tweak, tweak, tweak], path: path)
        let first = receiver.firstOutputKeys(secrets, path: path)
        precondition(
            receiver.scan(outputs: outputs, sharedSecret: secrets[2], firstKeys: first?[2]).count == found.count, "the \(path) scan differs"
        )
        // A light receiver's (scan-blocks --tweaks): b_scan·(input_hash·A), one scalar for all lanes.
        let fromRecords = try! receiver.sharedSecrets(tweakPoints: [tweak.point, tweak.point], path: path)
        precondition(receiver.scan(outputs: outputs, sharedSecret: fromRecords[1]).count == found.count, "the \(path) record scan differs")
        let scalars = SecureBytes(secrets.flatMap { SilentPayment.sharedSecretTweak($0.bytes, 0) })
        precondition(Secp256k1Batch.kernelGeneratorSums(scalars: scalars, addends: [keys.spendPublicKey], path: path) != nil)
        paths.append(path.rawValue)
    }
    _ = try! Secp256k1Batch.kernelSharedPoints(privateKey: scanKey, points: [tweak.point, tweak.point], path: .portable)
    _ = try! Secp256k1Batch.kernelSharedPoints(privateKeys: [scanKey, scanKey], points: [tweak.point, tweak.inputKeySum], path: .portable)
    print(
        "ctime: a silent payment scan with a secret scan key (Swift; libsecp256k1, batched on \(paths.joined(separator: ", ")), the portable kernels): \(found.count) found"
    )
}
if which == "all" || which == "dleq" {
    // A BIP374 proof that a secret a made both A = a·G and the ECDH share C = a·B (BIP375's,
    // beside each share of a PSBT that pays a silent payment address).
    let a = secretSecp256k1Key()
    let B = try! Secp256k1.publicKey(of: SecureBytes([UInt8](repeating: 7, count: 32)))
    let proof = try! DLEQ.proof(secret: a, point: B, auxiliary: [UInt8](repeating: 1, count: 32), message: [UInt8](repeating: 2, count: 32))
    print("ctime: a DLEQ proof with a secret key (Swift, libsecp256k1): \(proof.count) bytes")
}
if which == "all" || which == "silent-payment-send" {
    // A BIP352 sender's outputs with a secret input key: the key sum, input_hash times it, the
    // ECDH with each recipient's scan key, t_k and t_k·G.
    let input = secretSecp256k1Key()
    let recipient = try! SilentPaymentKeys(
        scanPrivateKey: SecureBytes([UInt8](repeating: 4, count: 32)),
        spendPublicKey: try! Secp256k1.publicKey(of: SecureBytes([UInt8](repeating: 9, count: 32))))
    let outputs = try! SilentPaymentSender.outputs(
        inputs: [.init(key: input, taproot: false), .init(key: SecureBytes([UInt8](repeating: 6, count: 32)), taproot: true)],
        outpoints: [Bitcoin.outpoint([UInt8](repeating: 1, count: 32), 0), Bitcoin.outpoint([UInt8](repeating: 1, count: 32), 1)],
        recipients: [try! recipient.address(testnet: true), try! recipient.address(label: 1, testnet: true)])
    print("ctime: silent payment outputs from a secret input key (Swift, libsecp256k1): \(outputs.count) outputs")
}
if which == "all" || which == "bip375-share" {
    // BIP375's Signer with two secret input keys (P2WPKH inputs of a version 2 PSBT paying a
    // silent payment address): each key held to its input's public key, their sum, the global
    // ECDH share and its DLEQ proof, then the output script. The keys' bytes are written, their
    // public keys taken for the PSBT, then the keys marked undefined.
    func le<T: FixedWidthInteger>(_ v: T) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
    func pair(_ p: PSBT.Pair) -> [UInt8] { [UInt8(p.key.count)] + p.key + [UInt8(p.value.count)] + p.value }
    let keys = [secretSecp256k1Key(), secretSecp256k1Key()]
    var inputs = [UInt8]()
    for (i, key) in keys.enumerated() {
        // The public key is public: the input names it.
        let point = try! Secp256k1.publicKey(of: key).declassified.compressed
        inputs += pair(PSBT.Pair(type: PSBTField.inPreviousTxid, value: [UInt8](repeating: UInt8(i + 1), count: 32)))
        inputs += pair(PSBT.Pair(type: PSBTField.inOutputIndex, value: le(UInt32(0))))
        inputs += pair(PSBT.Pair(type: PSBTField.inWitnessUtxo, value: le(UInt64(50_000)) + [22] + ScriptTemplate.p2wpkh(point)))
        inputs += pair(PSBT.Pair(type: PSBTField.inBIP32Derivation, keyData: point, value: [0, 0, 0, 0])) + [0]
    }
    let receiver = try! SilentPaymentKeys(
        scanPrivateKey: SecureBytes([UInt8](repeating: 4, count: 32)),
        spendPublicKey: try! Secp256k1.publicKey(of: SecureBytes([UInt8](repeating: 9, count: 32))))
    let global =
        pair(PSBT.Pair(type: PSBTField.globalTxVersion, value: le(UInt32(2))))
        + pair(PSBT.Pair(type: PSBTField.globalInputCount, value: [2]))
        + pair(PSBT.Pair(type: PSBTField.globalOutputCount, value: [1]))
        + pair(PSBT.Pair(type: PSBTField.globalVersion, value: le(UInt32(2))))
    let output =
        pair(PSBT.Pair(type: PSBTField.outAmount, value: le(UInt64(90_000))))
        + pair(PSBT.Pair(type: PSBTField.outSPV0Info, value: receiver.scanPublicKey.compressed + receiver.spendPublicKey.compressed))
    let psbt = try! PSBT(parsing: PSBT.magic + global + [0] + inputs + output + [0])
    let contributed = try! SilentPaymentPSBT.contribute(
        psbt, keys: [0: .init(key: keys[0], taproot: false), 1: .init(key: keys[1], taproot: false)],
        auxiliary: { [UInt8](repeating: 5, count: 32) })
    print(
        "ctime: BIP375 shares and proofs from secret input keys (Swift, libsecp256k1): \(SilentPaymentPSBT.pending(contributed).count) pending"
    )
}
if which == "all" || which == "pczt-sign" {
    // A PCZT's spends signed from a secret seed (the Orchard spend of Keystone's test PCZT, and
    // the same spend's key as a Sapling one): ZIP 32's keys, ask, rsk = ask + alpha with a
    // secret alpha, the rk check, RedPallas and RedJubjub. The seed's real bytes are written,
    // then marked undefined, so the signature still matches the PCZT's rk.
    let path = "Tests/Fixtures/vectors/zcash/pczt/keystone_fw_orchard_to_transparent.pczt"
    var pczt = try! PCZT(parsing: [UInt8](FileManager.default.contents(atPath: path)!))
    let seed = try! Hex.decode(
        "d561f5aba9db8b100a9a84197322e522f952171a388ad74eaab1ab9db815be3335c3099a0a2bb0fee57e630db5ed7251412b6bd4b905cf518627411fee3f32dd")
    seed.withUnsafeBytes { satchel_classify($0.baseAddress, $0.count) }
    pczt.orchard!.actions[0].spend.alpha!.withUnsafeBytes { satchel_classify($0.baseAddress, $0.count) }
    let signed = try! pczt.signShielded(seed: seed)
    let sapling = RedJubjub.sign([UInt8](repeating: 3, count: 32), key: secret(Fr.self) + secret(Fr.self), random: undefinedBytes(80))
    print("ctime: a PCZT's spend signed from a secret seed and alpha (Swift): \(signed) RedPallas, \(sapling.count)-byte RedJubjub")
}
if which == "canary" {
    // A branch on the secret on purpose: make ctime-swift expects memcheck to report it (exit
    // 42), which shows the secret really is undefined for memcheck and the check can fail.
    let words = undefinedWords()
    if words[0] & 1 == 1 { print("ctime: canary odd") } else { print("ctime: canary even") }
}
