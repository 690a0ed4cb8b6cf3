// bitcoin-bench silent-payments [n]: BIP352 scanning of n realistic transactions (2-3 inputs of
// mixed kinds, P2WPKH, P2TR key path and P2PKH; two taproot outputs; one in a hundred pays the
// receiver) beside the reference measured in the same run: libsecp256k1 doing the same work
// through its public API (pubkey parse and combine for A, tweak-mul for input_hash·A; for the
// receiver the ECDH with b_scan (constant time), the tagged hash, pubkey create and combine for
// P_0 = B_spend + t_0·G (t_0·G in constant time), x-only serialization, and the change label
// checked forward, x(P_0 + label·G), as ours checks a few labels).
// Two parts, as a scanner pays them: the tweak data (once per transaction, for every wallet)
// and the receiver's scan (per transaction and wallet). One JSON line per measurement.
#if canImport(Glibc)
    import Glibc
#endif
import BenchSupport
import Bitcoin
import CSecp256k1
import WalletCore
import WalletCrypto

/// A random valid secp256k1 private key (the benches' inputs).
func randomSecret() -> SecureBytes {
    var rng = SystemRandomNumberGenerator()
    while true {
        let k = SecureBytes((0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) })
        if Secp256k1.isValidPrivateKey(k) { return k }
    }
}

func silentPaymentBench(transactions count: Int, rounds: Int) throws {
    let secret = randomSecret
    let receiver = try SilentPaymentKeys(scanPrivateKey: secret(), spendPublicKey: Secp256k1.publicKey(of: secret()))
    let address = try receiver.address(testnet: false)
    let scanner = try SilentPaymentReceiver(keys: receiver, labels: [0])
    var inputs: [[SilentPaymentInput]] = [], outputs: [[[UInt8]]] = []
    var paying = 0
    for t in 0..<count {
        var txInputs: [SilentPaymentInput] = [], keys: [SilentPaymentSender.InputKey] = []
        for i in 0..<(2 + t % 2) {
            let key = secret()
            let point = try Secp256k1.publicKey(of: key)
            let outpoint = Bitcoin.outpoint(Hash.sha256(Array("tx \(t) input \(i)".utf8)), UInt32(i))
            let signature = [UInt8](repeating: 0x30, count: 71)
            switch (t + i) % 3 {
            case 0:
                txInputs.append(
                    SilentPaymentInput(
                        outpoint: outpoint, scriptSig: [], witness: [signature, point.compressed],
                        spentScript: ScriptTemplate.p2wpkh(point.compressed)))
                keys.append(.init(key: key, taproot: false))
            case 1:
                txInputs.append(
                    SilentPaymentInput(
                        outpoint: outpoint, scriptSig: [], witness: [[UInt8](repeating: 1, count: 64)],
                        spentScript: [0x51, 0x20] + point.xOnly))
                keys.append(.init(key: key, taproot: true))
            default:
                txInputs.append(
                    SilentPaymentInput(
                        outpoint: outpoint, scriptSig: Script.push(signature) + Script.push(point.compressed), witness: [],
                        spentScript: ScriptTemplate.p2pkh(Hash.hash160(point.compressed))))
                keys.append(.init(key: key, taproot: false))
            }
        }
        var txOutputs = [try Secp256k1.publicKey(of: secret()).xOnly, try Secp256k1.publicKey(of: secret()).xOnly]
        if t % 100 == 0 {
            txOutputs[1] = try SilentPaymentSender.outputs(inputs: keys, outpoints: txInputs.map(\.outpoint), recipients: [address])[0]
            paying += 1
        }
        inputs.append(txInputs)
        outputs.append(txOutputs)
    }
    let tweaks = inputs.map { SilentPaymentTweak(inputs: $0)! }
    let context = Secp256k1.context
    let keyBytes: [[[UInt8]]] = inputs.map { $0.map { $0.publicKey!.compressed } }
    let scanKey = receiver.scanPrivateKey.bytes
    var spend = secp256k1_pubkey()
    _ = secp256k1_ec_pubkey_parse(context, &spend, receiver.spendPublicKey.compressed, 33)
    var changeKey = secp256k1_pubkey()
    do {
        let tweak = SilentPayment.labelTweak(scanKey: receiver.scanPrivateKey, label: 0)
        _ = tweak.withUnsafeBytes { secp256k1_ec_pubkey_create(context, &changeKey, $0.baseAddress!.assumingMemoryBound(to: UInt8.self)) }
    }
    let tweakBytes = tweaks.map(\.point.compressed)
    // t_0 of every transaction (the fixed-base kernel's input), and B_spend + label·G for change.
    let firstTweaks: [[UInt8]] = try tweaks.map { SilentPayment.sharedSecretTweak(try scanner.sharedSecret($0).bytes, 0) }
    var changePoint = [UInt8](repeating: 0, count: 33), changeLength = 33
    _ = secp256k1_ec_pubkey_serialize(context, &changePoint, &changeLength, &changeKey, UInt32(SECP256K1_EC_COMPRESSED))
    var spendPlusChange = secp256k1_pubkey()
    /// a + b, and its x-only serialization.
    func sum(_ a: inout secp256k1_pubkey, _ b: inout secp256k1_pubkey) -> (secp256k1_pubkey, [UInt8]) {
        var out = secp256k1_pubkey()
        withUnsafePointer(to: &a) { pa in
            withUnsafePointer(to: &b) { pb in
                var pair: [UnsafePointer<secp256k1_pubkey>?] = [pa, pb]
                _ = secp256k1_ec_pubkey_combine(context, &out, &pair, 2)
            }
        }
        var xonly = secp256k1_xonly_pubkey()
        _ = secp256k1_xonly_pubkey_from_pubkey(context, &xonly, nil, &out)
        var x = [UInt8](repeating: 0, count: 32)
        _ = secp256k1_xonly_pubkey_serialize(context, &x, &xonly)
        return (out, x)
    }
    spendPlusChange = sum(&spend, &changeKey).0
    /// libsecp256k1's ECDH with b_scan: ser_P(S) (BIP352's shared secret), then ser32(0), the
    /// 37 bytes t_0 hashes.
    func referenceECDH(_ t: Int) -> [UInt8] {
        var point = secp256k1_pubkey()
        _ = secp256k1_ec_pubkey_parse(context, &point, tweakBytes[t], 33)
        var shared = [UInt8](repeating: 0, count: 37)
        _ = secp256k1_ecdh(
            context, &shared, &point, scanKey,
            { output, x, y, _ in
                output![0] = 0x02 | (y![31] & 1)
                (output! + 1).update(from: x!, count: 32)
                return 1
            }, nil)
        return shared
    }

    var sink = 0, found = 0, referenceFound = 0
    var parts = InterleavedRounds()
    // The tweak data: ours, then libsecp256k1's public API on the same keys.
    parts.add("sp_tweak_data_ours", iterations: count) { t in
        if SilentPaymentTweak(inputs: inputs[t]) != nil { sink &+= 1 }
    }
    parts.add("sp_tweak_data_libsecp256k1", iterations: count) { t in
        var parsed = keyBytes[t].map { bytes -> secp256k1_pubkey in
            var key = secp256k1_pubkey()
            _ = secp256k1_ec_pubkey_parse(context, &key, bytes, 33)
            return key
        }
        var sum = secp256k1_pubkey()
        parsed.withUnsafeMutableBufferPointer { buffer in
            var pointers: [UnsafePointer<secp256k1_pubkey>?] = (0..<buffer.count).map { UnsafePointer(buffer.baseAddress! + $0) }
            _ = secp256k1_ec_pubkey_combine(context, &sum, &pointers, pointers.count)
        }
        var a = [UInt8](repeating: 0, count: 33)
        var n = 33
        _ = secp256k1_ec_pubkey_serialize(context, &a, &n, &sum, UInt32(SECP256K1_EC_COMPRESSED))
        let smallest = inputs[t].map(\.outpoint).min { $0.lexicographicallyPrecedes($1) }!
        let hash = Hash.tagged("BIP0352/Inputs", smallest + a)
        if secp256k1_ec_pubkey_tweak_mul(context, &sum, hash) == 1 { sink &+= 1 }
    }

    // The receiver's scan of each transaction: ours, then the same steps through libsecp256k1.
    parts.add("sp_scan_ours", iterations: count) { t in
        found &+= try scanner.scan(tweaks[t], outputs: outputs[t]).count
    }
    parts.add("sp_scan_libsecp256k1", iterations: count) { t in
        let t0 = Hash.tagged("BIP0352/SharedSecret", referenceECDH(t))
        var tG = secp256k1_pubkey()
        _ = secp256k1_ec_pubkey_create(context, &tG, t0)
        var (pk, x) = sum(&spend, &tG)
        // The change label forward, as ours checks few labels: x(P_0 + label·G) against
        // the outputs' x (no output lifted to a point).
        let (_, lx) = sum(&pk, &changeKey)
        for output in outputs[t] where output == x || output == lx { referenceFound += 1 }
    }

    // The scan as scan-blocks runs it: a block's shared points at once (chunks of 256
    // transactions), on each path this CPU has (portable: libsecp256k1's ECDH one by one).
    let chunk = 256, chunks = (count + chunk - 1) / chunk
    let paths = CurveBatchPath.allCases.filter(\.isSupported)
    var pathsFound = [Int](repeating: 0, count: paths.count)
    let points = tweaks.map(\.point)
    let addends = [
        receiver.spendPublicKey, Secp256k1.PublicKey.sum([receiver.spendPublicKey, try Secp256k1.PublicKey(parsing: changePoint)])!,
    ]
    for (p, path) in paths.enumerated() {
        parts.add("sp_scan_batched_\(path.rawValue)", iterations: chunks, operations: count) { c in
            let range = c * chunk..<min(count, (c + 1) * chunk)
            let secrets = try scanner.sharedSecrets(Array(tweaks[range]), path: path)
            let first = scanner.firstOutputKeys(secrets, path: path)
            for (i, (t, secret)) in zip(range, secrets).enumerated() {
                pathsFound[p] &+= scanner.scan(outputs: outputs[t], sharedSecret: secret, firstKeys: first?[i]).count
            }
        }
        // The ladder alone (the kernel's own portable code too), beside libsecp256k1's ECDH.
        parts.add("sp_ecdh_kernel_\(path.rawValue)", iterations: chunks, operations: count) { c in
            let range = c * chunk..<min(count, (c + 1) * chunk)
            sink &+= try Secp256k1Batch.kernelSharedPoints(privateKey: receiver.scanPrivateKey, points: Array(points[range]), path: path)
                .count
        }
        // The fixed-base kernel alone: t·G + B_spend and + B_spend + label·G (the change label),
        // beside libsecp256k1's generator multiplication and two sums below.
        parts.add("sp_gen_kernel_\(path.rawValue)", iterations: chunks, operations: count) { c in
            let range = c * chunk..<min(count, (c + 1) * chunk)
            sink &+=
                Secp256k1Batch.kernelGeneratorSums(scalars: SecureBytes(range.flatMap { firstTweaks[$0] }), addends: addends, path: path)?
                .count ?? 0
        }
    }
    parts.add("sp_gen_libsecp256k1", iterations: count) { t in
        var tG = secp256k1_pubkey(), out = secp256k1_pubkey()
        _ = secp256k1_ec_pubkey_create(context, &tG, firstTweaks[t])
        for var addend in [spend, spendPlusChange] {
            withUnsafePointer(to: &tG) { pa in
                withUnsafePointer(to: &addend) { pb in
                    var pair: [UnsafePointer<secp256k1_pubkey>?] = [pa, pb]
                    _ = secp256k1_ec_pubkey_combine(context, &out, &pair, 2)
                }
            }
            var bytes = [UInt8](repeating: 0, count: 33)
            var length = 33
            _ = secp256k1_ec_pubkey_serialize(context, &bytes, &length, &out, UInt32(SECP256K1_EC_COMPRESSED))
            sink &+= Int(bytes[0])
        }
    }
    // libsecp256k1's ECDH called directly, as the scan's reference calls it.
    parts.add("sp_ecdh_libsecp256k1", iterations: count) { t in sink &+= Int(referenceECDH(t)[0]) }
    try parts.run(rounds: rounds)
    let pathsJSON = zip(paths, pathsFound).map { #""\#($0.rawValue)":\#($1 / rounds)"# }.joined(separator: ",")
    print(
        #"{"bench":"sp_facts","transactions":\#(count),"rounds":\#(rounds),"paying":\#(paying),"found_per_round":\#(found / rounds),"reference_found_per_round":\#(referenceFound / rounds),"found_by_path":{\#(pathsJSON)},"path":"\#(CurveBatchPath.inUse.rawValue)","sink":\#(sink & 1)}"#
    )
}
