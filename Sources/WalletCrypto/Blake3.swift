/// BLAKE3 (the BLAKE3 paper and its reference implementation, version 1): hash, keyed hash
/// and key derivation, with extendable output. Written here because Debian has no C library
/// of it; Zcash's ZIP 2005 derives an Orchard key with `deriveKey`. Checked against the
/// official test vectors and, on random inputs, against Debian's `b3sum` (WalletCoreTests).
/// Portable and one chunk at a time: its inputs here are keys, a few dozen bytes. Only
/// additions, rotations and XORs touch the data, so a secret input leaks nothing but its length.
public enum Blake3 {
    static let iv: [UInt32] = [0x6A09_E667, 0xBB67_AE85, 0x3C6E_F372, 0xA54F_F53A, 0x510E_527F, 0x9B05_688C, 0x1F83_D9AB, 0x5BE0_CD19]
    static let chunkLength = 1024
    static let blockLength = 64

    /// Domain flags of a compression.
    struct Flags: OptionSet {
        let rawValue: UInt32
        static let chunkStart = Flags(rawValue: 1 << 0)
        static let chunkEnd = Flags(rawValue: 1 << 1)
        static let parent = Flags(rawValue: 1 << 2)
        static let root = Flags(rawValue: 1 << 3)
        static let keyedHash = Flags(rawValue: 1 << 4)
        static let deriveKeyContext = Flags(rawValue: 1 << 5)
        static let deriveKeyMaterial = Flags(rawValue: 1 << 6)
    }

    /// The unkeyed hash of `input`, `length` bytes of output (32 by default).
    public static func hash(_ input: [UInt8], length: Int = 32) -> [UInt8] {
        run(input, key: iv, flags: [], length: length)
    }

    /// The keyed hash of `input` under a 32-byte key.
    public static func keyedHash(key: [UInt8], _ input: [UInt8], length: Int = 32) -> [UInt8] {
        precondition(key.count == 32, "a BLAKE3 key is 32 bytes")
        return run(input, key: words(key), flags: .keyedHash, length: length)
    }

    /// derive_key(context, material): the context string hashed to a key first, then the
    /// material under it. The context is a hard-coded, globally unique string.
    public static func deriveKey(context: String, material: [UInt8], length: Int = 32) -> [UInt8] {
        let contextKey = run(Array(context.utf8), key: iv, flags: .deriveKeyContext, length: 32)
        return run(material, key: words(contextKey), flags: .deriveKeyMaterial, length: length)
    }

    /// Little-endian words of a byte string whose length is a multiple of 4.
    static func words(_ bytes: some Collection<UInt8>) -> [UInt32] {
        var out = [UInt32](repeating: 0, count: bytes.count / 4)
        for (i, b) in bytes.enumerated() { out[i / 4] |= UInt32(b) << (8 * UInt32(i % 4)) }
        return out
    }

    /// The compression function: 7 rounds over (cv, IV[0..<4], counter, block length, flags),
    /// all 16 words of output (the first 8 are the next chaining value).
    static func compress(_ cv: [UInt32], _ block: [UInt32], counter: UInt64, blockLength: UInt32, flags: Flags) -> [UInt32] {
        var s =
            cv + iv[0..<4] + [UInt32(truncatingIfNeeded: counter), UInt32(truncatingIfNeeded: counter >> 32), blockLength, flags.rawValue]
        var m = block
        @inline(__always) func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { x &>> n | x &<< (32 &- n) }
        @inline(__always) func g(_ a: Int, _ b: Int, _ c: Int, _ d: Int, _ x: UInt32, _ y: UInt32) {
            s[a] = s[a] &+ s[b] &+ x
            s[d] = rotr(s[d] ^ s[a], 16)
            s[c] = s[c] &+ s[d]
            s[b] = rotr(s[b] ^ s[c], 12)
            s[a] = s[a] &+ s[b] &+ y
            s[d] = rotr(s[d] ^ s[a], 8)
            s[c] = s[c] &+ s[d]
            s[b] = rotr(s[b] ^ s[c], 7)
        }
        for round in 0..<7 {
            g(0, 4, 8, 12, m[0], m[1]); g(1, 5, 9, 13, m[2], m[3]); g(2, 6, 10, 14, m[4], m[5]); g(3, 7, 11, 15, m[6], m[7])
            g(0, 5, 10, 15, m[8], m[9]); g(1, 6, 11, 12, m[10], m[11]); g(2, 7, 8, 13, m[12], m[13]); g(3, 4, 9, 14, m[14], m[15])
            if round < 6 { m = permutation.map { m[$0] } }
        }
        for i in 0..<8 {
            s[i] ^= s[i + 8]
            s[i + 8] ^= cv[i]
        }
        return s
    }

    static let permutation = [2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8]

    /// A node's last compression, kept open: as a chaining value it is compressed without the
    /// root flag; as the root, with it and counters 0, 1, … for as many 64-byte blocks as asked.
    struct Output {
        let cv: [UInt32]
        let block: [UInt32]
        let counter: UInt64
        let blockLength: UInt32
        let flags: Flags

        var chainingValue: [UInt32] { Array(compress(cv, block, counter: counter, blockLength: blockLength, flags: flags)[0..<8]) }

        func root(_ length: Int) -> [UInt8] {
            var out = [UInt8]()
            out.reserveCapacity(length + 64)
            var n: UInt64 = 0
            while out.count < length {
                for w in compress(cv, block, counter: n, blockLength: blockLength, flags: flags.union(.root)) {
                    out += [
                        UInt8(truncatingIfNeeded: w), UInt8(truncatingIfNeeded: w >> 8), UInt8(truncatingIfNeeded: w >> 16),
                        UInt8(truncatingIfNeeded: w >> 24),
                    ]
                }
                n += 1
            }
            return Array(out.prefix(length))
        }
    }

    /// One chunk (up to 1,024 bytes, chunk counter `index`): every block but the last
    /// compressed, the last left open.
    static func chunk(_ bytes: ArraySlice<UInt8>, index: UInt64, key: [UInt32], flags: Flags) -> Output {
        var cv = key
        var start = bytes.startIndex
        var blockFlags = flags.union(.chunkStart)
        while bytes.endIndex - start > blockLength {
            cv = Array(
                compress(
                    cv, words(bytes[start..<start + blockLength]), counter: index, blockLength: UInt32(blockLength), flags: blockFlags)[
                        0..<8])
            blockFlags = flags
            start += blockLength
        }
        var last = Array(bytes[start...])
        let length = UInt32(last.count)
        last += [UInt8](repeating: 0, count: blockLength - last.count)
        return Output(cv: cv, block: words(last), counter: index, blockLength: length, flags: blockFlags.union(.chunkEnd))
    }

    static func parent(_ left: [UInt32], _ right: [UInt32], key: [UInt32], flags: Flags) -> Output {
        Output(cv: key, block: left + right, counter: 0, blockLength: UInt32(blockLength), flags: flags.union(.parent))
    }

    /// The tree: chunks left to right, their chaining values merged on a stack as soon as a
    /// subtree is complete (a stack entry per 1 bit of the chunk count), the rest merged at
    /// the end right to left, the last node the root.
    static func run(_ input: [UInt8], key: [UInt32], flags: Flags, length: Int) -> [UInt8] {
        precondition(length >= 0)
        var stack = [[UInt32]]()
        var start = 0
        var index: UInt64 = 0
        while input.count - start > chunkLength {
            var cv = chunk(input[start..<start + chunkLength], index: index, key: key, flags: flags).chainingValue
            index += 1
            var total = index
            while total & 1 == 0 {
                cv = parent(stack.removeLast(), cv, key: key, flags: flags).chainingValue
                total >>= 1
            }
            stack.append(cv)
            start += chunkLength
        }
        var output = chunk(input[start...], index: index, key: key, flags: flags)
        while let left = stack.popLast() {
            output = parent(left, output.chainingValue, key: key, flags: flags)
        }
        return output.root(length)
    }
}
