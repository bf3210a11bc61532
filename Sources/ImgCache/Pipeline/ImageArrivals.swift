/// The images that pages opened in a session are waiting for, so that a request for one still
/// downloading (a web view's custom URL scheme asking for it) can wait for it and be answered
/// late, instead of failing at once: WebKit does not ask again.
///
/// Fed by the downloader's outcomes. A download that succeeded leaves nothing behind (the cache
/// has the image); one that failed is remembered, so that a request arriving after it is answered
/// with the failure instead of waiting for nothing.
final class ImageArrivals: Sendable {
    private struct State {
        /// URLs (without fragment) whose fetch is to come or under way, with how many fetches.
        var expected: [String: Int] = [:]
        /// The URL a local name stands for, for every image a page was rewritten to.
        var urlsByName: [String: String] = [:]
        var failures: [String: DownloadOutcome] = [:]
        var waiters: [String: [Int: CheckedContinuation<Arrival, Never>]] = [:]
        var nextWaiter = 0
    }

    /// What a wait ends with.
    enum Arrival: Sendable {
        /// The fetch ended; this is its outcome.
        case settled(DownloadOutcome)
        /// No fetch of the URL is expected or remembered: whatever the cache has is all there is.
        case nothingExpected
        /// The waiting task was cancelled.
        case cancelled
    }

    private let state = ThreadLocked(State())

    /// Records fetches about to start; `localNames` are the names pages now use for some of them.
    func expect(_ urls: [BrowserURL], localNames: [(localName: String, url: String)]) {
        state.withLock { state in
            for url in urls {
                let key = url.serializedWithoutFragment
                state.expected[key, default: 0] += 1
                state.failures[key] = nil
            }
            for (name, url) in localNames { state.urlsByName[name] = url }
        }
    }

    /// The URL a page's local name stands for, if a page of this session was rewritten to it.
    func url(forLocalName name: String) -> String? {
        state.withLock { $0.urlsByName[name] }
    }

    /// Takes a downloader's event: an outcome ends the waits for its URL.
    func record(_ event: ImageEvent) {
        let outcome: DownloadOutcome
        switch event {
        case .finished(let finished), .failed(let finished): outcome = finished
        case .started, .refresh: return
        }
        let waiting: [CheckedContinuation<Arrival, Never>] = state.withLock { state in
            guard let count = state.expected[outcome.url] else { return [] }
            state.expected[outcome.url] = count > 1 ? count - 1 : nil
            if outcome.status == .failed { state.failures[outcome.url] = outcome }
            return state.waiters.removeValue(forKey: outcome.url).map { Array($0.values) } ?? []
        }
        for waiter in waiting { waiter.resume(returning: .settled(outcome)) }
    }

    /// Waits for the outcome of the fetch of `url` (without fragment) when one is to come or
    /// under way; at once with a failure that ended it, or with `.nothingExpected`.
    func arrival(of url: String) async -> Arrival {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Arrival, Never>) in
                let now: Arrival? = state.withLock { state in
                    if Task.isCancelled { return .cancelled }
                    if state.expected[url] != nil {
                        state.waiters[url, default: [:]][id] = continuation
                        return nil
                    }
                    return state.failures[url].map(Arrival.settled) ?? .nothingExpected
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiter = state.withLock { state in state.waiters[url]?.removeValue(forKey: id) }
            waiter?.resume(returning: .cancelled)
        }
    }
}
