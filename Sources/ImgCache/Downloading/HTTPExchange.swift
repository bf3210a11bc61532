/// One GET as imgcache makes it, for an image or a page: redirects followed by one policy (http(s)
/// only, a limit), one deadline for every attempt and redirect, retries with backoff after a
/// connection failure or a 5xx, and, for images, a check that the body is an accepted format.
struct HTTPExchange: Sendable {
    /// What the exchange allows.
    struct Policy: Sendable {
        var timeout: Duration
        var retries: Int
        var retryDelay: Duration
        var maxRedirects: Int
        var maxBytes: Int
        var privateNetworks: PrivateNetworkAccess
        /// The formats a 2xx body must be in (by its first bytes); nil takes any body (a page).
        var acceptedFormats: Set<ImageFormat>?
        /// The hosts a redirect may lead to (lowercased); nil for any. The first URL's host is the
        /// caller's to check: an allow-list that a redirect could leave would allow every host.
        var allowedHosts: Set<String>? = nil
        /// What the bodies' bytes are counted against, when the caller keeps a budget.
        var budget: ByteBudget? = nil

        /// An image's: the download policy as it is.
        static func image(_ policy: DownloadPolicy) -> Policy {
            Policy(timeout: policy.timeout, retries: policy.retries, retryDelay: policy.retryDelay, maxRedirects: policy.maxRedirects,
                   maxBytes: policy.maxBytes, privateNetworks: policy.privateNetworks, acceptedFormats: policy.acceptedFormats,
                   allowedHosts: policy.allowedHosts)
        }

        /// Whether a redirect may lead to `url`'s host.
        func allowsRedirect(to url: BrowserURL) -> Bool {
            guard let allowedHosts else { return true }
            return url.host.map { allowedHosts.contains($0.lowercased()) } ?? false
        }
    }

    /// A response the exchange ends with.
    struct Success: Sendable {
        var response: TransportResponse
        /// Where it came from, after redirects.
        var url: BrowserURL
        /// The body's format, when the policy asked for one.
        var format: ImageFormat?
    }

    /// Why the exchange failed, and at which URL (after the redirects followed until then).
    struct Failure: Error, Sendable {
        var reason: DownloadFailure
        var url: BrowserURL
    }

    let transport: any ImageTransport
    let policy: Policy
    /// Told every response (for its HTTP version and stream limit), with the URL that gave it.
    var observe: (@Sendable (TransportResponse, BrowserURL) -> Void)? = nil
    /// Keeps the deadlines of the exchange's requests, for a transport that does not keep them itself.
    var deadlines = DeadlineWatchdog()

    /// GETs `url` with `headers`. Succeeds with a 2xx (of an accepted format, when the policy
    /// names formats) or, when `acceptsNotModified`, a 304.
    func get(_ url: BrowserURL, headers: [(name: String, value: String)], acceptsNotModified: Bool = false) async -> Result<Success, Failure> {
        await get(url, headers: headers, acceptsNotModified: acceptsNotModified, deadline: ContinuousClock.now + policy.timeout)
    }

    /// The same, for an exchange whose first request was sent already with `deadline` (see
    /// ``request(for:headers:deadline:)``): `firstAttempt` gives what it came to. `beforeRedirect`
    /// is called with the URL of each redirect found allowed, before its request: where the
    /// downloader moves the image's request slot to that URL's origin.
    func get(_ url: BrowserURL, headers: [(name: String, value: String)], acceptsNotModified: Bool, deadline: ContinuousClock.Instant,
             firstAttempt: (@Sendable () async throws -> TransportResponse)? = nil,
             beforeRedirect: ((BrowserURL) async -> Void)? = nil) async -> Result<Success, Failure> {
        let clock = ContinuousClock()
        var firstAttempt = firstAttempt
        var current = url
        var redirects = 0
        var attempt = 0
        func fail(_ reason: DownloadFailure) -> Result<Success, Failure> { .failure(Failure(reason: reason, url: current)) }

        while true {
            let failure: DownloadFailure
            do {
                let response: TransportResponse
                if let sent = firstAttempt {
                    firstAttempt = nil
                    response = try await sent()
                } else {
                    let request = self.request(for: current, headers: headers, deadline: deadline)
                    let transport = self.transport
                    // The deadline is kept here unless the transport keeps it itself: a server that
                    // drips one byte a second must not hold a run, whatever a transport does with bodies.
                    response = transport.keepsDeadlines
                        ? try await transport.sendCheckingAddresses(request)
                        : try await withDeadline(deadline, keptBy: deadlines) { try await transport.sendCheckingAddresses(request) }
                }
                observe?(response, current)
                switch response.status {
                case 301, 302, 303, 307, 308:
                    guard let location = response.header("Location") else {
                        return fail(.redirectWithoutLocation(status: response.status))
                    }
                    guard let next = BrowserURL(location, relativeTo: current) else {
                        return fail(.redirectToInvalidURL(status: response.status, location: Self.excerpt(location)))
                    }
                    // Only http(s) is followed: a page's image must never read `file:` or reach `ftp:`.
                    guard next.isHTTP else {
                        return fail(.redirectNotHTTP(status: response.status, location: Self.excerpt(next.serialized)))
                    }
                    guard policy.allowsRedirect(to: next) else {
                        return fail(.redirectToHostNotAllowed(status: response.status, host: next.host ?? ""))
                    }
                    redirects += 1
                    guard redirects <= policy.maxRedirects else {
                        return fail(.tooManyRedirects(limit: policy.maxRedirects))
                    }
                    current = next
                    await beforeRedirect?(next)
                    if Task.isCancelled { return fail(.cancelled) }
                    continue
                case 304 where acceptsNotModified:
                    return .success(Success(response: response, url: current))
                case 200..<300:
                    guard let success = success(response, from: current) else {
                        return fail(.notAnImage(contentType: response.header("Content-Type"), byteCount: response.body.count))
                    }
                    return .success(success)
                case 500..<600:
                    failure = .httpStatus(response.status)
                default:
                    return fail(.httpStatus(response.status))
                }
            } catch let error as TransportError {
                if case .timedOut(let phase) = error {
                    return fail(.timedOut(after: policy.timeout, phase: phase))
                }
                // Not the server's doing: asked again once the images in flight hold less, and not
                // counted as an attempt.
                if case .overBudget = error, let budget = policy.budget {
                    guard await budget.waitForRoom(until: deadline) else { return fail(.transport(error)) }
                    continue
                }
                guard error.isTransient else { return fail(.transport(error)) }
                failure = .transport(error)
                // What the transport said is the reason, even when it is heard after the deadline
                // (a process busy elsewhere can resume a task late): a deadline that ended the
                // exchange is reported by the transport as a time-out, above.
                if clock.now >= deadline {
                    return fail(attempt == 0 ? failure : .retriesExhausted(last: failure, attempts: attempt + 1))
                }
            } catch is CancellationError {
                return fail(.cancelled)
            } catch {
                return fail(.other("\(error)"))
            }

            // A retryable failure: wait (exponential backoff with jitter) unless that would pass the deadline.
            guard attempt < policy.retries else {
                return fail(attempt == 0 ? failure : .retriesExhausted(last: failure, attempts: attempt + 1))
            }
            let delay = policy.retryDelay * (1 << attempt) * Double.random(in: 0.75...1.25)
            guard clock.now + delay < deadline else {
                return fail(.noTimeToRetry(last: failure))
            }
            attempt += 1
            do {
                try await Task.sleep(for: delay)
            } catch {
                return fail(.cancelled)
            }
            // Woken past the deadline (the process was busy): the last failure is the reason.
            guard clock.now < deadline else { return fail(.noTimeToRetry(last: failure)) }
        }
    }

    /// The request of an attempt at `url`.
    func request(for url: BrowserURL, headers: [(name: String, value: String)], deadline: ContinuousClock.Instant) -> TransportRequest {
        var request = TransportRequest(url: url.serializedWithoutFragment, headers: headers, maxBytes: policy.maxBytes, deadline: deadline,
                                       privateNetworks: policy.privateNetworks)
        request.budget = policy.budget
        return request
    }

    /// The success a 2xx `response` from `url` ends the exchange with: nil when its body is not
    /// in a format the policy accepts.
    func success(_ response: TransportResponse, from url: BrowserURL) -> Success? {
        guard let accepted = policy.acceptedFormats else { return Success(response: response, url: url) }
        guard let format = ImageFormat.detect(response.body), accepted.contains(format) else { return nil }
        return Success(response: response, url: url, format: format)
    }

    /// The success the first response of an exchange ends it with at once, with nothing more to
    /// send or wait for: a 2xx in an accepted format, whose HTTP version is then observed as `get`
    /// observes it. Nil for any other response (which `get` goes on from).
    func immediateSuccess(_ response: TransportResponse, from url: BrowserURL) -> Success? {
        guard (200..<300).contains(response.status), let success = success(response, from: url) else { return nil }
        observe?(response, url)
        return success
    }

    /// `text` as it goes in a message: whole up to 200 characters, otherwise its start, so that a
    /// hostile server's megabyte-long `Location` cannot fill the output.
    static func excerpt(_ text: String) -> String {
        text.count <= 200 ? text : text.prefix(200) + "… (\(text.utf8.count) bytes)"
    }
}
