// bitcoin-bench --oracle N (make check-long): CCurveBatch's secp256k1 ladder against
// libsecp256k1's ECDH on N random (key, point) pairs per path this CPU runs (one key for 13
// points, and a key each), and its fixed-base
// kernel (t·G + Q) against pubkey_create and combine on N random scalars, with both fields:
// the plain product (portable, AVX2) and the Montgomery one (the IFMA kernels'; run here on
// every ladder). Keys change every 13 points, so batches are never a multiple of 8.
import CCurveBatch
import WalletCore
import WalletCrypto

func secp256k1Oracle(cases: Int) throws -> Bool {
    var rng = SystemRandomNumberGenerator()
    func key() -> SecureBytes {
        while true {
            let k = SecureBytes((0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) })
            if Secp256k1.isValidPrivateKey(k) { return k }
        }
    }
    let beta: [UInt64] = [0xC139_6C28_7195_01EE, 0x9CF0_4975_12F5_8995, 0x6E64_479E_AC34_34E9, 0x7AE9_6A2B_657C_0710]
    var montgomery = satchel_mod52()
    satchel_secp256k1_field(&montgomery, 0)
    let paths = CurveBatchPath.allCases.filter(\.isSupported)
    var checked = 0
    while checked < cases {
        let k = key()
        let points = try (0..<min(13, cases - checked)).map { _ in try Secp256k1.publicKey(of: key()) }
        let want = try points.map { try Secp256k1.ecdhPoint(privateKey: k, publicKey: $0).bytes }
        var d1 = [Int8](repeating: 0, count: 33), d2 = [Int8](repeating: 0, count: 33)
        guard k.withUnsafeBytes({ satchel_secp256k1_split($0.baseAddress!.assumingMemoryBound(to: UInt8.self), &d1, &d2) }) == 0 else {
            print("oracle: the split refused a valid key")
            return false
        }
        let words = Secp256k1Batch.affineWords(points)
        for path in paths {
            let plain = try Secp256k1Batch.kernelSharedPoints(privateKey: k, points: points, path: path).map(\.bytes)
            var out = [UInt8](repeating: 0, count: 33 * points.count)
            guard satchel_glv_batch_sec1(path.c, &montgomery, beta, d1, d2, 33, words, points.count, &out) == 0 else { return false }
            let other = (0..<points.count).map { Array(out[33 * $0..<33 * $0 + 33]) }
            guard plain == want, other == want else {
                print("oracle: the \(path) ladder (\(plain == want ? "Montgomery" : "plain") field) differs from libsecp256k1")
                return false
            }
        }
        // A scalar per point: the per-lane ladder, on as many random keys.
        let own = (0..<points.count).map { _ in key() }
        let ownWant = try zip(own, points).map { try Secp256k1.ecdhPoint(privateKey: $0, publicKey: $1).bytes }
        let ownScalars = own.flatMap(\.bytes)
        for path in paths {
            var out = [UInt8](repeating: 0, count: 33 * points.count)
            let status = satchel_secp256k1_mul_lanes_field(path.c, 0, ownScalars, words, points.count, &out)
            let plain = try Secp256k1Batch.kernelSharedPoints(privateKeys: own, points: points, path: path).map(\.bytes)
            guard status == 0, plain == ownWant, (0..<points.count).map({ Array(out[33 * $0..<33 * $0 + 33]) }) == ownWant else {
                print("oracle: the \(path) ladder with a scalar per point differs from libsecp256k1")
                return false
            }
        }
        // The fixed-base kernel: t·G + Q for as many random t, Q the batch's first point.
        let scalars = (0..<points.count).map { _ in key() }
        let sums = try scalars.map { Secp256k1.PublicKey.sum([try Secp256k1.publicKey(of: $0), points[0]])!.compressed }
        let packed = SecureBytes(scalars.flatMap(\.bytes))
        let addend = Secp256k1Batch.affineWords([points[0]])
        for path in paths {
            var out = [UInt8](repeating: 0, count: 33 * points.count)
            let status = packed.withUnsafeBytes { t in
                satchel_secp256k1_gen_batch_field(
                    path.c, 0, t.baseAddress!.assumingMemoryBound(to: UInt8.self), points.count, addend, 1, &out)
            }
            let plain = Secp256k1Batch.kernelGeneratorSums(scalars: packed, addends: [points[0]], path: path)
            let other = (0..<points.count).map { Array(out[33 * $0..<33 * $0 + 33]) }
            guard status == 0, let plain, (0..<points.count).map({ Array(plain[33 * $0..<33 * $0 + 33]) }) == sums, other == sums else {
                print("oracle: the \(path) fixed-base kernel differs from libsecp256k1's pubkey_create and combine")
                return false
            }
        }
        checked += points.count
    }
    print(
        "oracle: \(cases) secp256k1 shared points with one key, \(cases) with a key each and \(cases) sums t·G + Q, paths \(paths.map(\.rawValue).joined(separator: ", ")), plain and Montgomery fields: all equal to libsecp256k1's ECDH, pubkey_create and combine"
    )
    return true
}
