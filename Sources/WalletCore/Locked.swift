import Synchronization

/// A value behind a lock that closures may capture (a `Mutex` itself is not copyable, so an
/// escaping closure cannot hold one): state shared between a source's threads and tasks.
public final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    public init(_ value: Value) { mutex = Mutex(value) }

    public func withLock<R: Sendable>(_ body: (inout Value) throws -> R) rethrows -> R {
        try mutex.withLock { try body(&$0) }
    }

    public func get() -> Value { mutex.withLock { $0 } }
    public func set(_ value: Value) { mutex.withLock { $0 = value } }
}
