import Dispatch
import Foundation

/// Runs long synchronous test work (fuzzing, property checks, thousands of file operations,
/// waiting for threads or processes) on Dispatch threads rather than on the cooperative pool.
///
/// The pool has one thread per core, two on the CI machine: a few such tests at once held both
/// for 20 s, and every async test with a deadline (transport time-outs, cancellation) then looked
/// late. The body still runs in the test's task (through a task executor preference), so `#expect`
/// inside it is attributed to the test as usual.
func offPool<T>(_ body: () throws -> T) async rethrows -> T {
    if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) {
        return try await withTaskExecutorPreference(OffPoolExecutor.shared) { try body() }
    }
    return try body()
}

/// Serial queues, taken in turn, rather than one concurrent queue: on Linux a concurrent queue
/// draws its threads from the same Dispatch root queue as the cooperative pool (one thread per
/// core), so long tests on it still held the pool. Serial queues get threads of their own.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
private final class OffPoolExecutor: TaskExecutor, @unchecked Sendable {
    static let shared = OffPoolExecutor()
    private let queues = (0..<8).map { DispatchQueue(label: "imgcache-tests.off-pool-\($0)") }
    private let next = NSLock()
    private var counter = 0

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        next.lock()
        counter = (counter + 1) % queues.count
        let queue = queues[counter]
        next.unlock()
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
