import CCurveBatch
import CSodium
import WalletCore

/// Keccak-256 as Ethereum and Monero use it (the original Keccak padding 0x01, not SHA3-256's
/// 0x06). Written here because no available library has it; checked against vectors in
/// WalletCoreTests. Not constant-time in its input length; Monero hashes secret keys with
/// it, and its permutation has no secret-dependent branches or table lookups.
public enum Keccak256 {
    private static let roundConstants: [UInt64] = [
        0x0000_0000_0000_0001, 0x0000_0000_0000_8082, 0x8000_0000_0000_808A, 0x8000_0000_8000_8000,
        0x0000_0000_0000_808B, 0x0000_0000_8000_0001, 0x8000_0000_8000_8081, 0x8000_0000_0000_8009,
        0x0000_0000_0000_008A, 0x0000_0000_0000_0088, 0x0000_0000_8000_8009, 0x0000_0000_8000_000A,
        0x0000_0000_8000_808B, 0x8000_0000_0000_008B, 0x8000_0000_0000_8089, 0x8000_0000_0000_8003,
        0x8000_0000_0000_8002, 0x8000_0000_0000_0080, 0x0000_0000_0000_800A, 0x8000_0000_8000_000A,
        0x8000_0000_8000_8081, 0x8000_0000_0000_8080, 0x0000_0000_8000_0001, 0x8000_0000_8000_8008,
    ]
    private static let rate = 136

    /// Keccak-f[1600] on 25 lanes, unrolled, the lanes in local variables for the 24 rounds
    /// (theta, rho and pi with literal offsets, chi, iota). No allocation; a scan hashes every
    /// transaction it reads.
    private static func permute(_ a: UnsafeMutablePointer<UInt64>) {
        var (a0, a1, a2, a3, a4) = (a[0], a[1], a[2], a[3], a[4])
        var (a5, a6, a7, a8, a9) = (a[5], a[6], a[7], a[8], a[9])
        var (a10, a11, a12, a13, a14) = (a[10], a[11], a[12], a[13], a[14])
        var (a15, a16, a17, a18, a19) = (a[15], a[16], a[17], a[18], a[19])
        var (a20, a21, a22, a23, a24) = (a[20], a[21], a[22], a[23], a[24])
        @inline(__always) func rotl(_ x: UInt64, _ n: UInt64) -> UInt64 { x &<< n | x &>> (64 &- n) }
        for round in 0..<24 {
            let c0 = a0 ^ a5 ^ a10 ^ a15 ^ a20
            let c1 = a1 ^ a6 ^ a11 ^ a16 ^ a21
            let c2 = a2 ^ a7 ^ a12 ^ a17 ^ a22
            let c3 = a3 ^ a8 ^ a13 ^ a18 ^ a23
            let c4 = a4 ^ a9 ^ a14 ^ a19 ^ a24
            let d0 = c4 ^ rotl(c1, 1), d1 = c0 ^ rotl(c2, 1), d2 = c1 ^ rotl(c3, 1)
            let d3 = c2 ^ rotl(c4, 1), d4 = c3 ^ rotl(c0, 1)
            let b0 = a0 ^ d0
            let b1 = rotl(a6 ^ d1, 44)
            let b2 = rotl(a12 ^ d2, 43)
            let b3 = rotl(a18 ^ d3, 21)
            let b4 = rotl(a24 ^ d4, 14)
            let b5 = rotl(a3 ^ d3, 28)
            let b6 = rotl(a9 ^ d4, 20)
            let b7 = rotl(a10 ^ d0, 3)
            let b8 = rotl(a16 ^ d1, 45)
            let b9 = rotl(a22 ^ d2, 61)
            let b10 = rotl(a1 ^ d1, 1)
            let b11 = rotl(a7 ^ d2, 6)
            let b12 = rotl(a13 ^ d3, 25)
            let b13 = rotl(a19 ^ d4, 8)
            let b14 = rotl(a20 ^ d0, 18)
            let b15 = rotl(a4 ^ d4, 27)
            let b16 = rotl(a5 ^ d0, 36)
            let b17 = rotl(a11 ^ d1, 10)
            let b18 = rotl(a17 ^ d2, 15)
            let b19 = rotl(a23 ^ d3, 56)
            let b20 = rotl(a2 ^ d2, 62)
            let b21 = rotl(a8 ^ d3, 55)
            let b22 = rotl(a14 ^ d4, 39)
            let b23 = rotl(a15 ^ d0, 41)
            let b24 = rotl(a21 ^ d1, 2)
            a0 = b0 ^ (~b1 & b2) ^ roundConstants[round]
            a1 = b1 ^ (~b2 & b3)
            a2 = b2 ^ (~b3 & b4)
            a3 = b3 ^ (~b4 & b0)
            a4 = b4 ^ (~b0 & b1)
            a5 = b5 ^ (~b6 & b7)
            a6 = b6 ^ (~b7 & b8)
            a7 = b7 ^ (~b8 & b9)
            a8 = b8 ^ (~b9 & b5)
            a9 = b9 ^ (~b5 & b6)
            a10 = b10 ^ (~b11 & b12)
            a11 = b11 ^ (~b12 & b13)
            a12 = b12 ^ (~b13 & b14)
            a13 = b13 ^ (~b14 & b10)
            a14 = b14 ^ (~b10 & b11)
            a15 = b15 ^ (~b16 & b17)
            a16 = b16 ^ (~b17 & b18)
            a17 = b17 ^ (~b18 & b19)
            a18 = b18 ^ (~b19 & b15)
            a19 = b19 ^ (~b15 & b16)
            a20 = b20 ^ (~b21 & b22)
            a21 = b21 ^ (~b22 & b23)
            a22 = b22 ^ (~b23 & b24)
            a23 = b23 ^ (~b24 & b20)
            a24 = b24 ^ (~b20 & b21)
        }
        (a[0], a[1], a[2], a[3], a[4]) = (a0, a1, a2, a3, a4)
        (a[5], a[6], a[7], a[8], a[9]) = (a5, a6, a7, a8, a9)
        (a[10], a[11], a[12], a[13], a[14]) = (a10, a11, a12, a13, a14)
        (a[15], a[16], a[17], a[18], a[19]) = (a15, a16, a17, a18, a19)
        (a[20], a[21], a[22], a[23], a[24]) = (a20, a21, a22, a23, a24)
    }

    public static func hash<C: Collection>(_ message: C) -> [UInt8] where C.Element == UInt8 {
        if let digest = message.withContiguousStorageIfAvailable({ hash(buffer: UnsafeRawBufferPointer($0)) }) { return digest }
        var copy = Array(message)
        defer { SecureBytes.wipe(&copy) }
        return copy.withUnsafeBytes { hash(buffer: $0) }
    }

    /// The hash of each message, hashed together: CCurveBatch runs 8 messages per AVX-512
    /// permutation (4 with AVX2), each lane taking the next message when its own ends; the
    /// portable path is its C permutation, one message at a time. For the many independent
    /// hashes of a scan (transaction ids, view tags).
    public static func hashAll<C: Collection>(_ messages: [C], path: CurveBatchPath = .inUse) -> [[UInt8]] where C.Element == UInt8 {
        guard !messages.isEmpty else { return [] }
        var offsets = [Int]()
        offsets.reserveCapacity(messages.count + 1)
        offsets.append(0)
        for m in messages { offsets.append(offsets.last! + m.count) }
        var data = [UInt8]()
        data.reserveCapacity(offsets.last! + 1)
        for m in messages { data.append(contentsOf: m) }
        data.append(0)  // never empty, so never a nil pointer
        var out = [UInt8](repeating: 0, count: 32 * messages.count)
        out.withUnsafeMutableBufferPointer { o in
            data.withUnsafeBufferPointer { d in
                offsets.withUnsafeBufferPointer { f in
                    satchel_keccak256_batch(path.c, o.baseAddress!, d.baseAddress, f.baseAddress!, messages.count)
                }
            }
        }
        // The messages may hold secrets (view tags hash a key derivation).
        data.withUnsafeMutableBytes { sodium_memzero($0.baseAddress, $0.count) }
        return (0..<messages.count).map { Array(out[32 * $0..<32 * $0 + 32]) }
    }

    /// Full blocks are absorbed from the message in place; only the last, padded block is
    /// copied (into the wiped scratch space), so a 2 KB transaction costs no copy.
    private static func hash(buffer bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 25 + rate / 8) { scratch in
            let lanes = scratch.baseAddress!
            let last = lanes + 25
            lanes.initialize(repeating: 0, count: 25 + rate / 8)
            let fullBlocks = bytes.count / rate
            for block in 0..<fullBlocks {
                for i in 0..<(rate / 8) {
                    lanes[i] ^= UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: block * rate + 8 * i, as: UInt64.self))
                }
                permute(lanes)
            }
            let tail = UnsafeMutableRawPointer(last)
            let remaining = bytes.count - fullBlocks * rate
            if remaining > 0 { tail.copyMemory(from: bytes.baseAddress! + fullBlocks * rate, byteCount: remaining) }
            tail.storeBytes(of: 0x01, toByteOffset: remaining, as: UInt8.self)
            let top = tail.load(fromByteOffset: rate - 1, as: UInt8.self)
            tail.storeBytes(of: top | 0x80, toByteOffset: rate - 1, as: UInt8.self)
            for i in 0..<(rate / 8) { lanes[i] ^= UInt64(littleEndian: last[i]) }
            permute(lanes)
            for i in 0..<32 { out[i] = UInt8(truncatingIfNeeded: lanes[i / 8] >> (8 * UInt64(i % 8))) }
            // The state and the last block hold the message mixed in: wipe them (keys are hashed here).
            sodium_memzero(lanes, (25 + rate / 8) * 8)
        }
        return out
    }
}
