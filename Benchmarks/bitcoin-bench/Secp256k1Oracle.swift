// bitcoin-bench --oracle N (make check-long): CCurveBatch's secp256k1 ladder against
// libsecp256k1's ECDH on N random (key, point) pairs per path this CPU runs, with both fields:
// the plain product (portable, AVX2) and the Montgomery one (the IFMA kernels'; run here on
// every ladder). Keys change every 13 points, so batches are never a multiple of 8.
import CCurveBatch
import WalletCore

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
        checked += points.count
    }
    print(
        "oracle: \(cases) secp256k1 shared points, paths \(paths.map(\.rawValue).joined(separator: ", ")), plain and Montgomery fields: all equal to libsecp256k1's ECDH"
    )
    return true
}
