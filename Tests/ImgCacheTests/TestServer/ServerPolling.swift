/// Checks `condition` every 20 ms until it holds or `timeout` has passed; returns whether it held.
/// For server-side effects (a request arriving, a stream closing) that follow a client's action
/// by a moment; the generous timeout only matters when something is wrong (10 s was once missed
/// on a loaded 2-core machine).
func serverEventually(timeout: Duration = .seconds(30), _ condition: () -> Bool) async throws -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while !condition() {
        guard clock.now < deadline else { return false }
        try await Task.sleep(for: .milliseconds(20))
    }
    return true
}
