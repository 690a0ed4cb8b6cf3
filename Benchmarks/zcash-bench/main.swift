// zcash-bench: in-process timings of ZIP-32 Sapling keys and addresses, one JSON line per
// measurement, and the keys it made (so bench/zcash_keys.py can check that its Python
// reference made the same). Seeds (hex, one per line) come on stdin. Not part of `make test`.
#if canImport(Glibc)
import Glibc
#endif
import BenchSupport
import WalletCore
import Zcash

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
