import Foundation

/// Limits how many tasks do something at once; waiters resume in arrival order.
/// A semaphore for async code: waiting suspends the task instead of blocking a thread, or leaves
/// a closure to call once a unit is taken (``wait(then:)``), which needs no task at all.
///
/// The limit can be changed while units are held (``setLimit(_:)``): raising it resumes waiters
/// at once; lowering it takes effect as holders signal, without interrupting anybody.
final class AsyncSemaphore: @unchecked Sendable {
    /// Who waits for a unit.
    private enum Waiter {
        case task(CheckedContinuation<Void, Never>)
        case call(@Sendable () -> Void)

        /// Hands the waiter its unit.
        func resume() {
            switch self {
            case .task(let continuation): continuation.resume()
            case .call(let body): body()
            }
        }
    }

    // Guarded by `lock`. `available` goes below zero when the limit was lowered under holders.
    private var limit: Int
    private var available: Int
    private var waiters: [Waiter] = []
    private var head = 0
    private let lock = NSLock()

    init(value: Int) {
        limit = max(1, value)
        available = limit
    }

    /// The number of units, held or free.
    var currentLimit: Int { lock.withLock { limit } }

    func wait() async {
        // A free unit is taken without a continuation; one may also be released between this
        // look and the next, which takes it then.
        if lock.withLock({ takeFreeUnit() }) { return }
        await withCheckedContinuation { continuation in
            if takeOrQueue(.task(continuation)) { continuation.resume() }
        }
    }

    /// Takes a unit and calls `body` holding it: at once when one is free, otherwise on the thread
    /// of the ``signal()`` or ``setLimit(_:)`` that hands it over.
    func wait(then body: @escaping @Sendable () -> Void) {
        if takeOrQueue(.call(body)) { body() }
    }

    /// Takes a free unit (true), or puts `waiter` in line for the next (false).
    private func takeOrQueue(_ waiter: Waiter) -> Bool {
        lock.withLock {
            if takeFreeUnit() { return true }
            waiters.append(waiter)
            return false
        }
    }

    /// Takes a unit when one is free; call with `lock` held. (A free unit means nobody waits:
    /// ``signal()`` hands units to waiters first.)
    private func takeFreeUnit() -> Bool {
        guard available > 0 else { return false }
        available -= 1
        return true
    }

    func signal() {
        let next: Waiter? = lock.withLock {
            guard available >= 0, let next = popWaiter() else {
                available += 1
                return nil
            }
            return next
        }
        next?.resume()
    }

    /// Makes `newLimit` units exist (at least one). Waiters that now fit are resumed.
    func setLimit(_ newLimit: Int) {
        let resumed: [Waiter] = lock.withLock {
            let newLimit = max(1, newLimit)
            available += newLimit - limit
            limit = newLimit
            var resumed: [Waiter] = []
            while available > 0, let next = popWaiter() {
                available -= 1
                resumed.append(next)
            }
            return resumed
        }
        for waiter in resumed { waiter.resume() }
    }

    /// The longest waiter, removed; call with `lock` held.
    private func popWaiter() -> Waiter? {
        guard head < waiters.count else { return nil }
        let next = waiters[head]
        head += 1
        if head > 64, head * 2 > waiters.count {
            waiters.removeFirst(head)
            head = 0
        }
        return next
    }
}
