import ImgCacheSupport
/// The number of downloads under way, readable from any thread at any time: the number a web
/// view waits on before it reloads.
final class OutstandingCounter: Sendable {
    private let count = ThreadLocked(0)

    var value: Int { count.withLock { $0 } }

    func increment() {
        count.withLock { $0 += 1 }
    }

    func decrement() {
        count.withLock { $0 -= 1 }
    }

    /// Counts `n` downloads at once (queued ones, before they start).
    func add(_ n: Int) {
        count.withLock { $0 += n }
    }
}
