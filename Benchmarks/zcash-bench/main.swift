// zcash-bench: in-process timings of ZIP-32 Sapling keys and addresses, one JSON line per
// measurement, and the keys it made (so bench/zcash_keys.py can check that its Python
// reference made the same); with `orchard BLOCKS.jsonl`, Orchard trial decryption (below).
// Seeds (hex, one per line) come on stdin. Not part of `make test`.
#if canImport(Glibc)
    import Glibc
#endif
import BenchSupport
import Foundation
import Dispatch
import CCurveBatch
import CSodium
import WalletCore
import Zcash
import ZcashScan
import WalletCrypto

// Before any timing: without sodium_init libsodium runs its reference X25519, not the fast one
// that issue 23's ratios are measured against.
Sodium.ensureInitialized()

// --oracle N (make check-long): the Pallas and Jubjub kernels against the Swift code on N random
// points and N random encodings each, on every path this CPU runs (the portable kernel on a tenth).
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--oracle", let count = Int(CommandLine.arguments[2]) {
    exit(pallasOracle(count) ? 0 : 1)
}

// relink N IN.pb OUT.pb: IN's block 1,735,000 (the sandblasted one) N times as a chain of linked blocks (heights, hashes,
// parents, tree sizes and txids made consistent), for a Sapling bench on ≥ 40,000 real outputs.
if CommandLine.arguments.count == 5, CommandLine.arguments[1] == "relink", let times = Int(CommandLine.arguments[2]) {
    guard let first = try CompactBlockFileSource(path: CommandLine.arguments[3]).blocks(from: 1_735_000, count: 1).first else { exit(65) }
    let block = try WireCompactBlock(serializedBytes: first.blob)
    let outputs = UInt32(block.vtx.reduce(0) { $0 + $1.outputs.count }), actions = UInt32(block.vtx.reduce(0) { $0 + $1.actions.count })
    var out = [UInt8](), parent = block.prevHash
    for i in 0..<times {
        var b = block
        b.height = block.height + UInt64(i)
        b.hash = Data((0..<32).map { UInt8(truncatingIfNeeded: (i + 1) >> (8 * ($0 % 4))) ^ UInt8($0) })
        b.prevHash = parent
        parent = b.hash
        b.chainMetadata.saplingCommitmentTreeSize = block.chainMetadata.saplingCommitmentTreeSize + UInt32(i) * outputs
        b.chainMetadata.orchardCommitmentTreeSize = block.chainMetadata.orchardCommitmentTreeSize + UInt32(i) * actions
        for t in b.vtx.indices {
            var id = [UInt8](b.vtx[t].txid)
            for k in 0..<4 { id[k] ^= UInt8(truncatingIfNeeded: i >> (8 * k)) }
            b.vtx[t].txid = Data(id)
        }
        let bytes: [UInt8] = try b.serializedBytes()
        var n = bytes.count
        repeat {
            let low = UInt8(truncatingIfNeeded: n & 0x7F)
            out.append(n >= 0x80 ? low | 0x80 : low)
            n >>= 7
        } while n > 0
        out += bytes
    }
    guard FileManager.default.createFile(atPath: CommandLine.arguments[4], contents: Data(out)) else { exit(74) }
    print(#"{"bench":"relink","blocks":\#(times),"outputs":\#(Int(outputs) * times),"first":\#(block.height)}"#)
    exit(0)
}

/// libsodium's X25519 per operation, the yardstick of issue 23's ratios, measured in the run
/// that measures what is held to it.
func reportX25519() {
    var q = [UInt8](repeating: 0, count: 32), n = [UInt8](repeating: 7, count: 32), p = [UInt8](repeating: 0, count: 32)
    p[0] = 9
    report(
        "x25519",
        measure(repeats: 3, count: 20_000) { _ in
            _ = crypto_scalarmult_curve25519(&q, n, p)
            n[0] = q[0]
        })
}

// x25519 alone (bench/zcash_scan.py).
if CommandLine.arguments.count == 2, CommandLine.arguments[1] == "x25519" {
    reportX25519()
    exit(0)
}

var seeds = [[UInt8]]()
while let line = readLine() { if !line.isEmpty, let bytes = try? Hex.decode(line) { seeds.append(bytes) } }
guard !seeds.isEmpty else {
    let message = "zcash-bench: give seeds in hex on stdin, one per line\n"
    _ = message.withCString { write(2, $0, strlen($0)) }
    exit(64)
}

// pczt FILE (bench/pczt_sign.py): sign-tx's PCZT path on FILE with the seed on stdin (parse, the
// review against the seed's keys, the signatures, the PCZT written), against the floor of its
// cryptography: as many RedPallas signatures with a known key. Interleaved rounds, medians.
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "pczt" {
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: CommandLine.arguments[2])))
    let seed = SecureBytes(seeds[0])
    let signatures = try PCZT(parsing: bytes).review(seed: seed).toSign
    let sighash = try PCZT(parsing: bytes).shieldedSighash(), key = PallasScalar(wide: [UInt8](repeating: 5, count: 64))
    var rounds = InterleavedRounds()
    rounds.add("pczt_sign", iterations: 1) { _ in
        var pczt = try PCZT(parsing: bytes)
        _ = try pczt.sign(seed: seed)
        _ = try pczt.serialized()
    }
    rounds.add("redpallas_signatures", iterations: 1) { _ in
        for _ in 0..<signatures { _ = RedPallas.sign(sighash, key: key) }
    }
    print(#"{"bench":"pczt_signatures","count":\#(signatures)}"#)
    try rounds.run(rounds: 21)
    exit(0)
}
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "ironwood" {
    try ironwoodBench(blocksPath: CommandLine.arguments[2], seeds: seeds)
    exit(0)
}
if CommandLine.arguments.count >= 3, CommandLine.arguments[1] == "orchard" {
    try orchardBench(blocksPath: CommandLine.arguments[2], seeds: seeds)
    exit(0)
}

// The primitives under both: a field multiplication and a scalar multiplication.
var element = Fq(wide: Array(seeds[0].prefix(64)) + [UInt8](repeating: 0, count: max(0, 64 - seeds[0].count)))
report("fq_mul", measure(repeats: 3, count: 1_000_000) { _ in element = element * element })
let base = SaplingGenerators.spendAuth
let scalar = Fr(wide: Array(seeds[0].prefix(64)) + [UInt8](repeating: 0, count: max(0, 64 - seeds[0].count)))
report("jubjub_scalar_mul", measure(repeats: 3, count: 200) { _ in _ = base.times(scalar) })

// The account key m/32'/133'/0' with its full and incoming viewing keys.
report(
    "account_keys",
    measure(repeats: 3, count: seeds.count) { i in
        _ = SaplingExtendedSpendingKey.account(seed: seeds[i], network: .main, account: 0).fullViewingKey.incomingViewingKey
    })
let ivks = seeds.map { SaplingExtendedSpendingKey.account(seed: $0, network: .main, account: 0).fullViewingKey.incomingViewingKey }
// Addresses: the next valid diversifier from index 10·i (FF1, group hash, [ivk]g_d, Bech32).
report(
    "address",
    try measure(repeats: 3, count: ivks.count) { i in
        _ = try ivks[i].address(from: DiversifierIndex(UInt64(10 * i))).address.encoded(.main)
    })
for (i, ivk) in ivks.enumerated() {
    let (j, a) = try ivk.address(from: DiversifierIndex(UInt64(10 * i)))
    print(#"{"seed":"\#(Hex.encode(seeds[i]))","ivk":"\#(Hex.encode(ivk.ivk.bytes))","index":\#(j.low),"address":"\#(a.encoded(.main))"}"#)
}

/// Trial decryption of `actions` (one pool's, notes of `version`) by every decryptor, as the
/// scanner does it, on `path`: seconds per (action, key) pair, the epks' decoding counted once
/// per action; and the notes found.
func trialDecryption(
    _ actions: [CompactOrchardAction], version: OrchardNoteVersion, decryptors: [OrchardDecryptor],
    path: CurveBatchPath
) -> (perPair: Double, found: Int) {
    let runs = stride(from: 0, to: actions.count, by: 64).map { Array(actions[$0..<min($0 + 64, actions.count)]) }
    let decoding =
        measure(repeats: 3, count: runs.count) { i in _ = OrchardDecryptor.ephemeralPoints(runs[i], path: path) } * Double(runs.count)
    let decoded = runs.map { OrchardDecryptor.ephemeralPoints($0, path: path) }
    var found = 0
    let trying =
        measure(repeats: 3, count: decryptors.count * runs.count) { i in
            let decryptor = decryptors[i / runs.count], run = runs[i % runs.count]
            let tried = zip(run, decoded[i % runs.count]).compactMap { a, epk in epk.map { (a, $0) } }
            for (t, secret) in zip(tried, decryptor.sharedSecrets(tried.map(\.1), path: path))
            where decryptor.tryDecrypt(t.0, sharedSecret: secret, version: version) != nil {
                found += 1
            }
        } * Double(decryptors.count * runs.count)
    return ((decoding + trying) / Double(actions.count * decryptors.count), found / 3)
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// Ironwood (`zcash-bench ironwood BLOCKS.jsonl`, fixtures/zcash-ironwood): per (action, IVK)
/// for the Orchard and the Ironwood actions of the same blocks, on every path, with 22 keys that
/// own none of them (the hot path: nearly every pair a scan tries is someone else's), and X25519,
/// in one run; then the fixture wallet's two keys, which must find its 11 Orchard and 14
/// Ironwood notes on every path, and what a found note costs (its cmx check: the note
/// commitment, Sinsemilla over the whole note).
func ironwoodBench(blocksPath: String, seeds: [[UInt8]]) throws {
    var orchard = [CompactOrchardAction](), ironwood = [CompactOrchardAction]()
    for line in try String(contentsOfFile: blocksPath, encoding: .utf8).split(separator: "\n") {
        let wire = try WireCompactBlock(record: JSONParser.parseObject(Array(line.utf8)))
        let block = try ZcashCompactBlock.parse(try wire.serializedBytes(), expectedHeight: Int(wire.height))
        orchard += block.transactions.flatMap(\.actions)
        ironwood += block.transactions.flatMap(\.ironwoodActions)
    }
    let others = try seeds.prefix(22).map {
        OrchardDecryptor(
            key: try OrchardExtendedSpendingKey.account(seed: $0, coinType: 133, account: 0).fullViewingKey().incomingViewingKey(
                change: false))
    }
    // The fixture's wallet: its BIP39 seed, from wallet.json beside the blocks.
    let walletFile = URL(fileURLWithPath: blocksPath).deletingLastPathComponent().appendingPathComponent("wallet.json")
    guard case .object(let wallet) = try JSONParser.parse(Array(try Data(contentsOf: walletFile))),
        case .string(let seedHex)? = wallet["bip39_seed"]
    else { throw BenchError("no bip39_seed in \(walletFile.path)") }
    let fvk = try OrchardExtendedSpendingKey.account(seed: try Hex.decode(seedHex), coinType: 133, account: 0).fullViewingKey()
    let own = [fvk.incomingViewingKey(change: false), fvk.incomingViewingKey(change: true)].map(OrchardDecryptor.init)
    for path in CurveBatchPath.allCases.reversed() where path.isSupported {
        let o = trialDecryption(orchard, version: .v2, decryptors: others, path: path)
        let i = trialDecryption(ironwood, version: .v3, decryptors: others, path: path)
        report("orchard_fixture_per_pair_\(path.rawValue)", o.perPair)
        report("ironwood_per_pair_\(path.rawValue)", i.perPair)
        let ownO = trialDecryption(orchard, version: .v2, decryptors: own, path: path),
            ownI = trialDecryption(ironwood, version: .v3, decryptors: own, path: path)
        print(
            #"{"bench":"ironwood_found_\#(path.rawValue)","orchard_notes":\#(ownO.found),"ironwood_notes":\#(ownI.found),"others_found":\#(o.found + i.found)}"#
        )
    }
    print(#"{"bench":"ironwood_pairs","orchard_actions":\#(orchard.count),"ironwood_actions":\#(ironwood.count),"keys":\#(others.count)}"#)
    // A found note: the whole check of one action that is the wallet's (its cmx, V2 and V3).
    let mine = ironwood.compactMap { a in own.lazy.compactMap { d in d.tryDecrypt(a, version: .v3).map { _ in (a, d) } }.first }
    report(
        "ironwood_found_note",
        measure(repeats: 3, count: 20) { k in _ = mine[k % mine.count].1.tryDecrypt(mine[k % mine.count].0, version: .v3) })
    reportX25519()
}

// Orchard (`zcash-bench orchard BLOCKS.jsonl`): compact trial decryption per (action, IVK)
// on one core, every action of the fixture's blocks against 22 keys (≥ 10,000 pairs), the
// epks' decoding counted once per action as the scanner shares it among wallets, and, in the
// same run, libsodium's X25519 (the yardstick of issues 22 and 23).
func orchardBench(blocksPath: String, seeds: [[UInt8]]) throws {
    var actions = [CompactOrchardAction]()
    for line in try String(contentsOfFile: blocksPath, encoding: .utf8).split(separator: "\n") {
        let wire = try WireCompactBlock(record: JSONParser.parseObject(Array(line.utf8)))
        let block = try ZcashCompactBlock.parse(try wire.serializedBytes(), expectedHeight: Int(wire.height))
        actions += block.transactions.flatMap { $0.actions }
    }
    let keys = try seeds.prefix(22).map { seed -> OrchardIncomingViewingKey in
        try OrchardExtendedSpendingKey.account(seed: seed, coinType: 133, account: 0).fullViewingKey().incomingViewingKey(change: false)
    }
    let pairs = actions.count * keys.count
    let decryptors = keys.map(OrchardDecryptor.init)
    var found = 0
    // As the scanner does: a block's epks decoded once when it is parsed, for every wallet
    // (batched square roots); decryptors made once per wallet; a block's actions taken in runs
    // of 64 and their key agreements batched (one inversion per run). On every path (issue
    // 23); AVX2 and IFMA run CCurveBatch's kernels, portable the Swift code.
    let runs = stride(from: 0, to: actions.count, by: 64).map { Array(actions[$0..<min($0 + 64, actions.count)]) }
    for path in CurveBatchPath.allCases.reversed() where path.isSupported {
        let decoding =
            measure(repeats: 3, count: runs.count) { i in _ = OrchardDecryptor.ephemeralPoints(runs[i], path: path) } * Double(runs.count)
        let decoded = runs.map { OrchardDecryptor.ephemeralPoints($0, path: path) }
        let trying =
            measure(repeats: 3, count: decryptors.count * runs.count) { i in
                let decryptor = decryptors[i / runs.count], run = runs[i % runs.count]
                let tried = zip(run, decoded[i % runs.count]).compactMap { a, epk in epk.map { (a, $0) } }
                for (t, secret) in zip(tried, decryptor.sharedSecrets(tried.map(\.1), path: path))
                where decryptor.tryDecrypt(t.0, sharedSecret: secret) != nil {
                    found += 1
                }
            } * Double(decryptors.count * runs.count)
        report("orchard_trial_decryption_per_pair_\(path.rawValue)", (decoding + trying) / Double(pairs))
        report("orchard_decoding_per_action_\(path.rawValue)", decoding / Double(actions.count))
        report("orchard_trying_per_pair_\(path.rawValue)", trying / Double(pairs))
    }
    print(#"{"bench":"orchard_pairs","pairs":\#(pairs),"actions":\#(actions.count),"keys":\#(keys.count),"notes_found":\#(found)}"#)
    var q = [UInt8](repeating: 0, count: 32), n = [UInt8](repeating: 7, count: 32), p = [UInt8](repeating: 0, count: 32)
    p[0] = 9
    let x25519 = measure(repeats: 3, count: 20_000) { _ in
        _ = crypto_scalarmult_curve25519(&q, n, p)
        n[0] = q[0]
    }
    report("x25519", x25519)
    let base = PallasGroupHash.hash(domain: "z.cash:Orchard", message: Array("G".utf8))
    // [ivk]P by GLV with ivk split once (the scanner's), and by the plain 4-bit window.
    let splits = keys.map { PallasGLVScalar(PallasScalar(bytes: $0.ivk.bytes)!) }
    report("pallas_scalar_mul", measure(repeats: 3, count: 2_000) { i in _ = base.times(splits[i % keys.count]) })
    report("pallas_scalar_mul_plain_window", measure(repeats: 3, count: 2_000) { i in _ = base.times(keys[i % keys.count].ivk.bytes) })
    // Issue 23: [ivk]epk for runs of 64 points by CCurveBatch's GLV ladder, per point, on each
    // path with a kernel of its own, beside the Swift ladder's
    // run of 64 (the scanner's path before the batch): one inversion per run in both.
    let epks = runs[0].compactMap(OrchardDecryptor.ephemeralPoint)
    report(
        "pallas_batch_swift_per_point",
        measure(repeats: 3, count: 30) { i in
            _ = PallasPoint.encodeAll(epks.map { $0.times(splits[i % keys.count]) })
        } / Double(epks.count))
    for path in [CurveBatchPath.avx2, .ifma] where path.isSupported {
        report(
            "pallas_batch_per_point_\(path.rawValue)",
            measure(repeats: 3, count: 200) { i in
                _ = PallasBatch.encodedMultiples(epks, by: splits[i % keys.count], path: path)
            } / Double(epks.count))
    }
    // Issue 23, Sapling: [8·ivk]epk for runs of 64 epks by CCurveBatch's Edwards ladder, per
    // point, beside the Swift code's (the portable path), and the epks' decoding.
    let saplingBlock = CommandLine.arguments.count > 3 ? CommandLine.arguments[3] : nil
    if let saplingBlock, let data = try CompactBlockFileSource(path: saplingBlock).blocks(from: 1_735_000, count: 1).first {
        let outputs = try ZcashCompactBlock.parse(data.blob, expectedHeight: data.height).transactions.flatMap(\.outputs)
        let jEncodings = Array(outputs.prefix(64).map(\.ephemeralKey))
        let jEpks = jEncodings.compactMap { JubjubPoint(bytes: $0) }
        let jk = JubjubBatch.Scalar(Fr(wide: Array(seeds[0].prefix(32)) + [UInt8](repeating: 0, count: 32)))
        report(
            "jubjub_batch_swift_per_point",
            measure(repeats: 3, count: 5) { _ in
                _ = JubjubBatch.encodedMultiples(jEpks, by: jk, cofactor: true, path: .portable)
            } / Double(jEpks.count))
        report(
            "jubjub_decode_swift_per_point",
            measure(repeats: 3, count: 20) { _ in _ = JubjubBatch.decodeAll(jEncodings, path: .portable) } / Double(jEncodings.count))
        for path in [CurveBatchPath.avx2, .ifma] where path.isSupported {
            report(
                "jubjub_batch_per_point_\(path.rawValue)",
                measure(repeats: 3, count: 100) { _ in
                    _ = JubjubBatch.encodedMultiples(jEpks, by: jk, cofactor: true, path: path)
                } / Double(jEpks.count))
            report(
                "jubjub_decode_per_point_\(path.rawValue)",
                measure(repeats: 3, count: 100) { _ in _ = JubjubBatch.decodeAll(jEncodings, path: path) } / Double(jEncodings.count))
        }
    }
    fieldKernelBench()
}

/// Issue 23's first piece, the batched field multiplication mod Pallas's p (radix 2^52,
/// Montgomery with R = 2^260), per lane on each path this CPU runs, beside the Swift field's
/// multiplication that the curve code uses today. Chains of dependent products, as a ladder has.
func fieldKernelBench() {
    typealias Lanes = (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
    var m = satchel_mod52()
    var p: [UInt64] = [0x992D_30ED_0000_0001, 0x2246_98FC_094C_F91B, 0, 0x4000_0000_0000_0000]
    satchel_mod52_init(&m, &p)
    let a = UnsafeMutablePointer<Lanes>.allocate(capacity: 5), b = UnsafeMutablePointer<Lanes>.allocate(capacity: 5)
    defer { a.deallocate(); b.deallocate() }
    var generator = SystemRandomNumberGenerator()
    for pointer in [a, b] {
        pointer.withMemoryRebound(to: UInt64.self, capacity: 40) { words in
            for i in 0..<40 { words[i] = generator.next() & (i >= 32 ? 0xFF_FFFF_FFFF : 0xF_FFFF_FFFF_FFFF) }  // below p
        }
    }
    for path in [SATCHEL_SIMD_PORTABLE, SATCHEL_SIMD_AVX2, SATCHEL_SIMD_IFMA] where satchel_simd_supported(path) != 0 {
        let name = String(cString: satchel_simd_path_name(path))
        report("fe52_mul_per_lane_\(name)", measure(repeats: 3, count: 200_000) { _ in satchel_fe52_mul8(path, &m, a, a, b) } / 8)
    }
    // Point doublings, the bulk of a ladder: 8 lanes per call (coordinates from the products above).
    satchel_mod52_set_b(&m, 5)
    var point = satchel_point8()
    withUnsafeMutableBytes(of: &point) { raw in
        let words = raw.bindMemory(to: UInt64.self)
        a.withMemoryRebound(to: UInt64.self, capacity: 40) {
            for i in 0..<40 { words[i] = $0[i]; words[40 + i] = $0[i]; words[80 + i] = $0[i] }
        }
    }
    for path in [SATCHEL_SIMD_PORTABLE, SATCHEL_SIMD_AVX2, SATCHEL_SIMD_IFMA] where satchel_simd_supported(path) != 0 {
        let name = String(cString: satchel_simd_path_name(path))
        report(
            "pallas_double_per_lane_\(name)",
            measure(repeats: 3, count: 20_000) { _ in
                withUnsafeMutablePointer(to: &point) { satchel_point52_double8(path, &m, $0, $0) }  // in place, as a ladder doubles
            } / 8)
    }
    var doubled = PallasGroupHash.hash(domain: "z.cash:Orchard", message: Array("G".utf8))
    report("pallas_double_swift", measure(repeats: 3, count: 100_000) { _ in doubled = doubled.doubled() })
    withExtendedLifetime(doubled) {}
    var x = PallasBase(123_456_789)
    let y = PallasBase(987_654_321)
    report("pallas_fp_mul_swift", measure(repeats: 3, count: 1_000_000) { _ in x = x * y })
    withExtendedLifetime(x) {}
}

/// Random points (a walk from a random multiple of a generator by a random step) times random
/// scalars in batches of 1 to 200, and random encodings (about half of them points), through
/// PallasBatch's and JubjubBatch's kernels on every path, against the Swift code.
func pallasOracle(_ count: Int) -> Bool {
    let g = PallasGroupHash.hash(domain: "z.cash:Orchard", message: Array("G".utf8))
    @Sendable func scalar() -> PallasScalar { PallasScalar(wide: (0..<64).map { _ in UInt8.random(in: 0...255) }) }
    let chunks = 64
    let failures = Locked([String]())
    DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
        var done = 0, point = g.times(scalar())
        let step = g.times(scalar()), share = count / chunks + (chunk < count % chunks ? 1 : 0)
        while done < share, failures.get().isEmpty {
            let n = min(Int.random(in: 1...200), share - done)
            let points = (0..<n).map { _ in
                point = point + step; return point
            }
            let k = PallasGLVScalar(scalar())
            let want = PallasPoint.encodeAll(points.map { $0.times(k) })
            let encodings = (0..<n).map { i -> [UInt8] in
                i % 2 == 0 ? points[i].bytes : (0..<32).map { j in UInt8.random(in: 0...255) & (j == 31 ? 0xBF : 0xFF) }
            }
            let decoded = encodings.map { PallasPoint(bytes: $0)?.bytes }
            for path in CurveBatchPath.allCases where path.isSupported && (path != .portable || chunk % 10 == 0) {
                if PallasBatch.kernelMultiples(points, by: k, path: path) != want {
                    failures.withLock { $0.append("[k]P on \(path.rawValue) differs (batch of \(n))") }
                } else if PallasBatch.kernelDecode(encodings, path: path).map({ $0?.bytes }) != decoded {
                    failures.withLock { $0.append("decoding on \(path.rawValue) differs (batch of \(n))") }
                }
            }
            // Jubjub: a walk from a point of the whole curve (a small-order part and all), Sapling's KA.
            var start = [UInt8](repeating: 0, count: 32), jubjub: JubjubPoint? = nil
            while jubjub == nil {
                start = (0..<32).map { j in UInt8.random(in: 0...255) & (j == 31 ? 0xBF : 0xFF) }; jubjub = JubjubPoint(bytes: start)
            }
            let jStep = SaplingGenerators.spendAuth.times(Fr(wide: (0..<64).map { _ in UInt8.random(in: 0...255) }))
            let jPoints = (0..<n).map { _ in
                jubjub = jubjub! + jStep; return jubjub!
            }
            let jScalar = Fr(wide: (0..<64).map { _ in UInt8.random(in: 0...255) }), jk = JubjubBatch.Scalar(jScalar)
            let jWant = jPoints.map { $0.timesCofactor().times(jScalar).bytes }
            let jDecoded = encodings.map { JubjubPoint(bytes: $0)?.bytes }
            for path in CurveBatchPath.allCases where path.isSupported && (path != .portable || chunk % 10 == 0) {
                if JubjubBatch.kernelMultiples(jPoints, by: jk, cofactor: true, path: path) != jWant {
                    failures.withLock { $0.append("Jubjub [8k]P on \(path.rawValue) differs (batch of \(n))") }
                } else if JubjubBatch.kernelDecode(encodings, path: path).map({ $0?.bytes }) != jDecoded {
                    failures.withLock { $0.append("Jubjub decoding on \(path.rawValue) differs (batch of \(n))") }
                }
            }
            done += n
        }
    }
    let failure = failures.get().first
    let paths = CurveBatchPath.allCases.filter(\.isSupported).map(\.rawValue).joined(separator: ", ")
    print(
        failure.map { "oracle: \($0)" }
            ?? "oracle: \(count) Pallas and \(count) Jubjub points and encodings, paths \(paths) (the portable kernel on a tenth): all equal to the Swift code"
    )
    return failure == nil
}
