import Foundation

/// A value only reachable while holding a mutex: what makes ``ImageCacheStore`` and
/// ``RefreshNotifier`` `Sendable` while they own mutable state. `NSLock` rather than
/// `Synchronization.Mutex` because the package still supports macOS 13. Hold it briefly: the
/// store's callers keep its file I/O off the cooperative thread pool.
final class ThreadLocked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
