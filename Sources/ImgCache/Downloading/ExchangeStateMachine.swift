import ImgCacheURLs
import ImgCacheMarkup
/// What one GET as imgcache makes it goes through, from its first request to its end: redirects,
/// retries with backoff, waits for room in the byte budget, a `304` for a stale copy, and the
/// check that a 2xx body is in an accepted format.
///
/// Pure: it sends nothing, sleeps on nothing and reads no clock. Whoever drives it (``HTTPExchange``
/// in a task, or the downloader from a transport's completion) performs each ``Action`` and tells
/// it what came of it, so that every transport and both ways of driving go through the same rules,
/// and the rules are tested without a server (as AsyncHTTPClient's and SwiftNIO's state machines are).
struct ExchangeStateMachine: Sendable {
    /// What the driver is to do next.
    enum Action: Sendable {
        /// Send a request for ``url``. `redirected`: it is a redirect's, whose request slot the
        /// downloader moves to that URL's origin first.
        case send(redirected: Bool)
        /// Wait `delay`, then call ``retryDue(now:)``.
        case retry(after: Duration)
        /// Wait for room in the byte budget until the deadline, then call ``budgetWaitEnded(withRoom:)``.
        case waitForBudget
        /// The exchange is over with this response.
        case succeed(HTTPExchange.Success)
        /// The exchange failed at ``url``.
        case fail(DownloadFailure.Kind)
    }

    let policy: HTTPExchange.Policy
    /// Whether a `304` ends the exchange (a stale copy is being revalidated).
    let acceptsNotModified: Bool
    /// When every attempt and redirect must be over.
    let deadline: ContinuousClock.Instant
    /// The URL of the current request (the first one's, then each redirect's).
    private(set) var url: BrowserURL
    private var redirects = 0
    /// Retries made so far (redirects are not attempts).
    private var attempt = 0
    /// What the last retryable attempt met, while a retry or a budget wait is pending.
    private var lastFailure: DownloadFailure.Kind?

    init(url: BrowserURL, policy: HTTPExchange.Policy, acceptsNotModified: Bool, deadline: ContinuousClock.Instant) {
        self.url = url
        self.policy = policy
        self.acceptsNotModified = acceptsNotModified
        self.deadline = deadline
    }

    /// The first step: send the first request.
    func start() -> Action { .send(redirected: false) }

    /// A response came for the current request.
    mutating func received(_ response: TransportResponse, now: ContinuousClock.Instant, jitter: Double = 1) -> Action {
        switch response.status {
        case 301, 302, 303, 307, 308:
            guard let location = response.header("Location") else {
                return .fail(.redirectWithoutLocation(status: response.status))
            }
            guard let next = BrowserURL(location, relativeTo: url) else {
                return .fail(.redirectToInvalidURL(status: response.status, location: HTTPExchange.excerpt(location)))
            }
            // Only http(s) is followed: a page's image must never read `file:` or reach `ftp:`.
            guard next.isHTTP else {
                return .fail(.redirectNotHTTP(status: response.status, location: HTTPExchange.excerpt(next.serialized)))
            }
            guard policy.allowsRedirect(to: next) else {
                return .fail(.redirectToHostNotAllowed(status: response.status, host: next.host ?? ""))
            }
            redirects += 1
            guard redirects <= policy.maxRedirects else {
                return .fail(.tooManyRedirects(limit: policy.maxRedirects))
            }
            url = next
            return .send(redirected: true)
        case 304 where acceptsNotModified:
            return .succeed(HTTPExchange.Success(response: response, url: url))
        case 200..<300:
            guard let success = Self.success(response, from: url, accepting: policy.acceptedFormats) else {
                return .fail(.notAnImage(contentType: response.header("Content-Type"), byteCount: response.body.count))
            }
            return .succeed(success)
        case 500..<600:
            return retryOrFail(after: .httpStatus(response.status), now: now, jitter: jitter)
        default:
            return .fail(.httpStatus(response.status))
        }
    }

    /// The current request failed with `error`.
    mutating func failed(_ error: TransportError, now: ContinuousClock.Instant, jitter: Double = 1) -> Action {
        if case .timedOut(let phase) = error {
            return .fail(.timedOut(after: policy.timeout, phase: phase))
        }
        // Not the server's doing: asked again once the images in flight hold less, and not
        // counted as an attempt.
        if case .overBudget = error, policy.budget != nil {
            lastFailure = .transport(error)
            return .waitForBudget
        }
        guard error.isTransient else { return .fail(.transport(error)) }
        let failure = DownloadFailure.Kind.transport(error)
        // What the transport said is the reason, even when it is heard after the deadline (a
        // process busy elsewhere can resume a task late): a deadline that ended the exchange is
        // reported by the transport as a time-out, above.
        guard now < deadline else { return .fail(exhausted(failure)) }
        return retryOrFail(after: failure, now: now, jitter: jitter)
    }

    /// The wait that ``Action/waitForBudget`` asked for is over.
    mutating func budgetWaitEnded(withRoom: Bool) -> Action {
        let failure = lastFailure ?? .cancelled
        lastFailure = nil
        return withRoom ? .send(redirected: false) : .fail(failure)
    }

    /// The delay that ``Action/retry(after:)`` asked for is over.
    mutating func retryDue(now: ContinuousClock.Instant) -> Action {
        let failure = lastFailure ?? .cancelled
        lastFailure = nil
        // Woken past the deadline (the process was busy): the last failure is the reason.
        guard now < deadline else { return .fail(.noTimeToRetry(last: failure)) }
        return .send(redirected: false)
    }

    /// The caller was cancelled, or the transport said so.
    func cancelled() -> Action { .fail(.cancelled) }

    /// A retryable failure: wait (exponential backoff, times `jitter`) unless no attempts are left
    /// or the wait would pass the deadline.
    private mutating func retryOrFail(after failure: DownloadFailure.Kind, now: ContinuousClock.Instant, jitter: Double) -> Action {
        guard attempt < policy.retries else { return .fail(exhausted(failure)) }
        let delay = policy.retryDelay * (1 << attempt) * jitter
        guard now + delay < deadline else { return .fail(.noTimeToRetry(last: failure)) }
        attempt += 1
        lastFailure = failure
        return .retry(after: delay)
    }

    /// `failure` as the exchange's reason once no more attempts are made.
    private func exhausted(_ failure: DownloadFailure.Kind) -> DownloadFailure.Kind {
        attempt == 0 ? failure : .retriesExhausted(last: failure, attempts: attempt + 1)
    }

    /// A random backoff factor, so that images failing together do not all come back together.
    static func randomJitter() -> Double { Double.random(in: 0.75...1.25) }

    /// The success a 2xx `response` from `url` ends an exchange with: nil when its body is not in
    /// a format of `accepted` (nil accepts any body: a page's).
    static func success(_ response: TransportResponse, from url: BrowserURL, accepting accepted: Set<ImageFormat>?) -> HTTPExchange.Success? {
        guard let accepted else { return HTTPExchange.Success(response: response, url: url) }
        guard let format = ImageFormat.detect(response.body), accepted.contains(format) else { return nil }
        return HTTPExchange.Success(response: response, url: url, format: format)
    }
}
