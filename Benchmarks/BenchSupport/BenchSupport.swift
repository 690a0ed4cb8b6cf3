// Timing helpers shared by the benchmark executables (satchel-bench, zcash-bench, monero-bench).
#if canImport(Glibc)
    import Glibc
#endif

/// Seconds on the monotonic clock.
public func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Median seconds per operation over `repeats` rounds of `count` operations.
public func measure(repeats: Int, count: Int, _ body: (Int) throws -> Void) rethrows -> Double {
    var rounds = [Double]()
    for _ in 0..<repeats {
        let start = now()
        for i in 0..<count { try body(i) }
        rounds.append((now() - start) / Double(count))
    }
    return rounds.sorted()[repeats / 2]
}

/// One JSON line: the measurement's name, seconds per operation and operations per second.
public func report(_ name: String, _ secondsPerOp: Double) {
    print(#"{"bench":"\#(name)","seconds_per_op":\#(secondsPerOp),"ops_per_second":\#(1 / secondsPerOp)}"#)
}

/// Measurements that are compared with each other, timed round by round: every round runs each
/// once, in an order that turns with the round, so that a machine that speeds up or slows down
/// during the run (other jobs, frequency, a noisy neighbour) moves both sides of a ratio alike.
/// A ratio is then taken within each round and the median of those is reported, not a ratio of
/// medians taken minutes apart.
public struct InterleavedRounds {
    private var parts: [(name: String, iterations: Int, operations: Int, body: (Int) throws -> Void)] = []

    public init() {}

    /// `body(i)` for i in 0..<iterations does `operations` operations in all (a batch an
    /// iteration, or one).
    public mutating func add(_ name: String, iterations: Int, operations: Int? = nil, _ body: @escaping (Int) throws -> Void) {
        parts.append((name, iterations, operations ?? iterations, body))
    }

    /// Seconds per operation of each part, a value a round, as one JSON line a part:
    /// {"bench": name, "seconds_per_op": median, "rounds": [...]}.
    public func run(rounds: Int) throws {
        var times = [[Double]](repeating: [], count: parts.count)
        for round in 0..<rounds {
            for step in 0..<parts.count {
                let index = (step + round) % parts.count
                let part = parts[index]
                let start = now()
                for i in 0..<part.iterations { try part.body(i) }
                times[index].append((now() - start) / Double(part.operations))
            }
        }
        for (part, values) in zip(parts, times) {
            let list = values.map { "\($0)" }.joined(separator: ",")
            print(#"{"bench":"\#(part.name)","seconds_per_op":\#(values.sorted()[rounds / 2]),"rounds":[\#(list)]}"#)
        }
    }
}
