import WalletCore
import WalletCrypto

/// Xoshiro256** as UR's fountain codes use it (BCR-2024-001): seeded with SHA-256 of the seed
/// bytes, read as four big-endian words. Every encoder and decoder must draw the same numbers,
/// so the conversions below (to a double, to an integer range) follow bc-ur's exactly.
struct Xoshiro256 {
    private var s: (UInt64, UInt64, UInt64, UInt64)

    init(seed: [UInt8]) {
        let d = Hash.sha256(seed)
        func word(_ i: Int) -> UInt64 { d[(8 * i)..<(8 * i + 8)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        s = (word(0), word(1), word(2), word(3))
    }

    /// The RNG of a fountain part: seq_num and checksum, big-endian.
    init(sequence: UInt32, checksum: UInt32) {
        self.init(seed: Bytewords.bigEndian(sequence) + Bytewords.bigEndian(checksum))
    }

    private static func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }

    mutating func next() -> UInt64 {
        let result = Self.rotl(s.1 &* 5, 7) &* 9
        let t = s.1 << 17
        s.2 ^= s.0
        s.3 ^= s.1
        s.1 ^= s.2
        s.0 ^= s.3
        s.2 ^= t
        s.3 = Self.rotl(s.3, 45)
        return result
    }

    /// next() / 2^64, as bc-ur computes it (the conversion to Double rounds).
    mutating func nextDouble() -> Double { Double(next()) / (Double(UInt64.max) + 1) }

    /// An integer in low...high.
    mutating func nextInt(_ low: Int, _ high: Int) -> Int { Int(nextDouble() * Double(high - low + 1)) + low }

    mutating func nextData(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(nextInt(0, 255)) } }

    /// The first `k` items of `shuffled(Array(0..<n))`, in O(n + k log n) rather than that
    /// shuffle's O(n²): the draws are the same (each pick's index among what remains), and the
    /// item at that index is found in a Fenwick tree of what was taken.
    mutating func shuffledPrefix(of n: Int, taking k: Int) -> [Int] {
        // taken[i]: how many taken items lie in node i's range (i - lowbit(i), i], 1-based.
        var taken = [Int32](repeating: 0, count: n + 1)
        var top = 1
        while top * 2 <= n { top *= 2 }
        var picks: [Int] = []
        picks.reserveCapacity(k)
        for j in 0..<min(k, n) {
            var rank = nextInt(0, n - j - 1) + 1  // the rank-th item that remains
            var position = 0, step = top
            while step > 0 {
                let next = position + step
                if next <= n {
                    let left = (next & -next) - Int(taken[next])
                    if left < rank {
                        position = next
                        rank -= left
                    }
                }
                step >>= 1
            }
            picks.append(position)  // 0-based: the 1-based item position + 1
            var i = position + 1
            while i <= n {
                taken[i] += 1
                i += i & -i
            }
        }
        return picks
    }

    /// bc-ur's shuffle: repeatedly take the item at a random index of what remains.
    mutating func shuffled<T>(_ items: [T]) -> [T] {
        var remaining = items, result: [T] = []
        result.reserveCapacity(items.count)
        while !remaining.isEmpty { result.append(remaining.remove(at: nextInt(0, remaining.count - 1))) }
        return result
    }
}

/// Vose's alias method over the given weights, as bc-ur builds its tables (the order of the
/// two work lists decides which index gets which alias, and so every drawn degree).
struct RandomSampler {
    private var probabilities: [Double]
    private var aliases: [Int]

    init(_ weights: [Double]) {
        let n = weights.count
        let sum = weights.reduce(0, +)
        var p = weights.map { $0 * Double(n) / sum }
        var small: [Int] = [], large: [Int] = []
        for i in stride(from: n - 1, through: 0, by: -1) {
            if p[i] < 1 { small.append(i) } else { large.append(i) }
        }
        probabilities = [Double](repeating: 0, count: n)
        aliases = [Int](repeating: 0, count: n)
        while let a = small.last, let g = large.last {
            small.removeLast()
            large.removeLast()
            probabilities[a] = p[a]
            aliases[a] = g
            p[g] += p[a] - 1
            if p[g] < 1 { small.append(g) } else { large.append(g) }
        }
        while let g = large.popLast() { probabilities[g] = 1 }
        while let a = small.popLast() { probabilities[a] = 1 }
    }

    func next(_ rng: inout Xoshiro256) -> Int {
        let r1 = rng.nextDouble(), r2 = rng.nextDouble()
        let i = Int(Double(probabilities.count) * r1)
        return r2 < probabilities[i] ? i : aliases[i]
    }
}
