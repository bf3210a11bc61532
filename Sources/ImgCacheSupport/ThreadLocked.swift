#if canImport(Darwin)
package import Darwin
#elseif canImport(Glibc)
package import Glibc
#elseif canImport(Musl)
package import Musl
#endif

/// A value only reachable while holding a mutex: what makes ``ImageCacheStore`` and
/// ``RefreshNotifier`` `Sendable` while they own mutable state. Hold it briefly: the store's
/// callers keep its file I/O off the cooperative thread pool.
///
/// The value and its mutex share one allocation (NIO's `NIOLockedValueBox` is built the same
/// way; `ImgCache` does not depend on NIO, and `Synchronization.Mutex` needs macOS 15, where the
/// package supports macOS 13). With an `NSLock` it took three (the box, the lock, the lock's
/// mutex), and a download makes several of these per image.
///
/// `@inlinable`, so that each layer's locks are specialised for their values: called across
/// modules unspecialised, every lock looked up its generic metadata at run time.
package struct ThreadLocked<Value>: @unchecked Sendable {
    @usableFromInline let storage: Storage

    @inlinable package init(_ value: Value) {
        storage = Storage.make(value)
    }

    @inlinable package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutablePointers { value, mutex in
            Storage.check(pthread_mutex_lock(mutex), "pthread_mutex_lock")
            defer { Storage.check(pthread_mutex_unlock(mutex), "pthread_mutex_unlock") }
            return try body(&value.pointee)
        }
    }

    /// The value as the header, the mutex as the one element. A POSIX mutex on every platform,
    /// Darwin's included (where `NSLock` is one too), so that the code Apple platforms run is the
    /// code the tests run here.
    @usableFromInline final class Storage: ManagedBuffer<Value, pthread_mutex_t> {
        @usableFromInline static func make(_ value: Value) -> Storage {
            let buffer = create(minimumCapacity: 1) { _ in value }
            let storage = unsafeDowncast(buffer, to: Storage.self)
            storage.withUnsafeMutablePointerToElements { mutex in
                mutex.initialize(to: pthread_mutex_t())
                check(pthread_mutex_init(mutex, nil), "pthread_mutex_init")
            }
            return storage
        }

        /// Stops on a mutex call's failure, which only misuse (or memory corruption) causes.
        @usableFromInline static func check(_ failure: Int32, _ call: StaticString) {
            precondition(failure == 0, "\(call) failed: \(failure)")
        }

        deinit {
            // The header (the value) is destroyed by ManagedBuffer; the element is ours to end.
            withUnsafeMutablePointerToElements { mutex in
                pthread_mutex_destroy(mutex)
                mutex.deinitialize(count: 1)
            }
        }
    }
}
