/// Runs blocking work where it is asked for while such work has been quick, and says to send it
/// elsewhere from the first time it was not.
///
/// For file work the cooperative pool should not wait on: on a local file system reading or
/// writing a page takes tens of microseconds, less than the two thread wake-ups a hop to another
/// queue and back costs; on a network file system or a slow disk it can take milliseconds, which
/// the pool's few threads must not spend waiting.
final class InlineWhileQuick: Sendable {
    /// The longest a piece of work may take and the next still run in place.
    let limit: Duration
    private let wasSlow = ThreadLocked(false)

    init(limit: Duration) {
        self.limit = limit
    }

    /// Whether work may run in place: none has taken longer than ``limit`` yet.
    var isQuick: Bool {
        !wasSlow.withLock { $0 }
    }

    /// Runs `work` here and now, and remembers if it took longer than ``limit``.
    func run<T>(_ work: () throws -> T) rethrows -> T {
        let start = ContinuousClock.now
        defer {
            if ContinuousClock.now - start > limit { wasSlow.withLock { $0 = true } }
        }
        return try work()
    }
}
