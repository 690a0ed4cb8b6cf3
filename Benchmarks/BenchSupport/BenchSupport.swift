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
