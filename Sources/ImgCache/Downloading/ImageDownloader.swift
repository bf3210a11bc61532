import Foundation

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
    /// Where each image's task runs: on the transport's own thread when it offers one.
    private let taskStarter: (any TaskStartingTransport)?
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
        /// Images found fresh in the cache, or stored, while calls were under way, by URL: a later
        /// call answers them from here instead of looking in the cache again, as the pages of a
        /// site do for the images they share (see ``FoundImage/answers(at:policy:)``). Emptied
        /// with `settled`, and whenever the store has seen entries leave the cache since
        /// (``ImageCacheStore/removalCount``).
        var found: [String: FoundImage] = [:]
        /// The store's removal count that `found` is current with.
        var foundAtRemovals = 0
    }

    /// What an image's outcome needs of its cache entry, and whether the entry is still fresh.
    private struct FoundImage {
        let localName: String
        let byteCount: Int
        let contentType: String?
        let fetchedAt: Date
        /// When it was found or stored: its use then was recorded (or did not need to be).
        let foundAt: Date

        init(_ metadata: CacheEntryMetadata, at time: Date) {
            localName = metadata.localName
            byteCount = metadata.byteCount
            contentType = metadata.contentType
            fetchedAt = metadata.fetchedAt
            foundAt = time
        }

        /// Whether it may stand for a look in the cache at `now`: still fresh, and found recently
        /// enough that a use at `now` need not be recorded (a look records a use at most once in
        /// ``ImageCacheStore/lastUseGranularity``; eviction goes by the last one).
        func answers(at now: Date, policy: CachePolicy) -> Bool {
            now.timeIntervalSince(foundAt) < ImageCacheStore.lastUseGranularity && !policy.isStale(fetchedAt: fetchedAt, now: now)
        }
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
        self.taskStarter = transport as? any TaskStartingTransport
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
            start(url, urlName: nil, knownLookup: nil, hostLimit: nil, isCancelled: isCancelled) { continuation.resume(returning: $0) }
        }
    }

    /// How ``start(_:urlName:knownLookup:hostLimit:preCounted:callerGaveUp:isCancelled:then:)`` went.
    private enum Start {
        case started
        /// Its request is to be sent without a task (``sendWithoutTask(_:urlName:lookup:hostLimit:callerGaveUp:cancellation:sender:end:)``).
        case toSend(CacheLookup, AsyncSemaphore, FetchCancellation, any TaskStartingTransport)
        /// The URL is being fetched already: its outcome is this fetch's.
        case joined
        /// The caller is cancelled: nothing was started.
        case refused
    }

    /// Starts fetching `url`, or joins the fetch of it under way, and calls `then` (on any
    /// thread) with the outcome.
    ///
    /// - Parameters:
    ///   - urlName: the name `url` gives its image, when the caller has it (see ``ImageToFetch``).
    ///   - knownLookup: the cache lookup of `url`, when ``fetchAll(_:)`` just did it.
    ///   - hostLimit: the semaphore of `url`'s origin, when the caller has it at hand.
    ///   - preCounted: the outstanding count already includes this URL (``fetchAll(_:)`` counts
    ///     its queue up front); the count is then handed over to the fetch, or given back.
    ///   - callerGaveUp: set when the caller that started the fetch is cancelled; a fetch still
    ///     waiting for a request slot then ends as cancelled instead of sending its request.
    ///   - isCancelled: whether the caller is cancelled, in which case nothing new is started.
    private func start(_ url: BrowserURL, urlName: String?, knownLookup: CacheLookup?, hostLimit: AsyncSemaphore?, preCounted: Bool = false,
                       callerGaveUp: CancellationFlag? = nil, isCancelled: Bool,
                       then done: @escaping @Sendable (DownloadOutcome) -> Void) {
        let key = url.serializedWithoutFragment
        let start: Start = fetches.withLock { fetches in
            if fetches.inFlight[key]?.waiters.append(done) != nil { return .joined }
            if isCancelled { return .refused }
            // Another call fetched it since this one's lookup: the cache has it now (or it failed
            // there, and is tried again).
            let lookup = fetches.settled.contains(key) ? nil : knownLookup
            // The fetch leaves the table when it ends, after it entered it (both under the lock).
            let cancellation = FetchCancellation()
            fetches.inFlight[key] = Flight(cancellation: cancellation, waiters: [done])
            // What ``fetchAll(_:)`` starts, looked up and counted already, goes without a task up
            // to its response where the transport can send it so.
            if let lookup, let hostLimit, preCounted, let taskStarter {
                return .toSend(lookup, hostLimit, cancellation, taskStarter)
            }
            // A task of its own, so that a caller giving up does not end a fetch others wait for.
            let work: @Sendable () async -> Void = {
                await self.load(url, urlName: urlName, knownLookup: lookup, hostLimit: hostLimit, preCounted: preCounted,
                                callerGaveUp: callerGaveUp) { outcome in
                    self.settle(key, with: outcome)
                }
            }
            let task = taskStarter?.startTask(for: policy.privateNetworks, work) ?? Task(operation: work)
            cancellation.onCancel { task.cancel() }
            return .started
        }
        switch start {
        case .started:
            break
        case .toSend(let lookup, let hostLimit, let cancellation, let sender):
            sendWithoutTask(url, urlName: urlName, lookup: lookup, hostLimit: hostLimit, callerGaveUp: callerGaveUp,
                            cancellation: cancellation, sender: sender) { outcome in
                self.settle(key, with: outcome)
            }
        case .joined:
            // A coalesced request counts once: the running fetch's unit already stands for this URL.
            if preCounted { counter.decrement() }
        case .refused:
            if preCounted { counter.decrement() }
            done(cancelledOutcome(for: url))
        }
    }

    /// Fetches every URL (each once), concurrently within the limits; outcomes in input order.
    ///
    /// Every image that must come from the network counts as outstanding from the start. Requests
    /// are started per origin as its limit allows (raised as soon as it answers over HTTP/2), so
    /// the tasks alive are the requests in flight, not the queue: a page of 2,000 images from one
    /// HTTP/1.1 host holds 8 tasks, not 2,000 suspended ones (over libcurl, none: see
    /// ``sendWithoutTask(_:urlName:lookup:hostLimit:callerGaveUp:cancellation:sender:end:)``), and
    /// a slow host never holds up another's images.
    func fetchAll(_ urls: [BrowserURL]) async -> [DownloadOutcome] {
        await fetchAll(urls.map { ImageToFetch($0) })
    }

    /// The same, for images whose names the caller may already have made.
    func fetchAll(_ images: [ImageToFetch]) async -> [DownloadOutcome] {
        fetches.withLock { $0.activeCalls += 1 }
        defer {
            fetches.withLock { fetches in
                fetches.activeCalls -= 1
                if fetches.activeCalls == 0 {
                    fetches.settled.removeAll()
                    fetches.found.removeAll()
                }
            }
        }
        var outcomes = [DownloadOutcome?](repeating: nil, count: images.count)
        let store = self.store
        let candidates = images.indices.filter { policy.allows(images[$0].url) && Self.mayBeImage(images[$0].url, naming: store.naming) }
        let keys = candidates.map { images[$0].url.serializedWithoutFragment }
        // Images that calls under way found or stored are answered from memory: no look in the
        // cache's index, no `stat` of the file, no hop off the pool. A site's pages share most of
        // their images.
        let now = Date()
        let removals = store.removalCount
        var found: [FoundImage?] = fetches.withLock { fetches in
            if fetches.foundAtRemovals != removals {
                fetches.found.removeAll()
                fetches.foundAtRemovals = removals
            }
            return keys.map { key in fetches.found[key].flatMap { $0.answers(at: now, policy: store.policy) ? $0 : nil } }
        }
        // The rest in one pass over the cache: on a warm run every image is answered here, without
        // a task, an actor call or a second read of its metadata.
        var known = [CacheLookup?](repeating: nil, count: images.count)
        let toLookUp = candidates.indices.filter { found[$0] == nil }
        if !toLookUp.isEmpty {
            let lookups = await fileWork.runCacheLook { store.lookUpForUse(toLookUp.map { images[candidates[$0]] }) }
            var fresh: [(key: String, image: FoundImage)] = []
            for (position, lookup) in zip(toLookUp, lookups) {
                guard case .fresh(let metadata) = lookup else {
                    known[candidates[position]] = lookup
                    continue
                }
                let image = FoundImage(metadata, at: now)
                found[position] = image
                fresh.append((keys[position], image))
            }
            if !fresh.isEmpty {
                fetches.withLock { fetches in
                    for (key, image) in fresh { fetches.found[key] = image }
                }
            }
        }
        for (position, index) in candidates.enumerated() {
            guard let image = found[position] else { continue }
            outcomes[index] = finish(DownloadOutcome(url: keys[position], localName: image.localName, status: .cached,
                                                     byteCount: image.byteCount, contentType: image.contentType))
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
                start(images[index].url, urlName: images[index].urlName, knownLookup: lookup, hostLimit: hostLimits[origin], preCounted: lookup != nil,
                      callerGaveUp: gaveUp, isCancelled: isCancelled) { ended.deliver((index, origin, $0)) }
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
        if let taskStarter, hostLimits.allSatisfy({ $0.currentLimit <= policy.perHostConcurrency }) {
            return await taskStarter.preferringThread(for: policy.privateNetworks) { await startAndCollect() }
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
        DownloadOutcome(url: url.serializedWithoutFragment, localName: store.naming.localName(for: url) ?? "",
                        status: .failed, failure: .cancelled)
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

    /// Fetches one image and calls `end` with its outcome, exactly once: before returning, or
    /// later from the cache writer for an image handed to it (the task need not wait for the
    /// write, nor be woken when it is done).
    private func load(_ url: BrowserURL, urlName: String?, knownLookup: CacheLookup?, hostLimit: AsyncSemaphore?, preCounted: Bool,
                      callerGaveUp: CancellationFlag?, end: @escaping @Sendable (DownloadOutcome) -> Void) async {
        if let outcome = await loadOrHandToWriter(url, urlName: urlName, knownLookup: knownLookup, hostLimit: hostLimit, preCounted: preCounted,
                                                  callerGaveUp: callerGaveUp, stored: end) {
            end(outcome)
        }
    }

    /// ``load(_:urlName:knownLookup:hostLimit:preCounted:callerGaveUp:end:)``'s work: the outcome, or nil
    /// when the image went to the cache writer, which calls `stored` with it.
    private func loadOrHandToWriter(_ url: BrowserURL, urlName knownName: String?, knownLookup: CacheLookup?, hostLimit: AsyncSemaphore?,
                                    preCounted: Bool, callerGaveUp: CancellationFlag?,
                                    stored: @escaping @Sendable (DownloadOutcome) -> Void) async -> DownloadOutcome? {
        // Whether this image holds a unit of the outstanding count: one counted up front is held from
        // the start, otherwise one is taken when the network is needed. Given back however this
        // ends (by the writer, for an image handed to it).
        var counted = preCounted
        defer { if counted { counter.decrement() } }
        let urlString = url.serializedWithoutFragment
        guard Self.mayBeImage(url, naming: store.naming) else {
            return finish(DownloadOutcome(url: urlString, localName: "", status: .failed, failure: .notAnImageURL))
        }
        guard policy.allows(url) else {
            let urlName = knownName ?? store.naming.localName(for: url)
            return finish(Self.outcome(of: urlString, localName: urlName ?? "", .skipped, failure: .hostNotAllowed(host: url.host ?? "")))
        }
        let store = self.store
        let lookup: CacheLookup
        if let knownLookup {
            lookup = knownLookup
        } else {
            lookup = await fileWork.run { store.lookup(url) }
        }
        let image = ImageInFlight(url, urlName: knownName, lookup: lookup, naming: store.naming)
        if case .fresh(let metadata) = lookup {
            await fileWork.run { store.markUsed(url) }
            return finish(image.outcome(.cached, metadata))
        }

        if !counted {
            counter.increment()
            counted = true
        }
        onEvent?(.started(url: urlString, localName: image.localName))
        let hostLimit = hostLimit ?? originLimits.semaphore(for: Origin(url))
        await hostLimit.wait()
        await globalLimit.wait()
        if callerGaveUp?.isSet == true {
            globalLimit.signal()
            hostLimit.signal()
            return finish(image.outcome(.failed, failure: .cancelled))
        }
        suspensions.keepWatching()
        return await completeExchange(of: image, hostLimit: hostLimit, deadline: ContinuousClock.now + policy.timeout,
                                      counted: &counted, stored: stored)
    }

    /// An image's exchange, holding its request slots, which it gives back once the exchange
    /// ends; then what it comes to (``conclude(_:of:counted:stored:)``). `firstAttempt` is what
    /// its first request came to, when that was sent already.
    ///
    /// An exchange that a suspension of the process broke (``SuspensionWatch``) is made again,
    /// with a whole timeout and its retries, as if it had started when the process came back: an
    /// iOS app frozen in the background finds its images' deadlines passed and its connections
    /// closed on resume, which says nothing of the servers. Once for each suspension, so a server
    /// that never answers still fails.
    private func completeExchange(of image: ImageInFlight, hostLimit: AsyncSemaphore, deadline: ContinuousClock.Instant,
                                  firstAttempt: (@Sendable () async throws -> TransportResponse)? = nil, counted: inout Bool,
                                  stored: @escaping @Sendable (DownloadOutcome) -> Void) async -> DownloadOutcome? {
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
        var deadline = deadline
        var firstAttempt = firstAttempt
        var result: Result<HTTPExchange.Success, HTTPExchange.Failure>
        while true {
            let started = deadline - policy.timeout
            result = await exchange.get(image.url, headers: requestHeaders(revalidating: image.stale), acceptsNotModified: image.stale != nil,
                                        deadline: deadline, firstAttempt: firstAttempt) { next in await moveSlot(to: Origin(next)) }
            guard case .failure(let failure) = result, Self.mayBeSuspensionsDoing(failure.reason),
                  suspensions.hasSuspended(after: started), !Task.isCancelled else { break }
            firstAttempt = nil
            deadline = ContinuousClock.now + policy.timeout
            await moveSlot(to: Origin(image.url))
        }
        // The limits bound requests on the network: storing the image does not hold a slot, so
        // the next request goes out while this one is written.
        globalLimit.signal()
        held.limit.signal()
        return await conclude(result, of: image, counted: &counted, stored: stored)
    }

    /// Fetches one image as ``load(_:urlName:knownLookup:hostLimit:preCounted:callerGaveUp:end:)``
    /// does, already looked up and counted, with no task up to its response: it waits for its
    /// request slots as a closure left with the semaphores, its request is sent from the thread
    /// that hands it the last slot, and a response that ends the exchange at once goes to the
    /// cache writer from the transport's thread. The rest (a redirect, a retry, a 304, a failure,
    /// a request the transport can only `send`) is carried on in a task, as `load` does it.
    ///
    /// Measured on 2,000 images over HTTPS and HTTP/2 on loopback and on the 300-page site: see
    /// Benchmarks/HISTORY.md.
    private func sendWithoutTask(_ url: BrowserURL, urlName knownName: String?, lookup: CacheLookup, hostLimit: AsyncSemaphore,
                                 callerGaveUp: CancellationFlag?, cancellation: FetchCancellation, sender: any TaskStartingTransport,
                                 end: @escaping @Sendable (DownloadOutcome) -> Void) {
        var isFresh: Bool { if case .fresh = lookup { true } else { false } }
        guard !isFresh, Self.mayBeImage(url, naming: store.naming), policy.allows(url) else {
            return carryOn(cancellation, on: sender) {
                await self.load(url, urlName: knownName, knownLookup: lookup, hostLimit: hostLimit, preCounted: true,
                                callerGaveUp: callerGaveUp, end: end)
            }
        }
        let image = ImageInFlight(url, urlName: knownName, lookup: lookup, naming: store.naming)
        onEvent?(.started(url: image.urlString, localName: image.localName))
        hostLimit.wait {
            self.globalLimit.wait {
                if callerGaveUp?.isSet == true {
                    // From a task: the slots go to the next waiter, which would end the same way
                    // here, one call deeper for each image waiting.
                    return self.carryOn(cancellation, on: sender) {
                        self.globalLimit.signal()
                        hostLimit.signal()
                        let outcome = self.finish(image.outcome(.failed, failure: .cancelled))
                        self.counter.decrement()
                        end(outcome)
                    }
                }
                self.send(image, hostLimit: hostLimit, cancellation: cancellation, sender: sender, end: end)
            }
        }
    }

    /// ``sendWithoutTask(_:urlName:lookup:hostLimit:callerGaveUp:cancellation:sender:end:)``'s request,
    /// sent holding the image's unit of the outstanding count and its request slots.
    private func send(_ image: ImageInFlight, hostLimit: AsyncSemaphore, cancellation: FetchCancellation,
                      sender: any TaskStartingTransport, end: @escaping @Sendable (DownloadOutcome) -> Void) {
        suspensions.keepWatching()
        let deadline = ContinuousClock.now + policy.timeout
        // As `load` goes on from its exchange's first response.
        let exchangeInTask = { @Sendable (firstAttempt: (@Sendable () async throws -> TransportResponse)?) in
            self.carryOn(cancellation, on: sender) {
                var counted = true
                let outcome = await self.completeExchange(of: image, hostLimit: hostLimit, deadline: deadline,
                                                          firstAttempt: firstAttempt, counted: &counted, stored: end)
                if counted { self.counter.decrement() }
                if let outcome { end(outcome) }
            }
        }
        let request = exchange.request(for: image.url, headers: requestHeaders(revalidating: image.stale), deadline: deadline)
        let sent = sender.send(request, cancelledBy: cancellation) { sent in
            guard let response = sent.response, let success = self.exchange.immediateSuccess(response, from: image.url) else {
                return exchangeInTask(sent.outcome)
            }
            self.globalLimit.signal()
            hostLimit.signal()
            self.handToWriter(success, of: image, stored: end)
        }
        if !sent { exchangeInTask(nil) }
    }

    /// Whether a suspension of the process can have caused `failure`: a time-out, a connection
    /// lost, or a body held back until a deadline that passed (what a frozen process comes back
    /// to), rather than something the server said.
    static func mayBeSuspensionsDoing(_ failure: DownloadFailure) -> Bool {
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
    private func carryOn(_ cancellation: FetchCancellation, on sender: any TaskStartingTransport,
                         _ work: @escaping @Sendable () async -> Void) {
        let task = sender.startTask(for: policy.privateNetworks, work)
        cancellation.onCancel { task.cancel() }
    }

    /// What an exchange comes to: the image's outcome, or nil when it went to the cache writer,
    /// which calls `stored` with it (and then gives back the image's unit of the outstanding
    /// count, which `counted` no longer holds).
    private func conclude(_ result: Result<HTTPExchange.Success, HTTPExchange.Failure>, of image: ImageInFlight, counted: inout Bool,
                          stored: @escaping @Sendable (DownloadOutcome) -> Void) async -> DownloadOutcome? {
        switch result {
        case .success(let success) where success.response.status == 304:
            let response = success.response
            let store = self.store
            do {
                let validators = Validators(response)
                try await fileWork.run {
                    try store.markRevalidated(image.url, etag: validators.etag, lastModified: validators.lastModified)
                }
                return finish(image.outcome(.revalidated, image.stale))
            } catch {
                return finish(image.outcome(.failed, failure: .storage(reason: "\(error)", revalidating: true)))
            }
        case .success(let success):
            counted = false
            handToWriter(success, of: image, stored: stored)
            return nil
        case .failure(let failure):
            return finish(image.outcome(.failed, failure: failure.reason))
        }
    }

    /// Hands a downloaded image to the cache writer, with its unit of the outstanding count: the
    /// writer gives the unit back and calls `stored` with the outcome once the image is stored.
    private func handToWriter(_ success: HTTPExchange.Success, of image: ImageInFlight,
                              stored: @escaping @Sendable (DownloadOutcome) -> Void) {
        let response = success.response
        let validators = Validators(response)
        writer.store(ImageToStore(
            bytes: response.body, url: image.url,
            contentType: HTTPFieldValue.storable(response.header("Content-Type"), maxBytes: HTTPFieldValue.maxContentTypeBytes),
            etag: validators.etag, lastModified: validators.lastModified, format: success.format,
            urlName: image.urlName)) { result in
            // The body is written (or dropped): its bytes no longer count as held.
            response.charge?.release()
            if case .success(let metadata) = result { self.remember(metadata) }
            let outcome = switch result {
            case .success(let metadata):
                image.outcome(.downloaded, metadata)
            case .failure(let error):
                image.outcome(.failed, failure: .storage(reason: "\(error)", revalidating: false))
            }
            _ = self.finish(outcome)
            self.counter.decrement()
            stored(outcome)
        }
    }

    /// Keeps a stored image for the calls under way (see ``Fetches/found``).
    private func remember(_ metadata: CacheEntryMetadata) {
        fetches.withLock { fetches in
            if fetches.activeCalls > 0 { fetches.found[metadata.url] = FoundImage(metadata, at: Date()) }
        }
    }

    /// An image whose request is about to go out, and what its outcome is named after.
    ///
    /// A class: the closures that carry an image from its request slots to its outcome capture it
    /// half a dozen times, and as a struct (a URL's parts, three names, a stale copy's record)
    /// each capture copied it and retained everything in it, on libcurl's thread.
    private final class ImageInFlight: Sendable {
        let url: BrowserURL
        let urlString: String
        /// The name its URL gives it; nil when only its bytes can (see ``ImageToFetch``).
        let urlName: String?
        /// The name of its outcome until it is stored: its URL's, else a stale copy's, else "".
        let localName: String
        /// The stale copy being revalidated, if any.
        let stale: CacheEntryMetadata?

        init(_ url: BrowserURL, urlName knownName: String?, lookup: CacheLookup, naming: LocalImageNaming) {
            self.url = url
            urlString = url.serializedWithoutFragment
            // A URL that names no image format gets its name from its bytes: known once they are
            // in (or from the index, for one stored before).
            urlName = knownName ?? naming.localName(for: url)
            stale = lookup.metadata
            let name = urlName ?? ""
            localName = name.isEmpty ? stale?.localName ?? "" : name
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
    private static func outcome(of url: String, localName: String, _ status: DownloadStatus,
                                _ metadata: CacheEntryMetadata? = nil, failure: DownloadFailure? = nil) -> DownloadOutcome {
        DownloadOutcome(url: url, localName: metadata?.localName ?? localName, status: status,
                        byteCount: metadata?.byteCount ?? 0, contentType: metadata?.contentType, failure: failure)
    }

    private func finish(_ outcome: DownloadOutcome) -> DownloadOutcome {
        onEvent?(outcome.status == .failed ? .failed(outcome) : .finished(outcome))
        return outcome
    }
}
