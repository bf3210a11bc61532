#if CommandLine
#if os(Linux) && canImport(CCurl)
import CCurl
import Foundation
import ImgCache
import ImgCacheHTTPClient
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The event loop of one libcurl multi handle: a thread of its own that owns the handle's
/// ``CurlTransferTable`` and looks at it in turn with the jobs of the tasks that prefer the thread
/// (a `TaskExecutor`). The curl tool's model (`curl --parallel`): one thread waiting in
/// `curl_multi_poll`, no callbacks between threads. Other threads only hand transfers in and ask
/// for cancellations, under a lock, and wake the thread with `curl_multi_wakeup`.
final class CurlMultiThread: @unchecked Sendable {
    /// The transfers, the thread's own (it alone touches them).
    private let table: CurlTransferTable
    /// The table's multi handle, which other threads wake with `curl_multi_wakeup` under the lock.
    private let multi: UnsafeMutableRawPointer

    // Shared with other threads, under `lock` (a condition too: what the thread waits on once its
    // transfers are over and the multi handle is freed).
    private let lock = NSCondition()
    private var submitted: [CurlTransfer] = []
    private var cancellations: [CurlTransfer] = []
    private var isStopping = false
    /// Set, under the lock, just before the multi handle is freed: no wake-up may touch it after.
    private var hasEnded = false
    /// A wake-up is on its way and the thread has not yet taken what was handed in since: what is
    /// handed in meanwhile needs none of its own. Each wake-up is a byte through libcurl's socket
    /// pair, a send here and a receive and a poll on the thread.
    private var wakeUpPending = false
    private var endWaiters: [CheckedContinuation<Void, Never>] = []
    /// Jobs of tasks that prefer this thread as their executor (``TaskExecutor``), to run between
    /// two looks at the transfers.
    private var jobs: [UnownedJob] = []
    /// The tasks started on the thread, and the operations run preferring it, that have not ended
    /// (``beginUse()``). Once the transfers are over the thread goes on running their jobs until
    /// none is left: a task must find the executor it prefers still there.
    private var users = 0
    /// Set, under the lock, when the thread has ended for good: no user is left and no job waits.
    private var hasDrained = false
    /// The thread's own identity, set when it starts: what it hands in itself needs no wake-up.
    private var threadID: pthread_t?

    /// libcurl must be loaded (``CurlTransport`` does it).
    init(options: CurlTransferTable.Options) {
        table = CurlTransferTable(options: options)
        multi = table.multi
        let thread = Thread { [self] in run() }
        thread.name = "imgcache libcurl"
        thread.start()
    }

    /// Hands a transfer to the thread; false when the thread is stopping (nothing will run it).
    func submit(_ transfer: CurlTransfer) -> Bool {
        lock.withLock {
            guard !isStopping else { return false }
            submitted.append(transfer)
            wakeUp()
            return true
        }
    }

    /// Asks the thread to stop `transfer` and fail it with `CancellationError`.
    func cancel(_ transfer: CurlTransfer) {
        lock.withLock {
            guard !hasEnded else { return }  // every transfer has ended with the thread
            cancellations.append(transfer)
            wakeUp()
        }
    }

    /// Wakes the thread from `curl_multi_poll`; called under the lock, so that the multi handle
    /// cannot be freed meanwhile.
    private func wakeUp() {
        guard !hasEnded, !wakeUpPending, !isOnThread else { return }
        wakeUpPending = true
        _ = imgcache_curl_multi_wakeup(multi)
    }

    /// Fails every transfer with "the transport is shut down", closes the connections and ends the
    /// thread; returns once it has ended. Calls after the first wait for the same end.
    func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ended = lock.withLock {
                isStopping = true
                if !hasEnded { endWaiters.append(continuation) }
                wakeUp()
                return hasEnded
            }
            if ended { continuation.resume() }
        }
    }

    /// Stops without waiting (a deinit's safety net).
    func stopWithoutWaiting() {
        lock.withLock {
            isStopping = true
            wakeUp()
        }
    }

    /// Whether the caller runs on the thread; called under the lock.
    private var isOnThread: Bool {
        guard let threadID else { return false }
        return pthread_equal(threadID, pthread_self()) != 0
    }

    // MARK: The thread

    private func run() {
        lock.withLock { threadID = pthread_self() }
        let executor = asUnownedTaskExecutor()
        var ranJobs: [UnownedJob] = []
        while true {
            let (added, cancelled, stopping) = lock.withLock {
                wakeUpPending = false
                swap(&ranJobs, &jobs)
                defer {
                    submitted.removeAll(keepingCapacity: true)
                    cancellations.removeAll(keepingCapacity: true)
                }
                return (submitted, cancellations, isStopping)
            }
            // The tasks first: what they hand in is taken at the next look, before any wait.
            for job in ranJobs { job.runSynchronously(on: executor) }
            ranJobs.removeAll(keepingCapacity: true)
            for transfer in added { table.add(transfer) }
            for transfer in cancelled { table.cancel(transfer) }
            if stopping { break }
            let launched = table.advance()
            // Tasks resumed by the transfers that ended, or transfers handed in by tasks, are
            // taken at once: the thread itself handed them in, so no wake-up is on its way.
            let hasWork = launched || lock.withLock { !jobs.isEmpty || !submitted.isEmpty || !cancellations.isEmpty }
            if !hasWork { table.wait() }
        }
        table.failAll("the transport is shut down")
        // Transfers handed in after the last look, before `isStopping` was set, fail too.
        let (late, waiters) = lock.withLock {
            hasEnded = true
            defer { submitted.removeAll(); endWaiters.removeAll() }
            return (submitted, endWaiters)
        }
        table.close()
        for transfer in late { transfer.finish(.failure(TransportError.connection("the transport is shut down"))) }
        for waiter in waiters { waiter.resume() }
        runJobsUntilUnused(on: executor)
    }

    /// The thread's last part: the jobs of the tasks that still prefer it, which end soon now that
    /// every request fails at once, until none is left.
    private func runJobsUntilUnused(on executor: UnownedTaskExecutor) {
        var batch: [UnownedJob] = []
        while true {
            let done = lock.withLock {
                while jobs.isEmpty, users > 0 { lock.wait() }
                if jobs.isEmpty {
                    hasDrained = true
                    return true
                }
                swap(&batch, &jobs)
                return false
            }
            if done { return }
            for job in batch { job.runSynchronously(on: executor) }
            batch.removeAll(keepingCapacity: true)
        }
    }

    /// Counts a task or an operation that prefers the thread, until its ``endUse()``; false (and
    /// nothing counted) when the thread has ended for good, and so can run nothing more.
    func beginUse() -> Bool {
        lock.withLock {
            guard !hasDrained else { return false }
            users += 1
            return true
        }
    }

    /// Ends what ``beginUse()`` counted.
    func endUse() {
        lock.withLock {
            users -= 1
            if users == 0 { lock.signal() }
        }
    }
}

extension CurlMultiThread: TaskExecutor {
    /// Runs `job` on the thread, between two looks at the transfers (or, once they are over, as
    /// soon as it is handed in); on the cooperative pool once the thread has ended for good, which
    /// only a job of a task that did not count itself (``beginUse()``) can meet.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let queued = lock.withLock {
            guard !hasDrained else { return false }
            jobs.append(job)
            if hasEnded { lock.signal() } else { wakeUp() }
            return true
        }
        if !queued { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
    }
}
#endif
#endif
