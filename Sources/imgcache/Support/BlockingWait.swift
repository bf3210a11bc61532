import Dispatch

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
                box.result = .success(try await work())
            } catch {
                box.result = .failure(error)
            }
            done.signal()
        }
        if #available(macOS 15, iOS 18, *) {
            Task(executorPreference: QueueTaskExecutor.shared, operation: operation)
        } else {
            Task(operation: operation)
        }
        done.wait()
        return box.result!
    }
}

/// Written once before the semaphore is signalled and read only after waiting for it, so the
/// semaphore orders the two accesses.
private final class ResultBox<T: Sendable>: @unchecked Sendable {
    var result: Result<T, any Error>?
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
