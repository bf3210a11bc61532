import Testing
@testable import ImgCache
@testable import ImgCacheSupport
@testable import ImgCacheURLs

/// The per-origin limit follows the HTTP version the origin answers with.
@Suite("Origin limits")
struct OriginLimitsTests {
    @Test func anOriginStartsAtTheHTTP1LimitAndRisesOnAnHTTP2Answer() {
        let limits = OriginLimits(http1Limit: 6, multiplexedLimit: 100)
        let origin = Origin(BrowserURL("https://cdn.example/a.png")!)
        #expect(origin.description == "https://cdn.example:443")
        #expect(origin == Origin(BrowserURL("HTTPS://CDN.example:443/b.gif")!), "the same origin, however the URL spells it")
        #expect(limits.limit(for: origin) == 6)
        limits.observe(.http2, from: origin)
        #expect(limits.limit(for: origin) == 100)
        limits.observe(nil, from: origin)
        #expect(limits.limit(for: origin) == 100, "an unknown version changes nothing")
        limits.observe(.http1, from: origin)
        #expect(limits.limit(for: origin) == 6)
    }

    @Test func originsAreSchemeHostAndPort() {
        let limits = OriginLimits(http1Limit: 2, multiplexedLimit: 50)
        let secure = Origin(BrowserURL("https://cdn.example/a.png")!)
        let plain = Origin(BrowserURL("http://cdn.example/a.png")!)
        let otherPort = Origin(BrowserURL("https://cdn.example:8443/a.png")!)
        #expect(Set([secure, plain, otherPort]).count == 3)
        limits.observe(.http2, from: secure)
        #expect(limits.limit(for: plain) == 2)
        #expect(limits.limit(for: otherPort) == 2)
    }

    @Test func raisingTheLimitReleasesWaitersAtOnce() async {
        let semaphore = AsyncSemaphore(value: 1)
        await semaphore.wait()
        let released = Counter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    await semaphore.wait()
                    released.add()
                }
            }
            // Nobody gets through while the one unit is held…
            try? await Task.sleep(for: .milliseconds(50))
            #expect(released.value == 0)
            // …and raising the limit to 4 lets all three waiters in without a signal.
            semaphore.setLimit(4)
            await group.waitForAll()
        }
        #expect(released.value == 3)
    }

    @Test func loweringTheLimitTakesEffectAsHoldersLeave() async {
        let semaphore = AsyncSemaphore(value: 3)
        for _ in 0..<3 { await semaphore.wait() }
        semaphore.setLimit(1)
        let entered = Counter()
        let waiter = Task {
            await semaphore.wait()
            entered.add()
        }
        // Two holders leave: with a limit of 1 and one unit still held, nobody may enter yet.
        semaphore.signal()
        semaphore.signal()
        try? await Task.sleep(for: .milliseconds(50))
        #expect(entered.value == 0)
        // The last holder leaves: now there is room for one.
        semaphore.signal()
        await waiter.value
        #expect(entered.value == 1)
        #expect(semaphore.currentLimit == 1)
    }

    @Test func aClosureWaitsInLineWithTasksAndRunsInTheSignalThatFreesItsUnit() async {
        let semaphore = AsyncSemaphore(value: 1)
        let entered = ThreadLocked<[String]>([])
        semaphore.wait { entered.withLock { $0.append("first") } }
        #expect(entered.withLock { $0 } == ["first"], "a free unit: called at once")
        let task = Task {
            await semaphore.wait()
            entered.withLock { $0.append("task") }
        }
        try? await Task.sleep(for: .milliseconds(50))
        semaphore.wait { entered.withLock { $0.append("after the task") } }
        #expect(entered.withLock { $0 } == ["first"])
        // The task came first: the unit goes to it.
        semaphore.signal()
        await task.value
        #expect(entered.withLock { $0 } == ["first", "task"])
        // The closure is called by the signal itself, before it returns.
        semaphore.signal()
        #expect(entered.withLock { $0 } == ["first", "task", "after the task"])
    }
}

/// A thread-safe count for the tests above.
private final class Counter: Sendable {
    private let count = ThreadLocked(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

/// Which waiting images a `fetchAll` starts next.
@Suite("Origin queue")
struct OriginQueueTests {
    private static func origin(_ text: String) -> Origin { Origin(BrowserURL(text)!) }

    @Test("origins take turns in the order they first appear, each in page order and within its own limit; drain gives the rest")
    func turnsLimitsAndDrain() {
        let a = Self.origin("https://a.example/"), b = Self.origin("http://b.example/"), c = Self.origin("https://a.example:8443/")
        var queue = OriginQueue([(0, a), (1, a), (2, b), (3, a), (4, c), (5, b), (6, a)])
        #expect(queue.origins == [a, b, c])
        let limits = [2, 1, 5]
        let first = queue.next(room: 10, limit: { limits[$0] })
        #expect(first.map(\.index) == [0, 2, 4, 1], "a, b, c, then a again: b and c are at their limits or empty")
        #expect(queue.next(room: 10, limit: { limits[$0] }).isEmpty, "nothing more fits")
        queue.finished(0)
        #expect(queue.next(room: 10, limit: { limits[$0] }).map(\.index) == [3])
        queue.finished(1)
        #expect(queue.next(room: 1, limit: { limits[$0] }).map(\.index) == [5], "a is at its limit")
        #expect(queue.drain() == [6])
        #expect(queue.next(room: 10, limit: { _ in 100 }).isEmpty)
    }
}
