/// Runs `operation`, cancelling it and throwing `TransportError.timedOut` at `deadline`.
///
/// The downloader bounds each image itself instead of trusting every transport to: a server
/// that drips one byte a second must not hold a run whatever the transport does with bodies.
func withDeadline<T: Sendable>(
    _ deadline: ContinuousClock.Instant, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(until: deadline, clock: .continuous)
            throw TransportError.timedOut
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw CancellationError() }
        return first
    }
}
