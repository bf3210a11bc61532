package import Foundation
import ImgCacheStore
import ImgCacheSupport

/// Tells a page viewer when to reload: once the images being downloaded are in.
///
/// Give it every ``ImageEvent`` of an `ImageDownloader` (pass `record(_:)` as the
/// downloader's `onEvent`; a ``LocalizationSession`` does this for you); it follows the network
/// requests under way and fires a ``ImageEvent/refresh(_:)`` with a ``RefreshSummary``:
///
/// - **Debounce.** A refresh fires once no request has been under way (and no `hold()` held)
///   for `debounce` (2 s by default). A download that starts during that interval cancels it;
///   the last one finishing re-arms it. So a burst of downloads gives one refresh, not
///   one per image, and a later burst gives a later refresh. With a zero debounce the refresh
///   fires as soon as nothing is under way.
/// - **Network work only.** Only bursts in which a network request started (a
///   ``ImageEvent/started(url:localName:)``) are refreshed. Images that finish without one —
///   cache hits, skipped hosts, unusable URLs — change nothing on disk, so on their own they
///   never cause a refresh (they are counted in the next refresh that does fire, and they
///   neither delay nor cancel a pending one).
/// - **Holds.** Work the coming refresh must include that is not a download (a page written
///   again once its images are in) takes a `RefreshHold` with `hold()`: the refresh waits for
///   its release as it waits for a download. The session takes them; they are not for apps.
/// - **Maximum wait** (off by default). With `maxWait`, a refresh is never put off for longer
///   than that after the burst's first network request or the previous refresh: during a long
///   stream of downloads a ``RefreshReason/maxWait`` progress refresh fires every `maxWait`,
///   whether or not requests are under way, so the viewer can show progress.
/// - **Declared end.** After `finishInput()` the debounce is not waited out: the refresh fires
///   as soon as nothing is under way (at once when nothing is and something was downloaded since
///   the last refresh). Then the notifier is *finished*: event streams end, waiters return, and
///   later events are ignored.
///
/// The number of images outstanding (queued for the network or in flight) is the downloader's
/// `ImageDownloader.outstandingCount`; the notifier only follows the requests it hears of.
///
/// Events reach you three ways, in the same order: the `onEvent` callback, any number of
/// ``events()`` streams, and — for refreshes only — an `Notification.Name.imgcacheRefresh`
/// notification. Deliveries never overlap: each event is handed to the callback, the streams and
/// the notification center before the next one, on whichever thread recorded or fired it. Keep the
/// callback and the notification observers short, and hop to the main actor for UI work.
///
/// Thread-safe: `record(_:)` may be called from any number of threads at once. The state is
/// guarded by a lock that is never held while your code runs; the debounce timer is a task
/// sleeping on the injected clock.
public final class RefreshNotifier: Sendable {
    /// The `userInfo` key under which an `Notification.Name.imgcacheRefresh`
    /// notification carries its ``RefreshSummary``.
    package static let summaryUserInfoKey = "summary"

    /// How long nothing must be under way before a refresh fires.
    package let debounce: Duration
    /// The longest a refresh is put off during a burst, if limited.
    package let maxWait: Duration?

    private let clock: ElapsedTimeClock
    private let notificationCenter: NotificationCenter?
    private let onEvent: (@Sendable (ImageEvent) -> Void)?
    private let state = ThreadLocked(NotifierState())

    /// Creates a notifier.
    /// - Parameters:
    ///   - debounce: how long nothing must be under way before a refresh (≥ 0).
    ///   - maxWait: if set (> 0), the longest a refresh is put off after the first network
    ///     request of a burst or the previous refresh; `nil` (the default) for no limit.
    ///   - clock: the clock timing the debounce and the maximum wait, and measuring
    ///     ``RefreshSummary/elapsed``; inject a manual clock in tests.
    ///   - notificationCenter: where `Notification.Name.imgcacheRefresh` is posted;
    ///     `nil` posts nothing.
    ///   - onEvent: called with every event, from whichever thread delivers it, never twice at once.
    package init(debounce: Duration = .seconds(2),
                maxWait: Duration? = nil,
                clock: some Clock<Duration> = ContinuousClock(),
                notificationCenter: NotificationCenter? = .default,
                onEvent: (@Sendable (ImageEvent) -> Void)? = nil) {
        precondition(debounce >= .zero, "the debounce must not be negative")
        precondition(maxWait.map { $0 > .zero } ?? true, "the maximum wait must be positive")
        self.debounce = debounce
        self.maxWait = maxWait
        self.clock = ElapsedTimeClock(clock)
        self.notificationCenter = notificationCenter
        self.onEvent = onEvent
    }

    deinit {
        let (subscribers, timer) = state.withLock { state in
            defer {
                state.subscribers = [:]
                state.timer = nil
                state.closed = true
            }
            return (Array(state.subscribers.values), state.timer?.task)
        }
        timer?.cancel()
        for subscriber in subscribers { subscriber.finish() }
    }

    // MARK: - Input

    /// Records what the downloader did. Safe from any thread; ignored once the notifier has
    /// finished (see `finishInput()`). A `refresh` event is the notifier's own and is ignored.
    ///
    /// A `finished` or `failed` event is matched with a `started` one for the same URL; one with no
    /// `started` (a cache hit, a skipped host, an unusable URL) is counted but ends no request.
    package func record(_ event: ImageEvent) {
        if case .refresh = event { return }
        takeInput { state, now in
            switch event {
            case .started(let url, let localName):
                state.inFlight[url, default: 0] += 1
                state.underWay += 1
                state.quietDeadline = nil
                markNetworkActivity(&state, now: now)
                publish(.started(url: url, localName: localName), in: &state)
            case .finished(let outcome), .failed(let outcome):
                if let running = state.inFlight[outcome.url] {
                    state.inFlight[outcome.url] = running > 1 ? running - 1 : nil
                    state.underWay -= 1
                } else if outcome.status == .downloaded || outcome.status == .revalidated {
                    // Defensive: the cache changed although no start was seen.
                    markNetworkActivity(&state, now: now)
                }
                state.tally.add(outcome)
                publish(outcome.status == .failed ? .failed(outcome) : .finished(outcome), in: &state)
            case .refresh:
                break
            }
        }
    }

    /// Holds the coming refresh until the hold is released: for work a viewer must see before it
    /// reloads that is not a download, such as a page written again once its images are in.
    /// Counted like a request under way (the debounce starts when the last hold is released),
    /// but no image event. Release every hold exactly once; a second release does nothing.
    package func hold() -> RefreshHold {
        takeInput { state, _ in
            state.underWay += 1
            state.quietDeadline = nil
        }
        return RefreshHold(notifier: self)
    }

    /// Ends a hold; `rewrittenPage`, the path of a page written again meanwhile, is listed by the refresh.
    fileprivate func release(rewrittenPage: String?) {
        takeInput { state, _ in
            state.underWay = max(0, state.underWay - 1)
            if let rewrittenPage { state.tally.rewrittenPages.append(rewrittenPage) }
        }
    }

    /// Applies one input (an event, a hold, a release) under the lock, unless the notifier has
    /// finished: catching up first, so that a deadline that passed before it fires even if the
    /// timer task has not run yet (behaviour depends on clock time, not task scheduling), and
    /// firing, arming or finishing after.
    private func takeInput(_ apply: (inout NotifierState, _ now: Duration) -> Void) {
        transact { state in
            guard !state.closed else { return }
            let now = clock.now()
            update(&state, now: now)
            guard !state.closed else { return }
            if state.burstStart == nil { state.burstStart = now }
            apply(&state, now)
            update(&state, now: now)
        }
    }

    /// Declares that no more work will come (a one-shot fetch is done).
    ///
    /// From now on the refresh fires as soon as nothing is under way, without waiting out
    /// the debounce — at once if the count is zero already and something was downloaded since the
    /// last refresh. Once nothing is under way and that refresh (if any) is delivered, the notifier is
    /// finished: ``events()`` streams end, ``waitUntilIdle()`` and ``waitForRefresh()`` return,
    /// and later events are ignored. Call it once every fetch you started has returned (events
    /// still outstanding are waited for, but work that has not started yet is not). Calling it
    /// again does nothing.
    package func finishInput() {
        transact { state in
            guard !state.closed, !state.inputFinished else { return }
            let now = clock.now()
            update(&state, now: now)
            state.inputFinished = true
            update(&state, now: now)
        }
    }

    /// `finishInput()`, then waits until the notifier has finished; returns the summary of the
    /// refresh fired after the call (`nil` when nothing had been downloaded since the last refresh,
    /// or when the waiting task is cancelled first).
    package func finishInputAndWait() async -> RefreshSummary? {
        finishInput()
        await waitUntilIdle()
        return state.withLock { $0.closed ? $0.closingRefresh : nil }
    }

    // MARK: - Output

    /// A new subscription to the events recorded or fired from now on (earlier ones are not
    /// replayed). Each call gives an independent stream; every stream gets every event, in the
    /// same order. The stream ends when the notifier finishes (at once if it already has) or is
    /// deallocated. Unbounded buffering: a slow consumer keeps every event until it reads it.
    public func events() -> AsyncStream<ImageEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: ImageEvent.self)
        let id = state.withLock { $0.makeID() }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        transact { state in
            if state.closed {
                state.outbox.append(.finishStreams([continuation]))
            } else {
                state.subscribers[id] = continuation
            }
        }
        return stream
    }

    /// Network requests under way and holds not yet released: what a refresh waits to reach zero.
    var underWayCount: Int { state.withLock { $0.underWay } }

    /// What the next refresh would report if it fired now: the images finished since the previous
    /// refresh (`reason` is ``RefreshReason/settled`` and means nothing here).
    package var pendingSummary: RefreshSummary {
        state.withLock { state in
            let now = clock.now()
            var summary = state.tally
            summary.underWay = state.underWay
            summary.elapsed = state.burstStart.map { now - $0 } ?? .zero
            return summary
        }
    }

    /// The summary of the most recent refresh, if any.
    public var lastRefresh: RefreshSummary? { state.withLock { $0.lastRefresh } }

    /// Whether `finishInput()` was called and everything it waited for is done.
    package var isFinished: Bool { state.withLock { $0.closed } }

    /// Tasks waiting in ``waitUntilIdle()`` or ``waitForRefresh()`` (for tests).
    var waiterCount: Int { state.withLock { $0.idleWaiters.count + $0.refreshWaiters.count } }

    /// Subscribed ``events()`` streams still running (for tests).
    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Returns when no download is outstanding and no refresh is pending, after every event so
    /// far has been delivered: at once when nothing was ever started, or when only cache hits
    /// came in; otherwise after the burst's refresh. Also returns when the notifier finishes, or
    /// when the waiting task is cancelled.
    public func waitUntilIdle() async {
        let id = state.withLock { $0.makeID() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                transact { state in
                    if state.isIdle || Task.isCancelled {
                        state.outbox.append(.resumeIdle([continuation]))
                    } else {
                        state.idleWaiters[id] = continuation
                    }
                }
            }
        } onCancel: {
            state.withLock { $0.idleWaiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// Waits for the next refresh and returns its summary (after it has been delivered to the
    /// callback and the streams); `nil` once the notifier has finished without one, or when the
    /// waiting task is cancelled. Call it before the refresh can fire — a refresh that already
    /// happened is in ``lastRefresh``.
    public func waitForRefresh() async -> RefreshSummary? {
        let id = state.withLock { $0.makeID() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<RefreshSummary?, Never>) in
                transact { state in
                    if state.closed || Task.isCancelled {
                        state.outbox.append(.resumeRefresh([continuation], nil))
                    } else {
                        state.refreshWaiters[id] = continuation
                    }
                }
            }
        } onCancel: {
            state.withLock { $0.refreshWaiters.removeValue(forKey: id) }?.resume(returning: nil)
        }
    }

    // MARK: - State machine (called with the lock held)

    /// Sets the burst going: it needs a refresh, and the maximum wait starts counting.
    private func markNetworkActivity(_ state: inout NotifierState, now: Duration) {
        state.needsRefresh = true
        if state.maxWaitDeadline == nil, let maxWait {
            state.maxWaitDeadline = now + maxWait
        }
    }

    /// Fires what is due, arms the debounce, wakes idle waiters, finishes, and reschedules the timer.
    private func update(_ state: inout NotifierState, now: Duration) {
        guard !state.closed else { return }
        if state.needsRefresh {
            if state.underWay == 0 && (state.inputFinished || debounce == .zero) {
                fire(state.inputFinished ? .inputFinished : .settled, &state, now: now)
            } else if state.underWay == 0, let quiet = state.quietDeadline, quiet <= now {
                fire(.settled, &state, now: now)
            } else if let deadline = state.maxWaitDeadline, deadline <= now {
                fire(.maxWait, &state, now: now)
            } else if state.underWay == 0 && state.quietDeadline == nil {
                state.quietDeadline = now + debounce
            }
        }
        if state.isIdle {
            if state.inputFinished {
                close(&state)
            } else if !state.idleWaiters.isEmpty {
                state.outbox.append(.resumeIdle(Array(state.idleWaiters.values)))
                state.idleWaiters = [:]
            }
        }
        reschedule(&state)
    }

    private func fire(_ reason: RefreshReason, _ state: inout NotifierState, now: Duration) {
        var summary = state.tally
        summary.underWay = state.underWay
        summary.reason = reason
        summary.elapsed = now - (state.burstStart ?? now)
        state.tally = RefreshSummary()
        state.lastRefresh = summary
        if state.inputFinished { state.closingRefresh = summary }
        // Downloads still outstanding (a progress refresh) carry on as the next burst.
        let continuing = state.underWay > 0
        state.needsRefresh = continuing
        state.burstStart = continuing ? now : nil
        state.maxWaitDeadline = continuing ? maxWait.map { now + $0 } : nil
        state.quietDeadline = nil
        publish(.refresh(summary), in: &state)
        if !state.refreshWaiters.isEmpty {
            state.outbox.append(.resumeRefresh(Array(state.refreshWaiters.values), summary))
            state.refreshWaiters = [:]
        }
    }

    private func close(_ state: inout NotifierState) {
        state.closed = true
        state.outbox.append(.finishStreams(Array(state.subscribers.values)))
        state.subscribers = [:]
        if !state.refreshWaiters.isEmpty {
            state.outbox.append(.resumeRefresh(Array(state.refreshWaiters.values), nil))
            state.refreshWaiters = [:]
        }
        if !state.idleWaiters.isEmpty {
            state.outbox.append(.resumeIdle(Array(state.idleWaiters.values)))
            state.idleWaiters = [:]
        }
        state.quietDeadline = nil
        state.maxWaitDeadline = nil
    }

    private func publish(_ event: ImageEvent, in state: inout NotifierState) {
        state.outbox.append(.event(event, Array(state.subscribers.values)))
    }

    /// Keeps one timer task sleeping until the earliest deadline (none when there is none).
    private func reschedule(_ state: inout NotifierState) {
        var target: Duration?
        if !state.closed && state.needsRefresh {
            // Not `[a, b].compactMap { $0 }.min()`: that made an array at every event.
            switch (state.quietDeadline, state.maxWaitDeadline) {
            case let (quiet?, maxWait?): target = min(quiet, maxWait)
            case let (deadline?, nil), let (nil, deadline?): target = deadline
            case (nil, nil): target = nil
            }
        }
        if let timer = state.timer {
            if timer.deadline == target { return }
            state.cancelledTimers.append(timer.task)
            state.timer = nil
        }
        guard let target else { return }
        state.timerGeneration &+= 1
        let generation = state.timerGeneration
        let sleep = clock.sleepUntil
        let task = Task { [weak self] in
            do {
                try await sleep(target)
            } catch {
                return // cancelled: superseded by a later schedule
            }
            self?.timerFired(generation: generation)
        }
        state.timer = NotifierState.Timer(deadline: target, generation: generation, task: task)
    }

    private func timerFired(generation: UInt64) {
        transact { state in
            guard let timer = state.timer, timer.generation == generation else { return }
            state.timer = nil
            update(&state, now: clock.now())
        }
    }

    // MARK: - Delivery

    /// Runs `body` under the lock, then delivers what it queued, outside the lock. One thread at
    /// a time delivers, in queue order; a thread that finds another delivering leaves its
    /// deliveries to it (so the callback may call back into the notifier without deadlocking).
    private func transact<Result>(_ body: (inout NotifierState) -> Result) -> Result {
        let (result, batch, cancelled) = state.withLock { state -> (Result, [Delivery], [Task<Void, Never>]) in
            let result = body(&state)
            let cancelled = state.cancelledTimers
            state.cancelledTimers = []
            guard !state.draining, !state.outbox.isEmpty else { return (result, [], cancelled) }
            state.draining = true
            defer { state.outbox = [] }
            return (result, state.outbox, cancelled)
        }
        for task in cancelled { task.cancel() }
        var pending = batch
        while !pending.isEmpty {
            for delivery in pending { deliver(delivery) }
            pending = state.withLock { state in
                guard !state.outbox.isEmpty else {
                    state.draining = false
                    return []
                }
                defer { state.outbox = [] }
                return state.outbox
            }
        }
        return result
    }

    private func deliver(_ delivery: Delivery) {
        switch delivery {
        case .event(let event, let subscribers):
            onEvent?(event)
            for subscriber in subscribers { subscriber.yield(event) }
            if case .refresh(let summary) = event, let notificationCenter {
                notificationCenter.post(name: .imgcacheRefresh, object: self,
                                        userInfo: [Self.summaryUserInfoKey: summary])
            }
        case .resumeIdle(let waiters):
            for waiter in waiters { waiter.resume() }
        case .resumeRefresh(let waiters, let summary):
            for waiter in waiters { waiter.resume(returning: summary) }
        case .finishStreams(let subscribers):
            for subscriber in subscribers { subscriber.finish() }
        }
    }
}

/// Something to do outside the lock, in order.
private enum Delivery {
    /// Hand an event to the callback, these streams, and (a refresh) the notification center.
    case event(ImageEvent, [AsyncStream<ImageEvent>.Continuation])
    case resumeIdle([CheckedContinuation<Void, Never>])
    case resumeRefresh([CheckedContinuation<RefreshSummary?, Never>], RefreshSummary?)
    case finishStreams([AsyncStream<ImageEvent>.Continuation])
}

/// Everything a ``RefreshNotifier`` keeps under its lock. Times are offsets on its clock.
private struct NotifierState {
    struct Timer {
        let deadline: Duration
        let generation: UInt64
        let task: Task<Void, Never>
    }

    /// Network requests started and not finished, by URL (a URL may be fetched twice at once).
    var inFlight: [String: Int] = [:]
    /// Requests started and not finished, plus holds not released.
    var underWay = 0
    /// A network request started since the previous refresh (or was outstanding at it).
    var needsRefresh = false
    /// When the current burst began.
    var burstStart: Duration?
    /// When the debounce ends (armed while the count is zero and a refresh is needed).
    var quietDeadline: Duration?
    /// When the maximum wait ends (while a refresh is needed and a maximum wait is set).
    var maxWaitDeadline: Duration?
    /// What the next refresh will report.
    var tally = RefreshSummary()
    var lastRefresh: RefreshSummary?
    /// The refresh fired after `finishInput()`, if any.
    var closingRefresh: RefreshSummary?
    var inputFinished = false
    var closed = false

    var timer: Timer?
    var timerGeneration: UInt64 = 0
    var cancelledTimers: [Task<Void, Never>] = []

    var nextID: UInt64 = 0
    var subscribers: [UInt64: AsyncStream<ImageEvent>.Continuation] = [:]
    var idleWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    var refreshWaiters: [UInt64: CheckedContinuation<RefreshSummary?, Never>] = [:]

    var outbox: [Delivery] = []
    var draining = false

    /// No download outstanding and no refresh pending (or finished).
    var isIdle: Bool { closed || (underWay == 0 && !needsRefresh) }

    mutating func makeID() -> UInt64 {
        nextID += 1
        return nextID
    }
}

/// A refresh held back by `RefreshNotifier.hold()` until ``release(rewrittenPage:)``.
package final class RefreshHold: Sendable {
    private let notifier: RefreshNotifier
    private let released = ThreadLocked(false)

    fileprivate init(notifier: RefreshNotifier) {
        self.notifier = notifier
    }

    /// Lets the refresh go ahead; `rewrittenPage` is the path of a page written again while the
    /// hold lasted, which the refresh lists (``RefreshSummary/rewrittenPages``). Only the first
    /// call counts.
    package func release(rewrittenPage: String? = nil) {
        let first = released.withLock { done in
            defer { done = true }
            return !done
        }
        if first { notifier.release(rewrittenPage: rewrittenPage) }
    }
}
