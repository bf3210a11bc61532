#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value only reachable while holding a mutex: what makes ``ImageCacheStore`` and
/// ``RefreshNotifier`` `Sendable` while they own mutable state. Hold it briefly: the store's
/// callers keep its file I/O off the cooperative thread pool.
///
/// The value and its mutex share one allocation (NIO's `NIOLockedValueBox` is built the same
/// way; `ImgCache` does not depend on NIO, and `Synchronization.Mutex` needs macOS 15, where the
/// package supports macOS 13). With an `NSLock` it took three (the box, the lock, the lock's
/// mutex), and a download makes several of these per image.
struct ThreadLocked<Value>: @unchecked Sendable {
    private let storage: Storage

    init(_ value: Value) {
        storage = Storage.make(value)
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutablePointers { value, mutex in
            Storage.lock(mutex)
            defer { Storage.unlock(mutex) }
            return try body(&value.pointee)
        }
    }

    /// The value as the header, the mutex as the one element.
    private final class Storage: ManagedBuffer<Value, Storage.Primitive> {
        #if canImport(Darwin)
        typealias Primitive = os_unfair_lock
        #else
        typealias Primitive = pthread_mutex_t
        #endif

        static func make(_ value: Value) -> Storage {
            let buffer = create(minimumCapacity: 1) { _ in value }
            let storage = unsafeDowncast(buffer, to: Storage.self)
            storage.withUnsafeMutablePointerToElements { mutex in
                #if canImport(Darwin)
                mutex.initialize(to: os_unfair_lock())
                #else
                mutex.initialize(to: pthread_mutex_t())
                let failure = pthread_mutex_init(mutex, nil)
                precondition(failure == 0, "pthread_mutex_init failed: \(failure)")
                #endif
            }
            return storage
        }

        static func lock(_ mutex: UnsafeMutablePointer<Primitive>) {
            #if canImport(Darwin)
            os_unfair_lock_lock(mutex)
            #else
            let failure = pthread_mutex_lock(mutex)
            precondition(failure == 0, "pthread_mutex_lock failed: \(failure)")
            #endif
        }

        static func unlock(_ mutex: UnsafeMutablePointer<Primitive>) {
            #if canImport(Darwin)
            os_unfair_lock_unlock(mutex)
            #else
            let failure = pthread_mutex_unlock(mutex)
            precondition(failure == 0, "pthread_mutex_unlock failed: \(failure)")
            #endif
        }

        deinit {
            // The header (the value) is destroyed by ManagedBuffer; the element is ours to end.
            withUnsafeMutablePointerToElements { mutex in
                #if !canImport(Darwin)
                pthread_mutex_destroy(mutex)
                #endif
                mutex.deinitialize(count: 1)
            }
        }
    }
}
