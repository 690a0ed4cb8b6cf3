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
        0x8000_0000_8000_8081, 0x8000_0000_0000_8080, 0x0000_0000_8000_0001, 0x8000_0000_8000_8008]
    private static let rate = 136

    /// Keccak-f[1600] on 25 lanes, unrolled: theta, rho and pi (offsets and destinations as
    /// literals), chi, iota. No allocation; a scan hashes every transaction it reads.
    private static func permute(_ a: UnsafeMutablePointer<UInt64>) {
        for round in 0..<24 {
            let c0 = a[0] ^ a[5] ^ a[10] ^ a[15] ^ a[20]
            let c1 = a[1] ^ a[6] ^ a[11] ^ a[16] ^ a[21]
            let c2 = a[2] ^ a[7] ^ a[12] ^ a[17] ^ a[22]
            let c3 = a[3] ^ a[8] ^ a[13] ^ a[18] ^ a[23]
            let c4 = a[4] ^ a[9] ^ a[14] ^ a[19] ^ a[24]
            let d0 = c4 ^ (c1 &<< 1 | c1 &>> 63), d1 = c0 ^ (c2 &<< 1 | c2 &>> 63), d2 = c1 ^ (c3 &<< 1 | c3 &>> 63)
            let d3 = c2 ^ (c4 &<< 1 | c4 &>> 63), d4 = c3 ^ (c0 &<< 1 | c0 &>> 63)
            for y in stride(from: 0, to: 25, by: 5) {
                a[y] ^= d0; a[y + 1] ^= d1; a[y + 2] ^= d2; a[y + 3] ^= d3; a[y + 4] ^= d4
            }
            let b0 = a[0]
            let b1 = (a[6] &<< 44) | (a[6] &>> 20)
            let b2 = (a[12] &<< 43) | (a[12] &>> 21)
            let b3 = (a[18] &<< 21) | (a[18] &>> 43)
            let b4 = (a[24] &<< 14) | (a[24] &>> 50)
            let b5 = (a[3] &<< 28) | (a[3] &>> 36)
            let b6 = (a[9] &<< 20) | (a[9] &>> 44)
            let b7 = (a[10] &<< 3) | (a[10] &>> 61)
            let b8 = (a[16] &<< 45) | (a[16] &>> 19)
            let b9 = (a[22] &<< 61) | (a[22] &>> 3)
            let b10 = (a[1] &<< 1) | (a[1] &>> 63)
            let b11 = (a[7] &<< 6) | (a[7] &>> 58)
            let b12 = (a[13] &<< 25) | (a[13] &>> 39)
            let b13 = (a[19] &<< 8) | (a[19] &>> 56)
            let b14 = (a[20] &<< 18) | (a[20] &>> 46)
            let b15 = (a[4] &<< 27) | (a[4] &>> 37)
            let b16 = (a[5] &<< 36) | (a[5] &>> 28)
            let b17 = (a[11] &<< 10) | (a[11] &>> 54)
            let b18 = (a[17] &<< 15) | (a[17] &>> 49)
            let b19 = (a[23] &<< 56) | (a[23] &>> 8)
            let b20 = (a[2] &<< 62) | (a[2] &>> 2)
            let b21 = (a[8] &<< 55) | (a[8] &>> 9)
            let b22 = (a[14] &<< 39) | (a[14] &>> 25)
            let b23 = (a[15] &<< 41) | (a[15] &>> 23)
            let b24 = (a[21] &<< 2) | (a[21] &>> 62)
            a[0] = b0 ^ (~b1 & b2)
            a[1] = b1 ^ (~b2 & b3)
            a[2] = b2 ^ (~b3 & b4)
            a[3] = b3 ^ (~b4 & b0)
            a[4] = b4 ^ (~b0 & b1)
            a[5] = b5 ^ (~b6 & b7)
            a[6] = b6 ^ (~b7 & b8)
            a[7] = b7 ^ (~b8 & b9)
            a[8] = b8 ^ (~b9 & b5)
            a[9] = b9 ^ (~b5 & b6)
            a[10] = b10 ^ (~b11 & b12)
            a[11] = b11 ^ (~b12 & b13)
            a[12] = b12 ^ (~b13 & b14)
            a[13] = b13 ^ (~b14 & b10)
            a[14] = b14 ^ (~b10 & b11)
            a[15] = b15 ^ (~b16 & b17)
            a[16] = b16 ^ (~b17 & b18)
            a[17] = b17 ^ (~b18 & b19)
            a[18] = b18 ^ (~b19 & b15)
            a[19] = b19 ^ (~b15 & b16)
            a[20] = b20 ^ (~b21 & b22)
            a[21] = b21 ^ (~b22 & b23)
            a[22] = b22 ^ (~b23 & b24)
            a[23] = b23 ^ (~b24 & b20)
            a[24] = b24 ^ (~b20 & b21)
            a[0] ^= roundConstants[round]
        }
    }

    public static func hash<C: Collection>(_ message: C) -> [UInt8] where C.Element == UInt8 {
        var data = Array(message)
        defer { SecureBytes.wipe(&data) }
        data.append(0x01)
        while data.count % rate != 0 { data.append(0) }
        data[data.count - 1] |= 0x80
        var out = [UInt8](repeating: 0, count: 32)
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 25) { state in
            let lanes = state.baseAddress!
            lanes.initialize(repeating: 0, count: 25)
            data.withUnsafeBytes { bytes in
                for block in stride(from: 0, to: bytes.count, by: rate) {
                    for i in 0..<(rate / 8) {
                        lanes[i] ^= UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: block + 8 * i, as: UInt64.self))
                    }
                    permute(lanes)
                }
            }
            for i in 0..<32 { out[i] = UInt8(truncatingIfNeeded: lanes[i / 8] >> (8 * UInt64(i % 8))) }
            // The state holds the message's last block mixed in: wipe it (keys are hashed here).
            lanes.update(repeating: 0, count: 25)
        }
        return out
    }
}
