import Foundation

// The engine's two ways of using the cores, apart from the engine: the chains' scanners and
// the block sources use them too.

/// Work started on a thread of its own, its result taken later (once or many times). Not the
/// global dispatch queue: its threads are all busy scanning (as many as there are cores), and
/// work queued behind them would start only when they end.
public final class BackgroundTask<Value: Sendable>: @unchecked Sendable {  // `result` is written once, before `done` is signalled
    private var result: Result<Value, any Error>?
    private let done = DispatchSemaphore(value: 0)

    public init(_ work: @escaping @Sendable () throws -> Value) {
        Thread.detachNewThread { [self] in
            result = Result { try work() }
            done.signal()
        }
    }

    /// Waits for the work to end.
    public func wait() {
        done.wait()
        done.signal()
    }

    /// The work's result, once it has ended.
    public func get() throws -> Value {
        wait()
        return try result!.get()
    }
}

/// Work spread over all cores, results in order.
public enum ParallelMap {
    /// `transform` over `items` on all cores, results in order.
    public static func map<T: Sendable, R>(_ items: [T], _ transform: @Sendable (T) -> R) -> [R] {
        var results = [R?](repeating: nil, count: items.count)
        results.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let out = buffer
            DispatchQueue.concurrentPerform(iterations: items.count) { i in out[i] = transform(items[i]) }
        }
        return results.map { $0! }
    }
}
