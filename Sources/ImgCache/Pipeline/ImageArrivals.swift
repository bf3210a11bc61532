import ImgCacheSupport
import ImgCacheURLs
/// The images that pages opened in a session are waiting for, so that a request for one still
/// downloading (a web view's custom URL scheme asking for it) can wait for it and be answered
/// late, instead of failing at once: WebKit does not ask again.
///
/// A wait ends with the first outcome the downloader announces for its URL, and at the latest when
/// every page that expects the URL has its downloads back: a page's `fetchAll` answers every URL
/// it was given, also those that shared another page's download, were refused or were cancelled,
/// which send no event of their own. So no wait outlives the downloads it waits for.
///
/// Outcomes are kept while a page still expects their URL (a request that arrives just after the
/// event is answered at once); failures are kept after that too, so that a request arriving after
/// one is answered with the failure instead of waiting for nothing.
final class ImageArrivals: Sendable {
    private struct State {
        /// URLs (without fragment) with how many pages are downloading them now.
        var expected: [String: Int] = [:]
        /// The URL (without fragment) a local name stands for, for every image a page was rewritten to.
        var urlsByName: [String: String] = [:]
        /// The outcome of each URL's latest fetch: while a page expects it, and failures after that.
        var outcomes: [String: DownloadOutcome] = [:]
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

    /// Records a page's fetches about to start; `localNames` are the names the page now uses for
    /// some of them. Returns the keys to hand to ``pageFinished(_:outcomes:)`` once its
    /// downloads are back.
    func expect(_ urls: [BrowserURL], localNames: [(localName: String, url: BrowserURL)]) -> Set<String> {
        let keys = Set(urls.map(\.serializedWithoutFragment))
        state.withLock { state in
            for key in keys {
                state.expected[key, default: 0] += 1
                state.outcomes[key] = nil
            }
            for (name, url) in localNames { state.urlsByName[name] = url.serializedWithoutFragment }
        }
        return keys
    }

    /// The URL (without fragment) a page's local name stands for, if a page of this session was
    /// rewritten to it.
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
            guard state.expected[outcome.url] != nil else { return [] }
            state.outcomes[outcome.url] = outcome
            return state.waiters.removeValue(forKey: outcome.url).map { Array($0.values) } ?? []
        }
        for waiter in waiting { waiter.resume(returning: .settled(outcome)) }
    }

    /// A page's downloads are back: `keys` from ``expect(_:localNames:)``, `outcomes` what its
    /// `fetchAll` answered. Ends the waits for the URLs no other page is still downloading.
    func pageFinished(_ keys: Set<String>, outcomes: [DownloadOutcome]) {
        let answered = Dictionary(outcomes.map { ($0.url, $0) }, uniquingKeysWith: { first, _ in first })
        var woken: [(CheckedContinuation<Arrival, Never>, Arrival)] = []
        state.withLock { state in
            for key in keys {
                if state.outcomes[key] == nil, let outcome = answered[key] { state.outcomes[key] = outcome }
                guard let count = state.expected[key] else { continue }
                if count > 1 {
                    state.expected[key] = count - 1
                    continue
                }
                state.expected[key] = nil
                let outcome = state.outcomes[key]
                if outcome?.status != .failed { state.outcomes[key] = nil }
                let arrival = outcome.map(Arrival.settled) ?? .nothingExpected
                woken += (state.waiters.removeValue(forKey: key) ?? [:]).values.map { ($0, arrival) }
            }
        }
        for (waiter, arrival) in woken { waiter.resume(returning: arrival) }
    }

    /// Waits for the outcome of the fetch of `url` (without fragment) when one is to come or
    /// under way; at once with an outcome already known, or with `.nothingExpected`.
    func arrival(of url: String) async -> Arrival {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Arrival, Never>) in
                let now: Arrival? = state.withLock { state in
                    if Task.isCancelled { return .cancelled }
                    if let outcome = state.outcomes[url] { return .settled(outcome) }
                    guard state.expected[url] != nil else { return .nothingExpected }
                    state.waiters[url, default: [:]][id] = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiter = state.withLock { state in state.waiters[url]?.removeValue(forKey: id) }
            waiter?.resume(returning: .cancelled)
        }
    }
}
