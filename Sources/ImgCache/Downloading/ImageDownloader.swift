import Foundation
import ImgCacheSupport
import ImgCacheURLs
import ImgCacheMarkup
import ImgCacheStore

/// Downloads images into an `ImageCacheStore`, counting what is outstanding.
///
/// A URL asked for again while it is being fetched is fetched once (coalescing). A global and a
/// per-origin limit bound the requests in flight; the per-origin one follows the HTTP version the
/// origin answers with (a few connections' worth for HTTP/1.1, many streams for HTTP/2). Each
/// image has one deadline for all its attempts and redirects; connection failures and 5xx
/// responses are retried with backoff. Nothing is cached unless the status is 2xx and the bytes
/// start like an image. Images are written to the cache in batches (``CacheWriteQueue``).
///
/// A class with its few shared pieces under locks rather than an actor: a fetch then never hops to
/// an actor's executor and back (two hops an image fewer).
final class ImageDownloader: Sendable {
    private let exchange: HTTPExchange
    /// Where images are stored.
    let store: ImageCacheStore
    /// The limits and rules in force.
    let policy: DownloadPolicy
    private let counter: OutstandingCounter
    /// What tells an exchange broken by the process being suspended from one that failed.
    private let suspensions: SuspensionWatch
    private let writer: CacheWriteQueue
    /// Where its cache looks and writes run.
    private let fileWork: FileWork
    private let globalLimit: AsyncSemaphore
    private let originLimits: OriginLimits
    /// The fetches under way, by URL: a second caller waits for the first one's outcome.
    private let fetches = ThreadLocked(Fetches())

    /// One URL's fetch under way.
    private struct Flight {
        /// What stops its network part (a task, or a request sent without one): what
        /// ``cancelAll()`` cancels. It ends when the image is handed to the cache writer; the
        /// fetch ends when the writer is done with it.
        let cancellation: FetchCancellation
        /// Everybody waiting for its outcome.
        var waiters: [@Sendable (DownloadOutcome) -> Void]
    }

    /// What ``fetchAll(_:)`` calls running side by side need to know of each other's fetches.
    private struct Fetches {
        /// The fetches under way, by URL.
        var inFlight: [String: Flight] = [:]
        /// The ``fetchAll(_:)`` calls under way.
        var activeCalls = 0
        /// URLs whose fetch ended while calls were under way: a call that looked them up in the
        /// cache before then must look again rather than fetch them a second time. Emptied when
        /// no call is under way, so it holds at most one burst's URLs.
        var settled: Set<String> = []
    }

    private let onEvent: (@Sendable (ImageEvent) -> Void)?
    /// Exactly the formats the policy accepts.
    private let acceptHeader: String

    /// Creates a downloader.
    /// - Parameters:
    ///   - transport: performs the HTTP requests (`URLSessionTransport` in an app; the command line's libcurl or AsyncHTTPClient one).
    ///   - store: the cache the images go into.
    ///   - fileWork: where its looks in the cache and its writes run (the session's).
    ///   - policy: limits, time-outs, retries, accepted formats.
    ///   - onEvent: called (from any thread) when a request starts (`started`) and when an image is
    ///     done (`finished`, or `failed`); never `refresh`. Pass a ``RefreshNotifier``'s `record`.
    ///   - clock: what a suspension of the process is measured on (``SuspensionWatch``); a manual
    ///     clock in tests.
    init(transport: any ImageTransport, store: ImageCacheStore, policy: DownloadPolicy = DownloadPolicy(),
         fileWork: FileWork = FileWork(placement: .default), onEvent: (@Sendable (ImageEvent) -> Void)? = nil, clock: some Clock<Duration> = ContinuousClock()) {
        self.store = store
        self.policy = policy
        let counter = OutstandingCounter()
        self.counter = counter
        self.suspensions = SuspensionWatch(clock: ElapsedTimeClock(clock), isBusy: { counter.value > 0 })
        self.globalLimit = AsyncSemaphore(value: policy.concurrency)
        self.fileWork = fileWork
        self.writer = CacheWriteQueue(store: store, fileWork: fileWork)
        let originLimits = OriginLimits(http1Limit: policy.perHostConcurrency, multiplexedLimit: policy.perHostStreams)
        self.originLimits = originLimits
        var exchangePolicy = HTTPExchange.Policy.image(policy)
        exchangePolicy.budget = ByteBudget(limit: policy.maxBytesInFlight)
        self.exchange = HTTPExchange(transport: transport, policy: exchangePolicy, observe: { response, url in
            originLimits.observe(response.httpVersion, streamLimit: response.streamLimit, from: Origin(url))
        })
        self.onEvent = onEvent
        self.acceptHeader = ImageFormat.acceptHeader(for: policy.acceptedFormats)
    }

    /// What the bodies of the images in flight are counted against (``DownloadPolicy/maxBytesInFlight``).
    var bodyBudget: ByteBudget? { exchange.policy.budget }

    /// The outstanding count: images that need the network and are not done yet, queued or in
    /// flight. Cache hits never count; a coalesced request counts once. The refresh comes once
    /// this has been zero for the debounce (``RefreshNotifier``).
    var outstandingCount: Int { counter.value }

    /// Makes sure the image at `url` is in the cache: from the cache when fresh, revalidated when
    /// stale, downloaded when missing.
    ///
    /// A fetch asked for by a cancelled task is not started; one already running carries on
    /// (other callers may be waiting for the same URL) until ``cancelAll()``.
    func fetch(_ url: BrowserURL) async -> DownloadOutcome {
        let isCancelled = Task.isCancelled
        return await withCheckedContinuation { continuation in
            start(FetchStart(image: ImageToFetch(url)), isCancelled: isCancelled) { continuation.resume(returning: $0) }
        }
    }

    /// What a fetch starts from.
    private struct FetchStart: Sendable {
        let image: ImageToFetch
        /// The cache lookup of its URL, when ``fetchAll(_:)`` just did it.
        var lookup: CacheLookup? = nil
        /// The semaphore of its URL's origin, when the caller has it at hand.
        var hostLimit: AsyncSemaphore? = nil
        /// The outstanding count already includes it (``fetchAll(_:)`` counts its queue up front):
        /// the unit is then handed over to the fetch, or given back.
        var preCounted = false
        /// Set when the caller that started the fetch is cancelled: a fetch still waiting for a
        /// request slot then ends as cancelled instead of sending its request.
        var callerGaveUp: CancellationFlag? = nil
    }

    /// Starts fetching an image, or joins the fetch of its URL under way, and calls `then` (on any
    /// thread) with the outcome; starts nothing when `isCancelled` (the caller is).
    private func start(_ fetch: FetchStart, isCancelled: Bool, then done: @escaping @Sendable (DownloadOutcome) -> Void) {
        let key = fetch.image.url.serializedWithoutFragment
        enum Start {
            case started(FetchCancellation, lookup: CacheLookup?)
            /// The URL is being fetched already: its outcome is this fetch's.
            case joined
            /// The caller is cancelled: nothing was started.
            case refused
        }
        let start: Start = fetches.withLock { fetches in
            if fetches.inFlight[key]?.waiters.append(done) != nil { return .joined }
            if isCancelled { return .refused }
            // The fetch leaves the table when it ends, after it entered it (both under the lock).
            let cancellation = FetchCancellation()
            fetches.inFlight[key] = Flight(cancellation: cancellation, waiters: [done])
            // Another call fetched it since this one's lookup: the cache has it now (or it failed
            // there, and is tried again).
            return .started(cancellation, lookup: fetches.settled.contains(key) ? nil : fetch.lookup)
        }
        switch start {
        case .started(let cancellation, let lookup):
            var fetch = fetch
            fetch.lookup = lookup
            begin(fetch, cancellation: cancellation) { outcome in self.settle(key, with: outcome) }
        case .joined:
            // A coalesced request counts once: the running fetch's unit already stands for this URL.
            if fetch.preCounted { counter.decrement() }
        case .refused:
            if fetch.preCounted { counter.decrement() }
            done(cancelledOutcome(for: fetch.image.url))
        }
    }

    /// Fetches every URL (each once), concurrently within the limits; outcomes in input order.
    ///
    /// Every image that must come from the network counts as outstanding from the start. Requests
    /// are started per origin as its limit allows (raised as soon as it answers over HTTP/2), so
    /// the tasks alive are the requests in flight, not the queue: a page of 2,000 images from one
    /// HTTP/1.1 host holds 8 tasks, not 2,000 suspended ones (none, over a transport that sends
    /// without a task: ``ImageTransport/send(_:completion:)``), and a slow host never holds up
    /// another's images.
    func fetchAll(_ urls: [BrowserURL]) async -> [DownloadOutcome] {
        await fetchAll(urls.map { ImageToFetch($0) })
    }

    /// The same, for images whose names the caller may already have made.
    func fetchAll(_ images: [ImageToFetch]) async -> [DownloadOutcome] {
        fetches.withLock { $0.activeCalls += 1 }
        defer {
            fetches.withLock { fetches in
                fetches.activeCalls -= 1
                if fetches.activeCalls == 0 { fetches.settled.removeAll() }
            }
        }
        var outcomes = [DownloadOutcome?](repeating: nil, count: images.count)
        let store = self.store
        let candidates = images.indices.filter { policy.allows(images[$0].url) && Self.mayBeImage(images[$0].url, naming: store.naming) }
        let keys = candidates.map { images[$0].url.serializedWithoutFragment }
        // Images the store found or stored a moment ago are answered from memory (a site's pages
        // share most of their images); the rest in one pass over the cache: on a warm run every
        // image is answered here, without a task, an actor call or a second read of its metadata.
        var answers = store.recentAnswers(for: keys)
        var known = [CacheLookup?](repeating: nil, count: images.count)
        let toLookUp = candidates.indices.filter { answers[$0] == nil }
        if !toLookUp.isEmpty {
            let now = Date()
            let lookups = await fileWork.runCacheLook { store.lookUpForUse(toLookUp.map { images[candidates[$0]] }, now: now) }
            for (position, lookup) in zip(toLookUp, lookups) {
                if case .fresh(let metadata) = lookup {
                    answers[position] = RecentAnswers.Answer(metadata, at: now)
                } else {
                    known[candidates[position]] = lookup
                }
            }
        }
        for (position, index) in candidates.enumerated() {
            guard let answer = answers[position] else { continue }
            outcomes[index] = finish(DownloadOutcome(url: keys[position], localName: answer.localName, status: .cached,
                                                     byteCount: answer.byteCount, contentType: answer.contentType))
        }
        // The same URL twice on a page is fetched once; its outcome is given to both. Each URL is
        // hashed once: its first position goes in as the default and comes back if it was there.
        var firstPosition: [String: Int] = Dictionary(minimumCapacity: images.count)
        var repeats: [Int: [Int]] = [:]
        var remaining: [Int] = []
        for index in images.indices where outcomes[index] == nil {
            let first = Self.value(&firstPosition[images[index].url.serializedWithoutFragment, default: index])
            if first == index {
                remaining.append(index)
            } else {
                repeats[first, default: []].append(index)
            }
        }
        guard !remaining.isEmpty else { return outcomes.compactMap { $0 } }
        counter.add(remaining.count { known[$0] != nil })

        var queue = OriginQueue(remaining.map { (index: $0, origin: Origin(images[$0].url)) })
        // By the queue's origin numbers.
        let hostLimits = queue.origins.map { originLimits.semaphore(for: $0) }
        let gaveUp = CancellationFlag()
        // The fetches run in tasks of their own (see `start`), which leave their outcomes here:
        // no task of this call's per image, and one wake-up per burst of images that end together.
        let ended = OutcomeMailbox<(index: Int, origin: Int, outcome: DownloadOutcome)>()
        var running = 0
        func startWhatFits() {
            // A little over the limits: an image being written to the cache holds a place here
            // but no longer a request slot (the semaphores in `load` keep the network limits
            // exactly), so the next request goes out while it is written.
            let room = policy.concurrency + storeHeadroom(policy.concurrency) - running
            let limit = { (origin: Int) in
                let network = hostLimits[origin].currentLimit
                return network + self.storeHeadroom(network)
            }
            let isCancelled = Task.isCancelled
            for (index, origin) in queue.next(room: room, limit: limit) {
                let lookup = known[index]
                running += 1
                let fetch = FetchStart(image: images[index], lookup: lookup, hostLimit: hostLimits[origin], preCounted: lookup != nil,
                                       callerGaveUp: gaveUp)
                start(fetch, isCancelled: isCancelled) { ended.deliver((index, origin, $0)) }
            }
        }
        func settle(_ index: Int, _ outcome: DownloadOutcome) {
            outcomes[index] = outcome
            for same in repeats[index] ?? [] { outcomes[same] = outcome }
        }
        func startAndCollect() async -> [DownloadOutcome] {
            await withTaskCancellationHandler {
                startWhatFits()
                while running > 0 {
                    // With every image started there is nothing to do before the last one ends.
                    for (index, origin, outcome) in await ended.takeAll(atLeast: queue.isEmpty ? running : 1) {
                        settle(index, outcome)
                        running -= 1
                        queue.finished(origin)
                    }
                    if Task.isCancelled {
                        // The caller gave up: the rest are not started (and those still waiting for a
                        // request slot end without sending theirs); those in flight are waited for.
                        for index in queue.drain() {
                            if known[index] != nil { counter.decrement() }
                            settle(index, finish(cancelledOutcome(for: images[index].url)))
                        }
                    } else {
                        startWhatFits()
                    }
                }
                return outcomes.compactMap { $0 }
            } onCancel: {
                gaveUp.set()
            }
        }
        // Where this call waits for its outcomes and starts the next requests. While its origins
        // take a few requests each (HTTP/1.1), on the transport's thread when it has one: the
        // outcomes are handed in there and the requests go out from there, with no hop between
        // threads. Once one takes many (HTTP/2), libcurl's streams keep that thread busy, and
        // this runs beside it instead, on the cooperative pool: over HTTP/2 that was faster at the
        // same CPU time, and over plain HTTP the pool was slower (Benchmarks/HISTORY.md, "Fetching").
        if hostLimits.allSatisfy({ $0.currentLimit <= policy.perHostConcurrency }) {
            return await exchange.transport.preferringThread(for: policy.privateNetworks) { await startAndCollect() }
        }
        return await startAndCollect()
    }

    /// What `slot` holds: reading a dictionary's `[key, default:]` through `inout` stores the default
    /// when the key is missing, so one hash both finds and inserts.
    private static func value(_ slot: inout Int) -> Int { slot }

    /// How many images beyond a request limit of `limit` ``fetchAll(_:)`` starts: enough to keep
    /// the network busy while the images just received are written.
    private func storeHeadroom(_ limit: Int) -> Int {
        max(4, limit / 4)
    }

    /// Cancels every download under way and returns once they have all ended, so that no write
    /// into the cache is still going on. Their outcomes are `failed` with the reason `cancelled`;
    /// nothing partial is left in the cache. Later fetches work as usual.
    func cancelAll() async {
        let running = fetches.withLock { $0.inFlight.map { (key: $0.key, cancellation: $0.value.cancellation) } }
        for fetch in running { fetch.cancellation.cancel() }
        for fetch in running {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let waits = fetches.withLock { fetches in
                    fetches.inFlight[fetch.key]?.waiters.append { _ in continuation.resume() } != nil
                }
                if !waits { continuation.resume() }
            }
        }
    }

    /// Ends the fetch of `key`: out of the table, and its outcome to everybody waiting for it.
    private func settle(_ key: String, with outcome: DownloadOutcome) {
        let waiters = fetches.withLock { fetches in
            if fetches.activeCalls > 0 { fetches.settled.insert(key) }
            return fetches.inFlight.removeValue(forKey: key)?.waiters ?? []
        }
        for waiter in waiters { waiter(outcome) }
    }

    /// Whether `url` is worth a request: an http(s) URL whose path names an enabled image format,
    /// or none at all (its bytes decide); not one that names a script, a font, a page, …
    static func mayBeImage(_ url: BrowserURL, naming: LocalImageNaming) -> Bool {
        url.isHTTP && naming.pathKind(ofHTTPURL: url.serialized) != .other
    }

    private func cancelledOutcome(for url: BrowserURL) -> DownloadOutcome {
        DownloadOutcome(url: url.serializedWithoutFragment, localName: store.naming.localName(for: url),
                        status: .failed, failure: DownloadFailure(.cancelled))
    }

    /// Records the HTTP version the origin of `url` answered with elsewhere (say, for the page whose
    /// images these are), so that its images start at that protocol's limit rather than at the
    /// HTTP/1.1 one until their own first response: over HTTP/2 with 50 ms round trips, one round
    /// trip sooner at full speed.
    func noteHTTPVersion(_ version: HTTPVersion?, forOriginOf url: BrowserURL) {
        originLimits.observe(version, from: Origin(url))
    }

    /// How many requests the origin of `url` may have in flight now: ``DownloadPolicy/perHostStreams``
    /// once it has answered over HTTP/2, ``DownloadPolicy/perHostConcurrency`` until then.
    func currentLimit(forOriginOf url: BrowserURL) -> Int {
        originLimits.limit(for: Origin(url))
    }

    // MARK: - One image
    //
    // Every image takes the same way, whatever the transport: checked, looked up where the caller
    // did not, counted, its request slots waited for with a closure (no task), its first request
    // sent (without a task where the transport can: ``ImageTransport/send(_:completion:)``), and a
    // response that ends its exchange at once handed to the cache writer. Anything else (a lookup,
    // a redirect, a retry, a 304, a failure, a transport that sends only from a task) goes on in a
    // task on the transport's thread (``ImageTransport/startTask(for:_:)``), driving the same
    // ``ExchangeStateMachine``.

    /// A started fetch: the image checked, looked up in the cache where the caller did not, and
    /// requested when the cache cannot answer for it. `end` gets the outcome, exactly once.
    private func begin(_ fetch: FetchStart, cancellation: FetchCancellation, end: @escaping @Sendable (DownloadOutcome) -> Void) {
        let url = fetch.image.url
        if let refusal = refusal(of: fetch.image) {
            if fetch.preCounted { counter.decrement() }
            return end(finish(refusal))
        }
        if let lookup = fetch.lookup, !lookup.isFresh {
            return request(image(fetch, lookup: lookup, cancellation: cancellation, end: end), hostLimit: fetch.hostLimit, counted: fetch.preCounted)
        }
        // A look in the cache, or a use to record, is file work: in a task.
        carryOn(cancellation) {
            let store = self.store
            let lookup: CacheLookup
            if let known = fetch.lookup {
                lookup = known
            } else {
                lookup = await self.fileWork.run { store.lookup(url) }
            }
            let image = self.image(fetch, lookup: lookup, cancellation: cancellation, end: end)
            guard case .fresh(let metadata) = lookup else {
                return self.request(image, hostLimit: fetch.hostLimit, counted: fetch.preCounted)
            }
            await self.fileWork.run { store.markUsed(url) }
            let outcome = self.finish(image.outcome(.cached, metadata))
            if fetch.preCounted { self.counter.decrement() }
            end(outcome)
        }
    }

    /// The image in flight that `fetch` is, once looked up.
    private func image(_ fetch: FetchStart, lookup: CacheLookup, cancellation: FetchCancellation,
                       end: @escaping @Sendable (DownloadOutcome) -> Void) -> ImageInFlight {
        // A URL that names no image format gets its name from its bytes: known once they are in
        // (or from the index, for one stored before).
        let urlName = fetch.image.urlName ?? store.naming.localName(for: fetch.image.url)
        return ImageInFlight(fetch, urlName: urlName, stale: lookup.metadata, headers: requestHeaders(revalidating: lookup.metadata),
                             cancellation: cancellation, end: end)
    }

    /// Why `image` is not fetched at all: not an image URL, or a host off the allow-list.
    private func refusal(of image: ImageToFetch) -> DownloadOutcome? {
        let url = image.url
        guard Self.mayBeImage(url, naming: store.naming) else {
            return DownloadOutcome(url: url.serializedWithoutFragment, localName: nil, status: .failed, failure: DownloadFailure(.notAnImageURL))
        }
        guard policy.allows(url) else {
            let urlName = image.urlName ?? store.naming.localName(for: url)
            return Self.outcome(of: url.serializedWithoutFragment, localName: urlName, .skipped,
                                failure: DownloadFailure(.hostNotAllowed(host: url.host ?? "")))
        }
        return nil
    }

    /// Counts `image` as outstanding (unless `counted` says it is), waits for its request slots
    /// without a task, and sends its request.
    private func request(_ image: ImageInFlight, hostLimit: AsyncSemaphore?, counted: Bool) {
        if !counted { counter.increment() }
        onEvent?(.started(url: image.urlString, localName: image.localName))
        let hostLimit = hostLimit ?? originLimits.semaphore(for: Origin(image.url))
        hostLimit.wait {
            self.globalLimit.wait {
                guard image.callerGaveUp?.isSet != true else {
                    // From a task: the slots go to the next waiter, which would end the same way
                    // here, one call deeper for each image waiting.
                    return self.carryOn(image.cancellation) {
                        self.globalLimit.signal()
                        hostLimit.signal()
                        self.end(image, with: image.outcome(.failed, failure: DownloadFailure(.cancelled)))
                    }
                }
                self.send(image, hostLimit: hostLimit)
            }
        }
    }

    /// Sends `image`'s first request, holding its unit of the outstanding count and its slots.
    private func send(_ image: ImageInFlight, hostLimit: AsyncSemaphore) {
        suspensions.keepWatching()
        let machine = exchangeStarting(now: image)
        let request = exchange.request(for: image.url, headers: image.headers, deadline: machine.deadline)
        let step = image.cancellation.nextStep()
        let sent = exchange.sendWithoutTask(request) { result in
            self.firstResponse(result, in: machine, of: image, hostLimit: hostLimit)
        }
        if let cancel = sent {
            image.cancellation.onCancel(cancel, ifStillAt: step)
        } else {
            carryOn(image.cancellation) {
                // Its time starts with the task: one held back by a busy pool has sent nothing yet.
                let machine = self.exchangeStarting(now: image)
                await self.completeExchange(of: image, machine, from: machine.start(), hostLimit: hostLimit)
            }
        }
    }

    /// The exchange of `image`, its deadline a whole timeout from now.
    private func exchangeStarting(now image: ImageInFlight) -> ExchangeStateMachine {
        ExchangeStateMachine(url: image.url, policy: exchange.policy, acceptsNotModified: image.stale != nil,
                             deadline: ContinuousClock.now + policy.timeout)
    }

    /// Goes on from what the first request of `image`'s exchange came to: a response that ends
    /// the exchange goes to the cache writer from the thread it came on; anything else goes on in
    /// a task.
    private func firstResponse(_ result: Result<TransportResponse, any Error>, in machine: ExchangeStateMachine, of image: ImageInFlight,
                               hostLimit: AsyncSemaphore) {
        var machine = machine
        let action = exchange.next(after: result, in: &machine)
        if case .succeed(let success) = action, success.response.status != 304 {
            globalLimit.signal()
            hostLimit.signal()
            return handToWriter(success, of: image)
        }
        let exchangeSoFar = machine
        carryOn(image.cancellation) {
            await self.completeExchange(of: image, exchangeSoFar, from: action, hostLimit: hostLimit)
        }
    }

    /// The rest of `image`'s exchange, from `action`, holding its request slots, which it gives
    /// back once the exchange ends; then what it comes to (``conclude(_:of:)``).
    ///
    /// An exchange that a suspension of the process broke (``SuspensionWatch``) is made again,
    /// with a whole timeout and its retries, as if it had started when the process came back: an
    /// iOS app frozen in the background finds its images' deadlines passed and its connections
    /// closed on resume, which says nothing of the servers. Once for each suspension, so a server
    /// that never answers still fails.
    private func completeExchange(of image: ImageInFlight, _ machine: ExchangeStateMachine, from action: ExchangeStateMachine.Action,
                                  hostLimit: AsyncSemaphore) async {
        // A redirect's request counts against its own origin's limit: the image's slot moves to
        // the origin it is redirected to, so that many origins redirecting to one host cannot
        // send it more than its limit at once.
        var held = (origin: Origin(image.url), limit: hostLimit)
        let originLimits = self.originLimits
        func moveSlot(to origin: Origin) async {
            guard origin != held.origin else { return }
            held.limit.signal()
            held = (origin, originLimits.semaphore(for: origin))
            await held.limit.wait()
        }
        var machine = machine
        var action = action
        var result: Result<HTTPExchange.Success, HTTPExchange.Failure>
        while true {
            let started = machine.deadline - policy.timeout
            result = await exchange.drive(&machine, from: action, headers: image.headers) { next in await moveSlot(to: Origin(next)) }
            guard case .failure(let failure) = result, Self.mayBeSuspensionsDoing(failure.reason.kind),
                  suspensions.hasSuspended(after: started), !Task.isCancelled else { break }
            machine = exchangeStarting(now: image)
            action = machine.start()
            await moveSlot(to: Origin(image.url))
        }
        // The limits bound requests on the network: storing the image does not hold a slot, so
        // the next request goes out while this one is written.
        globalLimit.signal()
        held.limit.signal()
        if let outcome = await conclude(result, of: image) { end(image, with: outcome) }
    }

    /// Whether a suspension of the process can have caused `failure`: a time-out, a connection
    /// lost, or a body held back until a deadline that passed (what a frozen process comes back
    /// to), rather than something the server said.
    static func mayBeSuspensionsDoing(_ failure: DownloadFailure.Kind) -> Bool {
        switch failure {
        case .timedOut: true
        case .transport(.overBudget): true
        case .transport(let error): error.isTransient
        case .retriesExhausted(let last, _), .noTimeToRetry(let last): mayBeSuspensionsDoing(last)
        default: false
        }
    }

    /// Carries a fetch on in a task on the transport's thread; `cancellation` cancels the task
    /// from then on.
    private func carryOn(_ cancellation: FetchCancellation, _ work: @escaping @Sendable () async -> Void) {
        let task = exchange.transport.startTask(for: policy.privateNetworks, work)
        cancellation.onCancel { task.cancel() }
    }

    /// What an exchange comes to: the image's outcome, or nil when it went to the cache writer,
    /// which ends the image once it is stored.
    private func conclude(_ result: Result<HTTPExchange.Success, HTTPExchange.Failure>, of image: ImageInFlight) async -> DownloadOutcome? {
        switch result {
        case .success(let success) where success.response.status == 304:
            let response = success.response
            let store = self.store
            do {
                let validators = Validators(response)
                try await fileWork.run {
                    try store.markRevalidated(image.url, etag: validators.etag, lastModified: validators.lastModified)
                }
                return image.outcome(.revalidated, image.stale)
            } catch {
                return image.outcome(.failed, failure: DownloadFailure(.storage(reason: "\(error)", revalidating: true)))
            }
        case .success(let success):
            handToWriter(success, of: image)
            return nil
        case .failure(let failure):
            return image.outcome(.failed, failure: failure.reason)
        }
    }

    /// Ends `image`, which holds a unit of the outstanding count, with `outcome`.
    private func end(_ image: ImageInFlight, with outcome: DownloadOutcome) {
        let outcome = finish(outcome)
        counter.decrement()
        image.end(outcome)
    }

    /// Hands a downloaded image to the cache writer, with its unit of the outstanding count: the
    /// writer gives the unit back and ends the image once it is stored.
    private func handToWriter(_ success: HTTPExchange.Success, of image: ImageInFlight) {
        let response = success.response
        let validators = Validators(response)
        writer.store(ImageToStore(
            bytes: response.body, url: image.url,
            contentType: HTTPFieldValue.storable(response.header("Content-Type"), maxBytes: HTTPFieldValue.maxContentTypeBytes),
            etag: validators.etag, lastModified: validators.lastModified, format: success.format,
            urlName: image.urlName)) { result in
            // The body is written (or dropped): its bytes no longer count as held.
            response.charge?.release()
            let outcome = switch result {
            case .success(let metadata):
                image.outcome(.downloaded, metadata)
            case .failure(let error):
                image.outcome(.failed, failure: DownloadFailure(.storage(reason: "\(error)", revalidating: false)))
            }
            self.end(image, with: outcome)
        }
    }

    /// An image whose request is about to go out: what its outcome is named after, what its
    /// request carries, and who is told how it ended.
    ///
    /// A class: the closures that carry an image from its request slots to its outcome capture it
    /// half a dozen times, and as a struct each capture copied it and retained everything in it.
    private final class ImageInFlight: Sendable {
        let url: BrowserURL
        let urlString: String
        /// The name its URL gives it; nil when only its bytes can (see ``ImageToFetch``).
        let urlName: String?
        /// The name of its outcome until it is stored: its URL's, else a stale copy's, else none.
        let localName: String?
        /// The stale copy being revalidated, if any.
        let stale: CacheEntryMetadata?
        /// Its requests' headers (``ImageDownloader/requestHeaders(revalidating:)``).
        let headers: [(name: String, value: String)]
        /// Set when the caller that started it gave up (``FetchStart/callerGaveUp``).
        let callerGaveUp: CancellationFlag?
        /// What stops its current step: what ``ImageDownloader/cancelAll()`` cancels.
        let cancellation: FetchCancellation
        /// Told its outcome, once.
        let end: @Sendable (DownloadOutcome) -> Void

        init(_ fetch: FetchStart, urlName: String?, stale: CacheEntryMetadata?, headers: [(name: String, value: String)],
             cancellation: FetchCancellation, end: @escaping @Sendable (DownloadOutcome) -> Void) {
            url = fetch.image.url
            urlString = url.serializedWithoutFragment
            self.urlName = urlName
            self.stale = stale
            localName = [urlName, stale?.localName].lazy.compactMap { $0 }.first { !$0.isEmpty }
            self.headers = headers
            callerGaveUp = fetch.callerGaveUp
            self.cancellation = cancellation
            self.end = end
        }

        func outcome(_ status: DownloadStatus, _ metadata: CacheEntryMetadata? = nil, failure: DownloadFailure? = nil) -> DownloadOutcome {
            ImageDownloader.outcome(of: urlString, localName: localName, status, metadata, failure: failure)
        }
    }

    /// A response's validators, as the cache may keep them (``HTTPFieldValue/storable(_:maxBytes:)``).
    private struct Validators {
        let etag: String?
        let lastModified: String?

        init(_ response: TransportResponse) {
            etag = HTTPFieldValue.storable(response.header("ETag"), maxBytes: HTTPFieldValue.maxETagBytes)
            lastModified = HTTPFieldValue.storable(response.header("Last-Modified"), maxBytes: HTTPFieldValue.maxLastModifiedBytes)
        }
    }

    /// The request headers of an image: the user agent, exactly the formats accepted, and the
    /// validators of a stale copy, those a request can carry (an index written by an older
    /// version, or by hand, may hold others: the image is then fetched whole).
    private func requestHeaders(revalidating stale: CacheEntryMetadata?) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [("User-Agent", policy.userAgent), ("Accept", acceptHeader)]
        if let etag = HTTPFieldValue.storable(stale?.etag, maxBytes: HTTPFieldValue.maxETagBytes) {
            headers.append(("If-None-Match", etag))
        }
        if let lastModified = HTTPFieldValue.storable(stale?.lastModified, maxBytes: HTTPFieldValue.maxLastModifiedBytes) {
            headers.append(("If-Modified-Since", lastModified))
        }
        return headers
    }

    /// An image's outcome: named as its stored entry is, else as `localName`.
    private static func outcome(of url: String, localName: String?, _ status: DownloadStatus,
                                _ metadata: CacheEntryMetadata? = nil, failure: DownloadFailure? = nil) -> DownloadOutcome {
        DownloadOutcome(url: url, localName: metadata?.localName ?? localName, status: status,
                        byteCount: metadata?.byteCount ?? 0, contentType: metadata?.contentType, failure: failure)
    }

    private func finish(_ outcome: DownloadOutcome) -> DownloadOutcome {
        onEvent?(outcome.status == .failed ? .failed(outcome) : .finished(outcome))
        return outcome
    }
}
