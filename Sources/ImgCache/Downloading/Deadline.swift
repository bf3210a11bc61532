import ImgCacheSupport
/// Runs `operation`, cancelling it and throwing `TransportError.timedOut` at `deadline`.
///
/// The downloader bounds each image itself instead of trusting every transport to: a server
/// that drips one byte a second must not hold a run whatever the transport does with bodies.
/// Like a task group, it returns only once `operation` has ended; cancelling the caller cancels
/// `operation`. The deadline is kept by `watchdog` (one per downloader), not by a timer per call.
package func withDeadline<T: Sendable>(
    _ deadline: ContinuousClock.Instant, keptBy watchdog: DeadlineWatchdog, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    guard ContinuousClock.now < deadline else { throw TransportError.timedOut(phase: nil) }
    let task = Task { try await operation() }
    let expired = ThreadLocked(false)
    let ticket = watchdog.watch(until: deadline) {
        expired.withLock { $0 = true }
        task.cancel()
    }
    defer { watchdog.unwatch(ticket) }
    do {
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    } catch {
        if expired.withLock({ $0 }) { throw TransportError.timedOut(phase: nil) }
        throw error
    }
}
