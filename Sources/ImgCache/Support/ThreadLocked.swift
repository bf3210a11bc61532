import Foundation

/// A value only reachable while holding a mutex, which is what makes ``ImageCacheStore``
/// `Sendable` while it owns non-thread-safe pieces (the lock file and journal descriptors, the
/// size index). `NSLock` rather than `Synchronization.Mutex` because the package still supports
/// macOS 13; blocking inside is fine because the store's callers keep file I/O off the
/// cooperative thread pool.
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
