import ImgCacheURLs
import ImgCacheMarkup
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
        var machine = ExchangeStateMachine(url: url, policy: policy, acceptsNotModified: acceptsNotModified,
                                           deadline: ContinuousClock.now + policy.timeout)
        return await drive(&machine, from: machine.start(), headers: headers)
    }

    /// Drives `machine` from `action` to the exchange's end, sending each request with `headers`.
    /// `beforeRedirect` is called with the URL of each redirect found allowed, before its request:
    /// where the downloader moves the image's request slot to that URL's origin.
    func drive(_ machine: inout ExchangeStateMachine, from action: ExchangeStateMachine.Action, headers: [(name: String, value: String)],
               beforeRedirect: ((BrowserURL) async -> Void)? = nil) async -> Result<Success, Failure> {
        let clock = ContinuousClock()
        var action = action
        while true {
            switch action {
            case .send(let redirected):
                if redirected {
                    await beforeRedirect?(machine.url)
                    if Task.isCancelled {
                        action = machine.cancelled()
                        continue
                    }
                }
                let request = self.request(for: machine.url, headers: headers, deadline: machine.deadline)
                let result: Result<TransportResponse, any Error>
                do {
                    result = .success(try await send(request))
                } catch {
                    result = .failure(error)
                }
                action = next(after: result, in: &machine)
            case .retry(let delay):
                do {
                    try await Task.sleep(for: delay)
                    action = machine.retryDue(now: clock.now)
                } catch {
                    action = machine.cancelled()
                }
            case .waitForBudget:
                let hasRoom = await policy.budget?.waitForRoom(until: machine.deadline) ?? false
                action = machine.budgetWaitEnded(withRoom: hasRoom)
            case .succeed(let success):
                return .success(success)
            case .fail(let reason):
                return .failure(Failure(reason: DownloadFailure(reason), url: machine.url))
            }
        }
    }

    /// What `machine` does after its current request came to `result`; every response is
    /// observed first.
    func next(after result: Result<TransportResponse, any Error>, in machine: inout ExchangeStateMachine) -> ExchangeStateMachine.Action {
        let now = ContinuousClock.now
        switch result {
        case .success(let response):
            observe?(response, machine.url)
            return machine.received(response, now: now, jitter: ExchangeStateMachine.randomJitter())
        case .failure(let error as TransportError):
            return machine.failed(error, now: now, jitter: ExchangeStateMachine.randomJitter())
        case .failure(is CancellationError):
            return machine.cancelled()
        case .failure(let error):
            return .fail(.undeclaredTransportError(type: String(reflecting: type(of: error)), description: "\(error)"))
        }
    }

    /// Sends one request from a task. The deadline is kept here unless the transport keeps it
    /// itself: a server that drips one byte a second must not hold a run, whatever a transport
    /// does with bodies.
    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let transport = self.transport
        guard !transport.keepsDeadlines else { return try await transport.sendCheckingAddresses(request) }
        return try await withDeadline(request.deadline, keptBy: deadlines) { try await transport.sendCheckingAddresses(request) }
    }

    /// Sends one request with no task waiting for it, when the transport can (``ImageTransport/send(_:completion:)``)
    /// and keeps every promise of the request itself: its deadline, and the addresses it may
    /// connect to. Returns what cancels it; nil, with nothing sent, when it must go from a task.
    func sendWithoutTask(_ request: TransportRequest,
                         completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void) -> (@Sendable () -> Void)? {
        guard transport.keepsDeadlines, !transport.leavesAddressCheck(of: request) else { return nil }
        return transport.send(request, completion: completion)
    }

    /// The request of an attempt at `url`.
    func request(for url: BrowserURL, headers: [(name: String, value: String)], deadline: ContinuousClock.Instant) -> TransportRequest {
        var request = TransportRequest(url: url.serializedWithoutFragment, headers: headers, maxBytes: policy.maxBytes, deadline: deadline,
                                       privateNetworks: policy.privateNetworks)
        request.budget = policy.budget
        return request
    }

    /// `text` as it goes in a message: whole up to 200 characters, otherwise its start, so that a
    /// hostile server's megabyte-long `Location` cannot fill the output.
    static func excerpt(_ text: String) -> String {
        text.count <= 200 ? text : text.prefix(200) + "… (\(text.utf8.count) bytes)"
    }
}
