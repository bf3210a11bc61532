import Foundation

/// Downloads images into an `ImageCacheStore`, counting what is outstanding.
///
/// A URL asked for again while it is being fetched is fetched once (coalescing). A global and a
/// per-origin limit bound the requests in flight; the per-origin one follows the HTTP version the
/// origin answers with (a few connections' worth for HTTP/1.1, many streams for HTTP/2). Each image has one deadline for all its attempts
/// and redirects; connection failures and 5xx responses are retried with backoff. Nothing is
/// cached unless the status is 2xx and the bytes start like an image.
public actor ImageDownloader {
    private let transport: any ImageTransport
    /// Where images are stored.
    public nonisolated let store: ImageCacheStore
    /// The limits and rules in force.
    public nonisolated let policy: DownloadPolicy
    private let counter = OutstandingCounter()
    private let globalLimit: AsyncSemaphore
    private let originLimits: OriginLimits
    private var inFlight: [String: Task<DownloadOutcome, Never>] = [:]
    private let onEvent: (@Sendable (DownloadEvent) -> Void)?

    /// Creates a downloader.
    /// - Parameters:
    ///   - transport: performs the HTTP requests (`URLSessionTransport`, or the AsyncHTTPClient one).
    ///   - store: the cache the images go into.
    ///   - policy: limits, time-outs, retries, accepted formats.
    ///   - onEvent: called (from any thread) when a request starts and when an image is done.
    public init(transport: any ImageTransport, store: ImageCacheStore, policy: DownloadPolicy = DownloadPolicy(),
                onEvent: (@Sendable (DownloadEvent) -> Void)? = nil) {
        self.transport = transport
        self.store = store
        self.policy = policy
        self.globalLimit = AsyncSemaphore(value: policy.concurrency)
        self.originLimits = OriginLimits(http1Limit: policy.perHostConcurrency, multiplexedLimit: policy.perHostStreams)
        self.onEvent = onEvent
    }

    /// The number of images being fetched over the network right now (queued or in flight).
    /// Cache hits never count; a coalesced request counts once.
    public nonisolated var outstandingCount: Int { counter.value }

    /// Makes sure the image at `url` is in the cache: from the cache when fresh, revalidated when
    /// stale, downloaded when missing.
    ///
    /// A fetch asked for by a cancelled task is not started; one already running carries on
    /// (other callers may be waiting for the same URL) until ``cancelAll()``.
    public func fetch(_ url: WebURL) async -> DownloadOutcome {
        await fetch(url, knownLookup: nil)
    }

    /// ``fetch(_:)`` for a URL whose cache lookup was just done (by ``fetchAll(_:)``).
    private func fetch(_ url: WebURL, knownLookup: CacheLookup?) async -> DownloadOutcome {
        let key = url.serializedWithoutFragment
        if let running = inFlight[key] { return await running.value }
        if Task.isCancelled { return cancelledOutcome(for: url) }
        let task = Task { await self.load(url, knownLookup: knownLookup) }
        inFlight[key] = task
        let outcome = await task.value
        inFlight[key] = nil
        return outcome
    }

    /// Fetches every URL (each once), concurrently within the limits; outcomes in input order.
    public nonisolated func fetchAll(_ urls: [WebURL]) async -> [DownloadOutcome] {
        var outcomes = [DownloadOutcome?](repeating: nil, count: urls.count)
        // One pass over the cache first, in one hop off the cooperative pool: on a warm run every
        // image is answered here, without a task, an actor call or a second read of its metadata.
        let store = self.store
        let candidates = urls.indices.filter { policy.allows(urls[$0]) && store.naming.localName(for: urls[$0]) != nil }
        let lookups = await BlockingIO.run { store.lookUpForUse(candidates.map { urls[$0] }) }
        var known: [Int: CacheLookup] = [:]
        for (index, lookup) in zip(candidates, lookups) {
            guard case .fresh(let metadata) = lookup else {
                known[index] = lookup
                continue
            }
            outcomes[index] = finish(DownloadOutcome(
                url: urls[index].serializedWithoutFragment, localName: metadata.localName, status: .cached,
                byteCount: metadata.byteCount, contentType: metadata.contentType))
        }
        let remaining = urls.indices.filter { outcomes[$0] == nil }
        guard !remaining.isEmpty else { return outcomes.compactMap { $0 } }

        // A sliding window of tasks, not one task per URL: 2,000 suspended tasks would hold
        // megabytes of async frames while they wait for the semaphores.
        let window = max(1, min(policy.concurrency * 2, policy.concurrency + 64))
        return await withTaskGroup(of: (Int, DownloadOutcome).self) { group in
            var next = 0
            func startNext() {
                let index = remaining[next]
                let (url, lookup) = (urls[index], known[index])
                group.addTask { (index, await self.fetch(url, knownLookup: lookup)) }
                next += 1
            }
            while next < min(window, remaining.count) { startNext() }
            while let (index, outcome) = await group.next() {
                outcomes[index] = outcome
                if next < remaining.count, Task.isCancelled {
                    // The caller gave up: the rest are not started.
                    for index in remaining[next...] { outcomes[index] = cancelledOutcome(for: urls[index]) }
                    next = remaining.count
                } else if next < remaining.count {
                    startNext()
                }
            }
            return outcomes.compactMap { $0 }
        }
    }

    /// Cancels every download under way and returns once they have all ended, so that no write
    /// into the cache is still going on. Their outcomes are `failed` with the reason `cancelled`;
    /// nothing partial is left in the cache. Later fetches work as usual.
    public func cancelAll() async {
        let running = Array(inFlight.values)
        for task in running { task.cancel() }
        for task in running { _ = await task.value }
    }

    private nonisolated func cancelledOutcome(for url: WebURL) -> DownloadOutcome {
        DownloadOutcome(url: url.serializedWithoutFragment, localName: store.naming.localName(for: url) ?? "",
                        status: .failed, error: "cancelled")
    }

    /// How many requests the origin of `url` may have in flight now: ``DownloadPolicy/perHostStreams``
    /// once it has answered over HTTP/2, ``DownloadPolicy/perHostConcurrency`` until then.
    public nonisolated func currentLimit(forOriginOf url: WebURL) -> Int {
        originLimits.limit(for: OriginLimits.origin(of: url))
    }

    // MARK: - One image

    private nonisolated func load(_ url: WebURL, knownLookup: CacheLookup?) async -> DownloadOutcome {
        let urlString = url.serializedWithoutFragment
        guard let localName = store.naming.localName(for: url) else {
            return finish(DownloadOutcome(url: urlString, localName: "", status: .failed, error: "not an http(s) image URL"))
        }
        func outcome(_ status: DownloadStatus, _ metadata: CacheEntryMetadata? = nil, error: String? = nil) -> DownloadOutcome {
            DownloadOutcome(url: urlString, localName: localName, status: status, byteCount: metadata?.byteCount ?? 0,
                            contentType: metadata?.contentType, error: error)
        }
        guard policy.allows(url) else {
            return finish(outcome(.skipped, error: "host \(url.host ?? "") is not on the allow-list"))
        }
        let store = self.store
        let lookup: CacheLookup
        if let knownLookup {
            lookup = knownLookup
        } else {
            lookup = await BlockingIO.run { store.lookup(url) }
        }
        if case .fresh(let metadata) = lookup {
            await BlockingIO.run { store.markUsed(url) }
            return finish(outcome(.cached, metadata))
        }

        counter.increment()
        defer { counter.decrement() }
        onEvent?(.started(url: urlString, localName: localName))
        let hostLimit = originLimits.semaphore(for: OriginLimits.origin(of: url))
        await hostLimit.wait()
        defer { hostLimit.signal() }
        await globalLimit.wait()
        defer { globalLimit.signal() }

        let result = await request(url, stale: lookup.metadata)
        switch result {
        case .success(let response) where response.status == 304:
            do {
                try await BlockingIO.run { try store.markRevalidated(url, etag: response.header("ETag"), lastModified: response.header("Last-Modified")) }
                return finish(outcome(.revalidated, lookup.metadata))
            } catch {
                return finish(outcome(.failed, error: "could not update the cache: \(error)"))
            }
        case .success(let response):
            do {
                let metadata = try await BlockingIO.run {
                    try store.store(response.body, for: url, contentType: response.header("Content-Type"),
                                    etag: response.header("ETag"), lastModified: response.header("Last-Modified"))
                }
                return finish(outcome(.downloaded, metadata))
            } catch {
                return finish(outcome(.failed, error: "could not cache it: \(error)"))
            }
        case .failure(let reason):
            return finish(outcome(.failed, error: reason.message))
        }
    }

    private nonisolated func finish(_ outcome: DownloadOutcome) -> DownloadOutcome {
        onEvent?(.finished(outcome))
        return outcome
    }

    private struct Failure: Error {
        let message: String
    }

    /// GETs the image, following redirects and retrying within the deadline; succeeds with a
    /// 304 (when `stale` gave validators) or a 2xx whose bytes are an accepted image.
    private nonisolated func request(_ url: WebURL, stale: CacheEntryMetadata?) async -> Result<TransportResponse, Failure> {
        let clock = ContinuousClock()
        let deadline = clock.now + policy.timeout
        var current = url
        var redirects = 0
        var attempt = 0
        var headers: [(name: String, value: String)] = [("User-Agent", policy.userAgent)]
        if let etag = stale?.etag { headers.append(("If-None-Match", etag)) }
        if let lastModified = stale?.lastModified { headers.append(("If-Modified-Since", lastModified)) }

        while true {
            let failure: String
            do {
                let request = TransportRequest(url: current.serializedWithoutFragment, headers: headers,
                                               maxBytes: policy.maxBytes, deadline: deadline)
                let transport = self.transport
                let response = try await withDeadline(deadline) { try await transport.send(request) }
                originLimits.observe(response.httpVersion, from: OriginLimits.origin(of: current))
                switch response.status {
                case 301, 302, 303, 307, 308:
                    guard let location = response.header("Location") else {
                        return .failure(Failure(message: "HTTP \(response.status) without a Location"))
                    }
                    guard let next = WebURL(location, relativeTo: current), next.isHTTP else {
                        return .failure(Failure(message: "redirected to a URL that is not http(s): \(location)"))
                    }
                    redirects += 1
                    guard redirects <= policy.maxRedirects else {
                        return .failure(Failure(message: "more than \(policy.maxRedirects) redirects"))
                    }
                    current = next
                    continue
                case 304 where stale != nil:
                    return .success(response)
                case 200..<300:
                    guard let format = ImageFormat.detect(response.body), policy.acceptedFormats.contains(format) else {
                        let type = response.header("Content-Type") ?? "no content type"
                        return .failure(Failure(message: "not an image (\(type), \(response.body.count) bytes)"))
                    }
                    return .success(response)
                case 500..<600:
                    failure = "HTTP \(response.status)"
                default:
                    return .failure(Failure(message: "HTTP \(response.status)"))
                }
            } catch let error as TransportError {
                if error == .timedOut || clock.now >= deadline {
                    return .failure(Failure(message: "timed out after \(policy.timeout.formattedSeconds)"))
                }
                guard error.isTransient else { return .failure(Failure(message: error.description)) }
                failure = error.description
            } catch is CancellationError {
                return .failure(Failure(message: "cancelled"))
            } catch {
                return .failure(Failure(message: "\(error)"))
            }

            // A retryable failure: wait (exponential backoff with jitter) unless that would pass the deadline.
            guard attempt < policy.retries else {
                return .failure(Failure(message: attempt == 0 ? failure : "\(failure) (after \(attempt + 1) attempts)"))
            }
            let delay = policy.retryDelay * (1 << attempt) * Double.random(in: 0.75...1.25)
            guard clock.now + delay < deadline else {
                return .failure(Failure(message: "\(failure) (no time left to retry)"))
            }
            attempt += 1
            do {
                try await Task.sleep(for: delay)
            } catch {
                return .failure(Failure(message: "cancelled"))
            }
        }
    }
}

extension Duration {
    /// "2.5 s"
    var formattedSeconds: String {
        let seconds = Double(components.seconds) + Double(components.attoseconds) / 1e18
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(format: "%.1f s", seconds)
    }
}
