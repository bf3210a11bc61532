import ImgCacheSupport
/// What stops one image's fetch: the task that looks it up, the request a transport sent without
/// a task, then the task that carries the fetch on after the response (a redirect, a retry);
/// ``ImageDownloader/cancelAll()`` cancels whichever is current.
final class FetchCancellation: Sendable {
    private struct State {
        var isCancelled = false
        var action: (@Sendable () -> Void)?
        /// Counts the steps that set an action, so that a step which learns its action late (a
        /// request whose response came before its sender returned) cannot replace a later one's.
        var step = 0
    }
    private let state = ThreadLocked(State())

    /// Runs the current action, and every later one as soon as it is set.
    func cancel() {
        let action = state.withLock { state in
            state.isCancelled = true
            return state.action
        }
        action?()
    }

    /// Makes `action` what stops the fetch from now on; runs it at once when the fetch was
    /// cancelled already.
    func onCancel(_ action: @escaping @Sendable () -> Void) {
        set(action, ifStillAt: nil)
    }

    /// Begins a step whose action is known only once it has begun (``onCancel(_:ifStillAt:)``).
    func nextStep() -> Int {
        state.withLock { state in
            state.step += 1
            return state.step
        }
    }

    /// Makes `action` what stops the fetch, unless a step after `step` has set its own since;
    /// runs it at once when the fetch was cancelled already.
    func onCancel(_ action: @escaping @Sendable () -> Void, ifStillAt step: Int) {
        set(action, ifStillAt: step)
    }

    private func set(_ action: @escaping @Sendable () -> Void, ifStillAt step: Int?) {
        let runsNow = state.withLock { state in
            if let step, step != state.step { return false }
            state.step += 1
            state.action = action
            return state.isCancelled
        }
        if runsNow { action() }
    }
}
