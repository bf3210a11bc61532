import Foundation

/// Limits how many tasks do something at once; waiters resume in arrival order.
/// A semaphore for async code: waiting suspends the task instead of blocking a thread.
final class AsyncSemaphore: @unchecked Sendable {
    // Guarded by `lock`.
    private var available: Int
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var head = 0
    private let lock = NSLock()

    init(value: Int) {
        available = max(1, value)
    }

    func wait() async {
        let acquired = lock.withLock {
            guard available > 0 else { return false }
            available -= 1
            return true
        }
        if acquired { return }
        await withCheckedContinuation { continuation in
            // A unit may have been released between the check above and now.
            let acquiredNow = lock.withLock {
                if available > 0 {
                    available -= 1
                    return true
                }
                waiters.append(continuation)
                return false
            }
            if acquiredNow { continuation.resume() }
        }
    }

    func signal() {
        let next: CheckedContinuation<Void, Never>? = lock.withLock {
            guard head < waiters.count else {
                available += 1
                return nil
            }
            let next = waiters[head]
            head += 1
            if head > 64, head * 2 > waiters.count {
                waiters.removeFirst(head)
                head = 0
            }
            return next
        }
        next?.resume()
    }
}
