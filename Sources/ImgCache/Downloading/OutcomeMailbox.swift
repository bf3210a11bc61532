/// Where the images of one ``ImageDownloader/fetchAll(_:)`` call leave their outcomes as they end,
/// for the call to take in batches.
///
/// Images end on whatever thread finished them (an event loop, the cache writer) and often in
/// bursts: a batch written to the cache ends up to 64 at once. Everything delivered while the
/// call is busy starting the next requests is taken in one go, so a burst wakes the call once,
/// where a task group wakes it once per image.
final class OutcomeMailbox<Outcome: Sendable>: Sendable {
    private struct State {
        var delivered: [Outcome] = []
        var waiter: CheckedContinuation<[Outcome], Never>?
    }

    private let state = ThreadLocked(State())

    /// Leaves `outcome` for the next ``takeAll()``, waking it when it is waiting.
    func deliver(_ outcome: Outcome) {
        let woken: (CheckedContinuation<[Outcome], Never>, [Outcome])? = state.withLock { state in
            state.delivered.append(outcome)
            guard let waiter = state.waiter else { return nil }
            state.waiter = nil
            defer { state.delivered = [] }
            return (waiter, state.delivered)
        }
        if let (waiter, outcomes) = woken { waiter.resume(returning: outcomes) }
    }

    /// Everything delivered since the last call, waiting until there is something. One caller at
    /// a time, who must know that something is still to come.
    func takeAll() async -> [Outcome] {
        let ready: [Outcome] = state.withLock { state in
            defer { state.delivered = [] }
            return state.delivered
        }
        if !ready.isEmpty { return ready }
        return await withCheckedContinuation { continuation in
            // Something may have been delivered between the look above and now.
            let ready: [Outcome]? = state.withLock { state in
                guard state.delivered.isEmpty else {
                    defer { state.delivered = [] }
                    return state.delivered
                }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
