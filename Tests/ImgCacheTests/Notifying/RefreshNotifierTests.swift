import Foundation
import Testing
@testable import ImgCache

private typealias F = NotifierFixtures

/// The refresh notifier: debounce, bursts, maximum wait, declared end, summaries, delivery.
/// Timing runs on a `ManualClock`, so nothing waits real seconds.
@Suite struct RefreshNotifierTests {
    private func makeNotifier(debounce: Duration = .seconds(2), maxWait: Duration? = nil)
        -> (RefreshNotifier, ManualClock, NotifierEventLog) {
        let clock = ManualClock()
        let log = NotifierEventLog()
        let notifier = RefreshNotifier(debounce: debounce, maxWait: maxWait, clock: clock,
                                       notificationCenter: nil, onEvent: log.append)
        return (notifier, clock, log)
    }

    // MARK: - Debounce

    @Test func burstGivesOneRefreshAfterTheDebounce() async {
        let (notifier, clock, log) = makeNotifier()
        for name in ["a", "b", "c"] { notifier.record(F.start(name)) }
        #expect(notifier.underWayCount == 3)
        clock.advance(by: .seconds(1))
        notifier.record(F.finish("a", bytes: 10))
        clock.advance(by: .milliseconds(100))
        notifier.record(F.finish("b", bytes: 20))
        clock.advance(by: .milliseconds(100))
        notifier.record(F.finish("c", bytes: 30))
        #expect(notifier.underWayCount == 0)

        clock.advance(by: .milliseconds(1999))
        await F.settle()
        #expect(log.refreshes.isEmpty)

        clock.advance(by: .milliseconds(1))
        await notifier.waitUntilIdle()
        #expect(log.refreshes == [RefreshSummary(downloaded: 3, bytes: 60, reason: .settled,
                                                 elapsed: .milliseconds(3200))])
        #expect(log.events.count == 7)
        #expect(notifier.lastRefresh == log.refreshes.first)
        #expect(await F.eventually { clock.sleeperCount == 0 })
    }

    @Test func downloadStartingDuringTheIntervalCancelsIt() async {
        let (notifier, clock, log) = makeNotifier()
        notifier.record(F.start("a"))
        notifier.record(F.finish("a"))
        clock.advance(by: .milliseconds(1500))
        notifier.record(F.start("b"))
        clock.advance(by: .seconds(1)) // 2.5 s: past the first deadline
        await F.settle()
        #expect(log.refreshes.isEmpty)
        #expect(await F.eventually { clock.sleeperCount == 0 }) // the cancelled timer is gone

        notifier.record(F.finish("b")) // re-armed: 4.5 s
        clock.advance(by: .milliseconds(1999))
        await F.settle()
        #expect(log.refreshes.isEmpty)
        clock.advance(by: .milliseconds(1))
        await notifier.waitUntilIdle()
        #expect(log.refreshes == [RefreshSummary(downloaded: 2, bytes: 200, elapsed: .milliseconds(4500))])
    }

    @Test func countReachingZeroAgainReArmsFromThatMoment() async {
        let (notifier, clock, log) = makeNotifier()
        for step in 0..<4 { // zero at 0, 1, 2 and 3 s; a new start each time before the deadline
            notifier.record(F.start("i\(step)"))
            notifier.record(F.finish("i\(step)"))
            clock.advance(by: .seconds(1))
        }
        await F.settle()
        #expect(log.refreshes.isEmpty) // now 4 s; last zero at 3 s, so due at 5 s
        clock.advance(by: .seconds(1))
        await notifier.waitUntilIdle()
        #expect(log.refreshes.map(\.downloaded) == [4])
        #expect(log.refreshes.first?.elapsed == .seconds(5))
    }

    @Test func twoBurstsGiveTwoRefreshesWithPerBurstCounts() async {
        let (notifier, clock, log) = makeNotifier()
        notifier.record(F.start("a"))
        notifier.record(F.start("b"))
        notifier.record(F.finish("a"))
        notifier.record(F.finish("b", .revalidated))
        clock.advance(by: .seconds(2))
        await notifier.waitUntilIdle()
        #expect(log.refreshes.count == 1)

        clock.advance(by: .seconds(60))
        notifier.record(F.finish("hit", .cached))
        notifier.record(F.start("c"))
        clock.advance(by: .milliseconds(500))
        notifier.record(F.finish("c", bytes: 7))
        clock.advance(by: .seconds(2))
        await notifier.waitUntilIdle()
        #expect(log.refreshes == [
            RefreshSummary(downloaded: 1, revalidated: 1, bytes: 100, elapsed: .seconds(2)),
            RefreshSummary(downloaded: 1, cached: 1, bytes: 7, elapsed: .milliseconds(2500)),
        ])
        #expect(notifier.lastRefresh == log.refreshes.last)
    }

    @Test func zeroDebounceFiresAsSoonAsTheCountIsZero() async {
        let (notifier, clock, log) = makeNotifier(debounce: .zero)
        notifier.record(F.start("a"))
        notifier.record(F.start("b"))
        notifier.record(F.finish("a"))
        #expect(log.refreshes.isEmpty)
        notifier.record(F.finish("b"))
        #expect(log.refreshes.map(\.downloaded) == [2]) // synchronously, no clock involved
        notifier.record(F.start("c"))
        notifier.record(F.finish("c"))
        #expect(log.refreshes.map(\.downloaded) == [2, 1])
        #expect(clock.sleeperCount == 0)
        await notifier.waitUntilIdle()
    }

    // MARK: - Maximum wait

    @Test func maxWaitGivesProgressRefreshesDuringALongStream() async {
        let (notifier, clock, log) = makeNotifier(debounce: .seconds(2), maxWait: .seconds(5))
        // One download a second for 12 s, each overlapping the next: the count never reaches zero.
        for step in 0..<12 {
            notifier.record(F.start("i\(step)"))
            if step > 0 { notifier.record(F.finish("i\(step - 1)")) }
            clock.advance(by: .seconds(1))
        }
        notifier.record(F.finish("i11"))
        clock.advance(by: .seconds(2))
        await notifier.waitUntilIdle()

        let refreshes = log.refreshes
        #expect(refreshes.map(\.reason) == [.maxWait, .maxWait, .settled])
        #expect(refreshes.map(\.downloaded) == [4, 5, 3]) // at 5 s, 10 s, 14 s
        #expect(refreshes.map(\.underWay) == [1, 1, 0])
        #expect(refreshes.map(\.elapsed) == [.seconds(5), .seconds(5), .seconds(4)])
        #expect(refreshes.allSatisfy { $0.elapsed <= .seconds(5) })
        #expect(refreshes.map(\.downloaded).reduce(0, +) == 12)
    }

    @Test func maxWaitAlsoCapsTheDebounce() async {
        let (notifier, clock, log) = makeNotifier(debounce: .seconds(2), maxWait: .seconds(3))
        notifier.record(F.start("a"))
        clock.advance(by: .seconds(2))
        notifier.record(F.finish("a")) // debounce would end at 4 s, the maximum wait at 3 s
        clock.advance(by: .seconds(1))
        await notifier.waitUntilIdle()
        #expect(log.refreshes == [RefreshSummary(downloaded: 1, bytes: 100, underWay: 0,
                                                 reason: .maxWait, elapsed: .seconds(3))])
    }

    @Test func maxWaitIsOffByDefault() async {
        let (notifier, clock, log) = makeNotifier()
        notifier.record(F.start("slow"))
        for _ in 0..<10 { clock.advance(by: .seconds(60)) }
        await F.settle()
        #expect(log.refreshes.isEmpty)
        #expect(clock.sleeperCount == 0) // nothing to time while a download is outstanding
        notifier.record(F.finish("slow"))
        clock.advance(by: .seconds(2))
        await notifier.waitUntilIdle()
        #expect(log.refreshes.map(\.elapsed) == [.seconds(602)])
    }

    // MARK: - Declared end

    @Test func declaredEndFiresWithoutWaitingTheDebounce() async {
        let (notifier, clock, log) = makeNotifier()
        let stream = notifier.events()
        notifier.record(F.start("a"))
        notifier.record(F.start("b"))
        notifier.record(F.finish("a"))
        notifier.finishInput()
        #expect(log.refreshes.isEmpty) // b is still outstanding
        #expect(!notifier.isFinished)
        clock.advance(by: .milliseconds(300))
        notifier.record(F.finish("b"))
        #expect(log.refreshes == [RefreshSummary(downloaded: 2, bytes: 200, reason: .inputFinished,
                                                 elapsed: .milliseconds(300))])
        #expect(notifier.isFinished)
        await notifier.waitUntilIdle()
        #expect(await notifier.waitForRefresh() == nil)
        var received: [ImageEvent] = []
        for await event in stream { received.append(event) } // ends: the notifier finished
        #expect(received == log.events)

        notifier.record(F.start("late")) // ignored once finished
        #expect(notifier.underWayCount == 0)
        #expect(log.events.count == 5)
        #expect(notifier.subscriberCount == 0)
    }

    @Test func declaredEndFiresAtOnceWhenAlreadyIdleWithWorkDone() async {
        let (notifier, clock, log) = makeNotifier()
        notifier.record(F.start("a"))
        notifier.record(F.finish("a", .failed, failure: .httpStatus(500)))
        clock.advance(by: .seconds(1)) // halfway through the debounce
        let summary = await notifier.finishInputAndWait()
        #expect(summary?.reason == .inputFinished)
        #expect(summary?.failed.map(\.reason) == ["HTTP 500"])
        #expect(summary?.elapsed == .seconds(1))
        #expect(log.refreshes.count == 1)
        #expect(notifier.isFinished)
    }

    @Test func declaredEndAfterTheRefreshHasNothingMoreToSay() async {
        let (notifier, clock, log) = makeNotifier()
        notifier.record(F.start("a"))
        notifier.record(F.finish("a"))
        clock.advance(by: .seconds(2))
        await notifier.waitUntilIdle()
        #expect(await notifier.finishInputAndWait() == nil)
        #expect(log.refreshes.count == 1)
        notifier.finishInput() // again: nothing
        #expect(log.refreshes.count == 1)
    }

    // MARK: - Nothing, or only cache hits

    @Test func noDownloadMeansNoRefreshAndIdleAtOnce() async {
        let (notifier, clock, log) = makeNotifier()
        await notifier.waitUntilIdle()
        clock.advance(by: .seconds(10))
        await F.settle()
        #expect(log.events.isEmpty)
        #expect(clock.sleeperCount == 0)
        #expect(notifier.underWayCount == 0)
        #expect(await notifier.finishInputAndWait() == nil)
        var count = 0
        for await _ in notifier.events() { count += 1 } // finished: ends at once
        #expect(count == 0)
    }

    @Test func cacheHitsAloneDoNotRefreshButAreCounted() async {
        let (notifier, clock, log) = makeNotifier()
        notifier.record(F.finish("h1", .cached))
        notifier.record(F.finish("h2", .cached))
        notifier.record(F.finish("off", .skipped, failure: .hostNotAllowed(host: "off.example")))
        await notifier.waitUntilIdle() // returns at once: nothing to refresh
        clock.advance(by: .seconds(10))
        await F.settle()
        #expect(log.refreshes.isEmpty)
        #expect(clock.sleeperCount == 0)
        #expect(notifier.pendingSummary.cached == 2)
        #expect(notifier.pendingSummary.skipped == 1)

        // They ride along with the next burst that does refresh.
        notifier.record(F.start("new"))
        notifier.record(F.finish("new"))
        clock.advance(by: .seconds(1))
        notifier.record(F.finish("h3", .cached)) // neither delays nor cancels the pending refresh
        clock.advance(by: .seconds(1))
        await notifier.waitUntilIdle()
        #expect(log.refreshes == [RefreshSummary(downloaded: 1, cached: 3, skipped: 1, bytes: 100,
                                                 elapsed: .seconds(12))])
    }

    @Test func oneShotOfCacheHitsOnlyFinishesWithoutRefresh() async {
        let (notifier, _, log) = makeNotifier()
        let stream = notifier.events()
        notifier.record(F.finish("h1", .cached))
        notifier.finishInput()
        await notifier.waitUntilIdle()
        #expect(notifier.isFinished)
        #expect(await notifier.finishInputAndWait() == nil)
        var received: [ImageEvent] = []
        for await event in stream { received.append(event) }
        #expect(received == [.finished(F.outcome("h1", .cached))])
        #expect(log.refreshes.isEmpty)
    }

    // MARK: - Summaries

    @Test func failuresAreCountedWithURLAndReason() async throws {
        let (notifier, clock, log) = makeNotifier()
        notifier.record(F.start("gone"))
        notifier.record(F.finish("gone", .failed, failure: .httpStatus(404)))
        // Failed before any request (no `started`): counted, does not touch the count.
        notifier.record(.finished(DownloadOutcome(url: "data:x", localName: "", status: .failed,
                                                  failure: DownloadFailure(.notAnImageURL))))
        notifier.record(F.finish("off", .skipped, failure: .hostNotAllowed(host: "off.example")))
        #expect(notifier.underWayCount == 0)
        clock.advance(by: .seconds(2))
        await notifier.waitUntilIdle()
        let summary = try #require(log.refreshes.first)
        #expect(summary.failed == [
            FailedImage(url: F.url("gone"), localName: "gone.png", failure: DownloadFailure(.httpStatus(404))),
            FailedImage(url: "data:x", localName: "", failure: DownloadFailure(.notAnImageURL)),
        ])
        #expect(summary.skipped == 1)
        #expect(summary.downloaded == 0)
        #expect(summary.finished == 3)
        // Failures are reported as `failed` events, everything else as `finished`.
        #expect(log.events.prefix(4).map(\.kind) == ["started", "failed", "failed", "finished"])
    }

    @Test func sameURLStartedTwiceCountsTwice() async {
        let (notifier, clock, log) = makeNotifier()
        notifier.record(F.start("a"))
        notifier.record(F.start("a"))
        notifier.record(F.finish("a"))
        #expect(notifier.underWayCount == 1)
        clock.advance(by: .seconds(5))
        await F.settle()
        #expect(log.refreshes.isEmpty)
        notifier.record(F.finish("a"))
        #expect(notifier.underWayCount == 0)
        clock.advance(by: .seconds(2))
        await notifier.waitUntilIdle()
        #expect(log.refreshes.map(\.downloaded) == [2])
    }

    @Test func summaryRoundTripsThroughJSON() throws {
        let failures: [DownloadFailure.Kind] = [
            .httpStatus(404),
            .retriesExhausted(last: .transport(.timedOut(phase: .receivingBody(received: 10, expected: nil))), attempts: 3),
            .transport(.certificate(host: "img.example", problem: CertificateProblem(.outsideValidity, "expired on 2021-01-01"))),
            .noTimeToRetry(last: .timedOut(after: .milliseconds(1500), phase: .connecting)),
            .undeclaredTransportError(type: "Some.Error", description: "no"),
        ]
        let summary = RefreshSummary(downloaded: 3, revalidated: 1, cached: 2, skipped: 1,
                                     failed: failures.enumerated().map { FailedImage(url: "u\($0)", localName: "l\($0).png", failure: DownloadFailure($1)) }
                                         + [FailedImage(url: "data:x", localName: nil, failure: DownloadFailure(.notAnImageURL))],
                                     bytes: 1234, underWay: 4, reason: .maxWait,
                                     elapsed: .milliseconds(2500))
        let json = try JSONEncoder().encode(summary)
        let decoded = try JSONDecoder().decode(RefreshSummary.self, from: json)
        #expect(decoded == summary)
        // `underWay` keeps the key it was first encoded under.
        let keys = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect(keys["outstanding"] as? Int == 4 && keys["underWay"] == nil)
        // Each failure keeps its words for a person, and an image with no name its empty one.
        let failed = try #require(keys["failed"] as? [[String: Any]])
        #expect(failed.map { $0["reason"] as? String } == summary.failed.map(\.failure.description))
        #expect(failed.last?["localName"] as? String == "")
        #expect(summary.elapsedSeconds == 2.5)
        #expect(summary.finished == 13)   // 3 + 1 + 2 + 1 and the 6 failed
    }

    @Test("a failed image's JSON without its typed failure, or with one this version does not know, does not decode")
    func failedImageWithoutTypedFailureDoesNotDecode() throws {
        let wordsOnly = #"{"url":"u","localName":"l.png","reason":"HTTP 404"}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(FailedImage.self, from: Data(wordsOnly.utf8)) }
        let unknown = #"{"url":"u","localName":"l.png","reason":"?","failure":{"somethingNew":{}}}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(FailedImage.self, from: Data(unknown.utf8)) }
        let known = #"{"url":"u","localName":"","reason":"HTTP 404","failure":{"httpStatus":{"_0":404}}}"#
        #expect(try JSONDecoder().decode(FailedImage.self, from: Data(known.utf8))
                == FailedImage(url: "u", localName: nil, failure: DownloadFailure(.httpStatus(404))))
    }

    // MARK: - Holds

    @Test("a hold keeps the refresh back until it is released, once, and the refresh lists the page it names")
    func holdDelaysTheRefreshUntilReleased() async {
        let (notifier, clock, log) = makeNotifier()
        notifier.record(F.start("a"))
        let hold = notifier.hold()
        notifier.record(F.finish("a"))
        #expect(notifier.underWayCount == 1)
        clock.advance(by: .seconds(10))
        await F.settle()
        #expect(log.refreshes.isEmpty, "no refresh while the hold lasts, however long")
        // No image event for a hold.
        #expect(log.events.map(\.kind) == ["started", "finished"])

        hold.release(rewrittenPage: "/cache/index.html")
        hold.release(rewrittenPage: "/cache/again.html")
        #expect(notifier.underWayCount == 0, "a second release gives nothing back")
        clock.advance(by: .milliseconds(1999))
        await F.settle()
        #expect(log.refreshes.isEmpty, "the debounce starts at the release")
        clock.advance(by: .milliseconds(1))
        await notifier.waitUntilIdle()
        #expect(log.refreshes.map(\.rewrittenPages) == [["/cache/index.html"]])
        #expect(log.refreshes.map(\.downloaded) == [1])
    }

    // MARK: - Many threads

    @Test func concurrentProducersKeepExactCounts() async {
        let (notifier, clock, log) = makeNotifier()
        let handler: @Sendable (ImageEvent) -> Void = notifier.record // what a downloader gets
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                DispatchQueue.concurrentPerform(iterations: 50) { producer in
                    for item in 0..<20 {
                        let name = "p\(producer)-\(item)"
                        handler(F.start(name))
                        _ = notifier.underWayCount
                        handler(item % 7 == 3 ? F.finish(name, .failed, failure: .httpStatus(503)) : F.finish(name, bytes: 1))
                    }
                }
                done.resume()
            }
        }
        #expect(notifier.underWayCount == 0)
        #expect(log.refreshes.isEmpty) // the manual clock has not moved
        clock.advance(by: .seconds(2))
        await notifier.waitUntilIdle()
        let failuresPerProducer = (0..<20).filter { $0 % 7 == 3 }.count
        #expect(log.refreshes.count == 1)
        #expect(log.refreshes.first?.failed.count == 50 * failuresPerProducer)
        #expect(log.refreshes.first?.downloaded == 50 * (20 - failuresPerProducer))
        #expect(log.refreshes.first?.bytes == 50 * (20 - failuresPerProducer))
        #expect(log.events.count == 2001)
    }

    @Test func concurrentProducersOnARealClockAccountForEveryImage() async {
        let log = NotifierEventLog()
        let notifier = RefreshNotifier(debounce: .zero, notificationCenter: nil, onEvent: log.append)
        let stream = notifier.events()
        let collector = Task {
            var events: [ImageEvent] = []
            for await event in stream { events.append(event) }
            return events
        }
        // Half the producers on GCD threads, half as tasks.
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    DispatchQueue.global().async {
                        DispatchQueue.concurrentPerform(iterations: 25) { producer in
                            for item in 0..<20 {
                                notifier.record(F.start("g\(producer)-\(item)"))
                                notifier.record(F.finish("g\(producer)-\(item)"))
                            }
                        }
                        done.resume()
                    }
                }
            }
            for producer in 0..<25 {
                group.addTask {
                    for item in 0..<20 {
                        notifier.record(F.start("t\(producer)-\(item)"))
                        await Task.yield()
                        notifier.record(F.finish("t\(producer)-\(item)"))
                    }
                }
            }
        }
        _ = await notifier.finishInputAndWait()
        let events = log.events
        let refreshes = events.compactMap(\.refreshSummary)
        #expect(refreshes.count >= 1)
        #expect(refreshes.map(\.downloaded).reduce(0, +) == 1000)
        #expect(notifier.underWayCount == 0)
        // Delivery order is consistent: each refresh counts exactly the images finished before it.
        var finishedSinceRefresh = 0
        for event in events {
            switch event {
            case .finished: finishedSinceRefresh += 1
            case .refresh(let summary):
                #expect(summary.finished == finishedSinceRefresh)
                finishedSinceRefresh = 0
            default: break
            }
        }
        #expect(finishedSinceRefresh == 0)
        #expect(await collector.value == events) // the stream saw the same events in the same order
    }

    // MARK: - Delivery

    @Test func postsTheSummaryOnTheInjectedNotificationCenter() async {
        let center = NotificationCenter()
        let clock = ManualClock()
        let notifier = RefreshNotifier(clock: clock, notificationCenter: center)
        let received = NotifierTestBox<[RefreshSummary]>([])
        let fromNotifier = NotifierTestBox(false)
        let observer = center.addObserver(forName: .imgcacheRefresh, object: nil, queue: nil) { note in
            let isOurs = (note.object as? RefreshNotifier) === notifier
            fromNotifier.update { $0 = isOurs }
            if let summary = note.refreshSummary { received.update { $0.append(summary) } }
        }
        defer { center.removeObserver(observer) }
        notifier.record(F.start("a"))
        notifier.record(F.finish("a", bytes: 42))
        #expect(received.value.isEmpty) // only refreshes are posted
        clock.advance(by: .seconds(2))
        await notifier.waitUntilIdle()
        #expect(received.value == [RefreshSummary(downloaded: 1, bytes: 42, elapsed: .seconds(2))])
        #expect(fromNotifier.value)
    }

    @Test func postsOnTheDefaultCenterUnlessToldOtherwise() async {
        let notifier = RefreshNotifier(debounce: .zero, clock: ManualClock())
        let received = NotifierTestBox<[RefreshSummary]>([])
        let observer = NotificationCenter.default.addObserver(forName: .imgcacheRefresh, object: notifier,
                                                              queue: nil) { note in
            if let summary = note.userInfo?[RefreshNotifier.summaryUserInfoKey] as? RefreshSummary {
                received.update { $0.append(summary) }
            }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        notifier.record(F.start("a"))
        notifier.record(F.finish("a"))
        #expect(received.value.map(\.downloaded) == [1])
    }

    @Test func everySubscriberSeesTheSameEventsInOrder() async {
        let (notifier, clock, log) = makeNotifier()
        let streams = [notifier.events(), notifier.events()]
        #expect(notifier.subscriberCount == 2)
        let collectors = streams.map { stream in
            Task {
                var events: [ImageEvent] = []
                for await event in stream { events.append(event) }
                return events
            }
        }
        notifier.record(F.start("a"))
        notifier.record(F.start("b"))
        notifier.record(F.finish("a"))
        notifier.record(F.finish("b", .failed, failure: .httpStatus(404)))
        clock.advance(by: .seconds(2))
        await notifier.waitUntilIdle()
        notifier.record(F.finish("c", .cached))
        notifier.finishInput()
        let expected: [ImageEvent] = [
            .started(url: F.url("a"), localName: "a.png"),
            .started(url: F.url("b"), localName: "b.png"),
            .finished(F.outcome("a")),
            .failed(F.outcome("b", .failed, failure: .httpStatus(404))),
            .refresh(RefreshSummary(downloaded: 1,
                                    failed: [FailedImage(url: F.url("b"), localName: "b.png", failure: DownloadFailure(.httpStatus(404)))],
                                    bytes: 100, elapsed: .seconds(2))),
            .finished(F.outcome("c", .cached)),
        ]
        #expect(await collectors[0].value == expected)
        #expect(await collectors[1].value == expected)
        #expect(log.events == expected) // and the callback, too
    }

    @Test func aLateSubscriberGetsOnlyLaterEvents() async {
        let (notifier, _, _) = makeNotifier(debounce: .zero)
        notifier.record(F.start("a"))
        let stream = notifier.events()
        notifier.record(F.finish("a"))
        notifier.finishInput()
        var received: [ImageEvent] = []
        for await event in stream { received.append(event) }
        #expect(received.map(\.kind) == ["finished", "refresh"])
    }

    @Test func aCancelledSubscriberIsDropped() async {
        let (notifier, _, _) = makeNotifier()
        let stream = notifier.events()
        let consumer = Task { for await _ in stream {} }
        #expect(notifier.subscriberCount == 1)
        consumer.cancel()
        await consumer.value
        #expect(await F.eventually { notifier.subscriberCount == 0 })
        notifier.record(F.start("a")) // nobody to deliver to: fine
    }

    @Test func streamsEndWhenTheNotifierGoesAway() async {
        var notifier: RefreshNotifier? = RefreshNotifier(clock: ManualClock(), notificationCenter: nil)
        let stream = notifier!.events()
        notifier!.record(F.start("a"))
        notifier!.record(F.finish("a")) // a timer is pending: it must not keep the notifier alive
        weak let weakNotifier = notifier
        notifier = nil
        #expect(weakNotifier == nil)
        var count = 0
        for await _ in stream { count += 1 }
        #expect(count == 2)
    }

    @Test func callbackMayCallBackIntoTheNotifier() async {
        let seen = NotifierTestBox<[Int]>([])
        let holder = NotifierTestBox<RefreshNotifier?>(nil)
        let notifier = RefreshNotifier(debounce: .zero, clock: ManualClock(), notificationCenter: nil) { event in
            guard let notifier = holder.value else { return }
            seen.update { $0.append(notifier.underWayCount) }
            if case .refresh = event {
                notifier.record(F.finish("extra", .cached)) // queued behind this delivery, not a deadlock
                _ = notifier.pendingSummary
            }
        }
        holder.update { $0 = notifier }
        notifier.record(F.start("a"))
        notifier.record(F.finish("a"))
        #expect(seen.value == [1, 0, 0, 0]) // started, finished, refresh, the re-entrant cache hit
        #expect(notifier.pendingSummary.cached == 1)
        holder.update { $0 = nil }
    }

    // MARK: - Waiting

    @Test func waitUntilIdleWaitsForThePendingRefresh() async {
        let (notifier, clock, log) = makeNotifier()
        notifier.record(F.start("a"))
        notifier.record(F.finish("a"))
        let returned = NotifierTestBox(false)
        let waiter = Task {
            await notifier.waitUntilIdle()
            returned.update { $0 = true }
            return log.refreshes.count
        }
        #expect(await F.eventually { notifier.waiterCount == 1 })
        await F.settle()
        #expect(!returned.value) // count is zero but the refresh is still pending
        clock.advance(by: .seconds(2))
        #expect(await waiter.value == 1) // it returned after the refresh was delivered
    }

    @Test func waitForRefreshReturnsTheNextSummary() async {
        let (notifier, clock, _) = makeNotifier(maxWait: .seconds(1))
        notifier.record(F.start("a"))
        notifier.record(F.start("b"))
        notifier.record(F.finish("a"))
        let waiter = Task { await notifier.waitForRefresh() }
        #expect(await F.eventually { notifier.waiterCount == 1 })
        clock.advance(by: .seconds(1))
        let progress = await waiter.value
        #expect(progress?.reason == .maxWait)
        #expect(progress?.underWay == 1)
        #expect(progress?.downloaded == 1)
    }

    @Test func cancelledWaitersReturn() async {
        let (notifier, _, _) = makeNotifier()
        notifier.record(F.start("forever"))
        let idle = Task { await notifier.waitUntilIdle() }
        let refresh = Task { await notifier.waitForRefresh() }
        #expect(await F.eventually { notifier.waiterCount == 2 })
        idle.cancel()
        refresh.cancel()
        await idle.value
        #expect(await refresh.value == nil)
        #expect(notifier.waiterCount == 0)
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await notifier.waitForRefresh()
        }
        #expect(await early.value == nil)
    }
}

/// The test clock itself.
@Suite struct ManualClockTests {
    @Test func advanceResumesDueSleepersInDeadlineOrder() async throws {
        let clock = ManualClock()
        let order = NotifierTestBox<[Int]>([])
        let start = clock.now
        let sleepers = [3, 1, 2].map { seconds in
            Task {
                try await clock.sleep(until: start.advanced(by: .seconds(seconds)), tolerance: nil)
                order.update { $0.append(seconds) }
            }
        }
        #expect(await NotifierFixtures.eventually { clock.sleeperCount == 3 })
        clock.advance(by: .milliseconds(1500))
        try await sleepers[1].value
        #expect(order.value == [1])
        #expect(clock.sleeperCount == 2)
        clock.advance(by: .seconds(5))
        for sleeper in sleepers { try await sleeper.value }
        #expect(Set(order.value) == [1, 2, 3])
        #expect(clock.now == start.advanced(by: .milliseconds(6500)))
    }

    @Test func pastDeadlineReturnsAtOnceAndCancellationThrows() async {
        let clock = ManualClock()
        clock.advance(by: .seconds(10))
        await #expect(throws: Never.self) { try await clock.sleep(for: .zero) }
        let sleeper = Task { try await clock.sleep(for: .seconds(1)) }
        #expect(await NotifierFixtures.eventually { clock.sleeperCount == 1 })
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }
}

extension ImageEvent {
    /// The case's name, for compact expectations.
    var kind: String {
        switch self {
        case .started: "started"
        case .finished: "finished"
        case .failed: "failed"
        case .refresh: "refresh"
        }
    }
}
