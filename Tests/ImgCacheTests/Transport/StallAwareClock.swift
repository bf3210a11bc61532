/// Measures how long something took, less the time the test process could not run Swift
/// concurrency tasks at all.
///
/// Synchronous tests elsewhere in the suite can occupy all of the cooperative threads (two on a
/// 2-core machine) for seconds. A transport that gave up on time then looks late only because
/// the test could not resume, so deadline tests subtract such stalls: a probe task that wakes
/// every 10 ms adds up how much later than that it woke (beyond a 20 ms allowance for ordinary
/// jitter). A transport that really waited too long still fails, unless the whole process was
/// stalled for just as long.
func elapsedExcludingStalls(_ body: () async -> Void) async -> (elapsed: Duration, stalled: Duration) {
    let clock = ContinuousClock()
    let probe = Task {
        var stalled = Duration.zero
        while !Task.isCancelled {
            let before = clock.now
            try? await Task.sleep(for: .milliseconds(10))
            let late = clock.now - before - .milliseconds(10)
            if late > .milliseconds(20) { stalled += late }
        }
        return stalled
    }
    let start = clock.now
    await body()
    let elapsed = clock.now - start
    probe.cancel()
    return (elapsed, await probe.value)
}
