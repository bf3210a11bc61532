import ImgCacheSupport
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
        /// How many outcomes the waiter waits for.
        var wanted = 1
    }

    private let state = ThreadLocked(State())

    /// Leaves `outcome` for the next ``takeAll()``, waking it when it is waiting.
    func deliver(_ outcome: Outcome) {
        let woken: (CheckedContinuation<[Outcome], Never>, [Outcome])? = state.withLock { state in
            state.delivered.append(outcome)
            guard let waiter = state.waiter, state.delivered.count >= state.wanted else { return nil }
            state.waiter = nil
            defer { state.delivered = [] }
            return (waiter, state.delivered)
        }
        if let (waiter, outcomes) = woken { waiter.resume(returning: outcomes) }
    }

    /// Everything delivered since the last call, waiting until there are at least `wanted`
    /// outcomes: a caller with nothing to do before its last images end waits for them all, and
    /// is woken once instead of at every burst. One caller at a time, who must know that that
    /// many are still to come.
    func takeAll(atLeast wanted: Int = 1) async -> [Outcome] {
        let ready: [Outcome] = state.withLock { state in
            guard state.delivered.count >= wanted else { return [] }
            defer { state.delivered = [] }
            return state.delivered
        }
        if !ready.isEmpty { return ready }
        return await withCheckedContinuation { continuation in
            // Something may have been delivered between the look above and now.
            let ready: [Outcome]? = state.withLock { state in
                guard state.delivered.count < wanted else {
                    defer { state.delivered = [] }
                    return state.delivered
                }
                state.waiter = continuation
                state.wanted = wanted
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
