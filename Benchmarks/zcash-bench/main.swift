// zcash-bench: in-process timings of ZIP-32 Sapling keys and addresses, one JSON line per
// measurement, and the keys it made (so bench/zcash_keys.py can check that its Python
// reference made the same). Seeds (hex, one per line) come on stdin. Not part of `make test`.
#if canImport(Glibc)
import Glibc
#endif
import WalletCore
import Zcash

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Median seconds per operation over `repeats` rounds of `count` operations.
func measure(repeats: Int, count: Int, _ body: (Int) throws -> Void) rethrows -> Double {
    var rounds = [Double]()
    for _ in 0..<repeats {
        let start = now()
        for i in 0..<count { try body(i) }
        rounds.append((now() - start) / Double(count))
    }
    return rounds.sorted()[repeats / 2]
}

func report(_ name: String, _ secondsPerOp: Double) {
    print(#"{"bench":"\#(name)","seconds_per_op":\#(secondsPerOp),"ops_per_second":\#(1 / secondsPerOp)}"#)
}

var seeds = [[UInt8]]()
while let line = readLine() { if !line.isEmpty, let bytes = try? Hex.decode(line) { seeds.append(bytes) } }
guard !seeds.isEmpty else {
    let message = "zcash-bench: give seeds in hex on stdin, one per line\n"
    _ = message.withCString { write(2, $0, strlen($0)) }
    exit(64)
}

// The primitives under both: a field multiplication and a scalar multiplication.
var element = Fq(wide: Array(seeds[0].prefix(64)) + [UInt8](repeating: 0, count: max(0, 64 - seeds[0].count)))
report("fq_mul", measure(repeats: 3, count: 1_000_000) { _ in element = element * element })
let base = SaplingGenerators.spendAuth
let scalar = Fr(wide: Array(seeds[0].prefix(64)) + [UInt8](repeating: 0, count: max(0, 64 - seeds[0].count)))
report("jubjub_scalar_mul", measure(repeats: 3, count: 200) { _ in _ = base.times(scalar) })

// The account key m/32'/133'/0' with its full and incoming viewing keys.
report("account_keys", measure(repeats: 3, count: seeds.count) { i in
    _ = SaplingExtendedSpendingKey.account(seed: seeds[i], network: .main, account: 0).fullViewingKey.incomingViewingKey
})
let ivks = seeds.map { SaplingExtendedSpendingKey.account(seed: $0, network: .main, account: 0).fullViewingKey.incomingViewingKey }
// Addresses: the next valid diversifier from index 10·i (FF1, group hash, [ivk]g_d, Bech32).
report("address", try measure(repeats: 3, count: ivks.count) { i in
    _ = try ivks[i].address(from: DiversifierIndex(UInt64(10 * i))).1.encoded(.main)
})
for (i, ivk) in ivks.enumerated() {
    let (j, a) = try ivk.address(from: DiversifierIndex(UInt64(10 * i)))
    print(#"{"seed":"\#(Hex.encode(seeds[i]))","ivk":"\#(Hex.encode(ivk.ivk.bytes))","index":\#(j.low),"address":"\#(a.encoded(.main))"}"#)
}
