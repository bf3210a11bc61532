import Dispatch
import Foundation

/// Waits on the calling thread for async work: for callers that must stay synchronous (the refresh
/// notifier's callback) but use an async API (swift-subprocess).
///
/// The work runs on a serial Dispatch queue of its own rather than on the cooperative pool: the
/// waiting thread may itself be one of the pool's threads (one per core, two on the CI machine),
/// and work that needed a pool thread while they were all waiting would never run.
enum BlockingWait {
    static func result<T: Sendable>(of work: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox<T>()
        let operation: @Sendable () async -> Void = {
            do {
                box.set(.success(try await work()))
            } catch {
                box.set(.failure(error))
            }
            done.signal()
        }
        if #available(macOS 15, iOS 18, *) {
            Task(executorPreference: QueueTaskExecutor.shared, operation: operation)
        } else {
            Task(operation: operation)
        }
        done.wait()
        return box.get()
    }
}

/// Written once before the semaphore is signalled and read after waiting for it; the lock makes
/// that order plain to ThreadSanitizer too.
private final class ResultBox<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    // Guarded by `lock`.
    private var result: Result<T, any Error>?

    func set(_ result: Result<T, any Error>) { lock.withLock { self.result = result } }
    func get() -> Result<T, any Error> { lock.withLock { result! } }
}

@available(macOS 15, iOS 18, *)
private final class QueueTaskExecutor: TaskExecutor {
    static let shared = QueueTaskExecutor()
    private let queue = DispatchQueue(label: "imgcache.blocking-wait")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
