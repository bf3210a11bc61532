import Foundation
import Testing
@testable import ImgCache
@testable import ImgCacheSupport

@Suite("Per-request deadlines")
struct DeadlineTests {
    /// Counts operations that started, and those that saw their cancellation.
    final class CancellationLog: Sendable {
        private let counts = ThreadLocked((started: 0, cancelled: 0))
        var value: Int { counts.withLock { $0.cancelled } }
        var started: Int { counts.withLock { $0.started } }
        func recordStart() { counts.withLock { $0.started += 1 } }
        func record() { counts.withLock { $0.cancelled += 1 } }
    }

    /// Sleeps for `duration` unless cancelled, recording the start and the cancellation.
    static func sleeper(_ duration: Duration, log: CancellationLog) -> @Sendable () async throws -> Int {
        {
            log.recordStart()
            do {
                try await Task.sleep(for: duration)
            } catch {
                log.record()
                throw error
            }
            return 1
        }
    }

    /// Ten operations that end in time under a far (300 s) deadline, then ten that would sleep
    /// 600 s under near deadlines set in the opposite order.
    static func inTimeAndLate(log: CancellationLog, watchdog: DeadlineWatchdog = DeadlineWatchdog()) async -> [(String, Result<Int, any Error>)] {
        await withTaskGroup(of: (String, Result<Int, any Error>).self) { group in
            // Far deadlines first, then nearer ones: the watchdog's one timer must be brought forward.
            for index in 0..<10 {
                group.addTask {
                    let result = await Result { try await withDeadline(.now + .seconds(300), keptBy: watchdog, sleeper(.milliseconds(20 + index * 5), log: log)) }
                    return ("in time", result)
                }
            }
            try? await Task.sleep(for: .milliseconds(10))
            for index in 0..<10 {
                group.addTask {
                    let deadline = ContinuousClock.now + .milliseconds(100 + 30 * (9 - index))
                    let result = await Result { try await withDeadline(deadline, keptBy: watchdog, sleeper(.seconds(600), log: log)) }
                    return ("late", result)
                }
            }
            var results: [(String, Result<Int, any Error>)] = []
            for await result in group { results.append(result) }
            return results
        }
    }

    @Test("operations that end in time return; late ones are cancelled and time out, whatever order the deadlines were set in")
    func manyDeadlinesAtOnce() async throws {
        let log = CancellationLog()
        var results: [(String, Result<Int, any Error>)] = []
        let (elapsed, stalled) = await elapsedExcludingStalls { results = await Self.inTimeAndLate(log: log) }

        for (kind, result) in results {
            switch (kind, result) {
            case ("in time", .success(let value)): #expect(value == 1)
            case ("late", .failure(let error)): #expect(error as? TransportError == .timedOut(phase: nil))
            default: Issue.record("\(kind): unexpected \(result)")
            }
        }
        // A late operation whose deadline passed before it could start (a starved test process)
        // is never run; every one that ran was cancelled.
        #expect(log.value == log.started - 10, "every late operation that started was cancelled")
        // Well under the 300 s a timer not brought forward would wait for (and the 600 s of no
        // cancellation at all), and loose: with CPU-heavy tests on both cores, one run took 11.7 s.
        #expect(elapsed - stalled < .seconds(60), "took \(elapsed), of which the process was stalled \(stalled)")
    }

    @Test("cancelling the caller cancels the operation, and is not reported as a time-out")
    func callerCancellation() async throws {
        let log = CancellationLog()
        let caller = Task { try await withDeadline(.now + .seconds(30), keptBy: DeadlineWatchdog(), Self.sleeper(.seconds(60), log: log)) }
        try await Task.sleep(for: .milliseconds(50))
        caller.cancel()
        let result = await caller.result
        guard case .failure(let error) = result else { Issue.record("expected a failure, got \(result)"); return }
        #expect(error is CancellationError)
        #expect(log.value == 1)
    }

    @Test("a deadline already past throws at once without starting the operation")
    func pastDeadline() async throws {
        let log = CancellationLog()
        let ran = ThreadLocked(false)
        await #expect(throws: TransportError.timedOut(phase: nil)) {
            try await withDeadline(.now - .seconds(1), keptBy: DeadlineWatchdog()) { ran.withLock { $0 = true }; return try await Self.sleeper(.zero, log: log)() }
        }
        #expect(ran.withLock { $0 } == false)
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
