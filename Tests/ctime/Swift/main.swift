import Foundation
import WalletCore
import Zcash

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
