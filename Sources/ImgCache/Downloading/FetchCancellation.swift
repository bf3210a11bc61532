/// What stops one image's fetch: the request a transport sent without a task, then the task that
/// carries the fetch on after the response (a redirect, a retry); ``ImageDownloader/cancelAll()``
/// cancels whichever is current.
package final class FetchCancellation: Sendable {
    private let state = ThreadLocked<(isCancelled: Bool, action: (@Sendable () -> Void)?)>((false, nil))

    init() {}

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
    package func onCancel(_ action: @escaping @Sendable () -> Void) {
        let isCancelled = state.withLock { state in
            state.action = action
            return state.isCancelled
        }
        if isCancelled { action() }
    }
}
