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
    private static let rotations: [UInt64] = [
        0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14]
    private static let rate = 136

    private static func permute(_ a: inout [UInt64]) {
        var b = [UInt64](repeating: 0, count: 25)
        var c = [UInt64](repeating: 0, count: 5)
        for round in 0..<24 {
            for x in 0..<5 { c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20] }
            for x in 0..<5 {
                let d = c[(x + 4) % 5] ^ ((c[(x + 1) % 5] << 1) | (c[(x + 1) % 5] >> 63))
                for y in stride(from: 0, to: 25, by: 5) { a[y + x] ^= d }
            }
            for x in 0..<5 {
                for y in 0..<5 {
                    let r = rotations[x + 5 * y]
                    let v = a[x + 5 * y]
                    b[y + 5 * ((2 * x + 3 * y) % 5)] = r == 0 ? v : (v << r) | (v >> (64 - r))
                }
            }
            for y in stride(from: 0, to: 25, by: 5) {
                for x in 0..<5 { a[y + x] = b[y + x] ^ (~b[y + (x + 1) % 5] & b[y + (x + 2) % 5]) }
            }
            a[0] ^= roundConstants[round]
        }
    }

    public static func hash<C: Collection>(_ message: C) -> [UInt8] where C.Element == UInt8 {
        var state = [UInt64](repeating: 0, count: 25)
        var data = Array(message)
        defer { SecureBytes.wipe(&data) }
        data.append(0x01)
        while data.count % rate != 0 { data.append(0) }
        data[data.count - 1] |= 0x80
        for block in stride(from: 0, to: data.count, by: rate) {
            for i in 0..<(rate / 8) {
                var lane: UInt64 = 0
                for k in 0..<8 { lane |= UInt64(data[block + 8 * i + k]) << (8 * UInt64(k)) }
                state[i] ^= lane
            }
            permute(&state)
        }
        var out = [UInt8]()
        out.reserveCapacity(32)
        for i in 0..<4 { for k in 0..<8 { out.append(UInt8(truncatingIfNeeded: state[i] >> (8 * UInt64(k)))) } }
        return out
    }
}
