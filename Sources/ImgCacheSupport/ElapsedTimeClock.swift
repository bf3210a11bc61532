/// Any `Clock<Duration>`, read as the time since this value was made: what lets the notifier and
/// the downloader take a manual clock in tests and `ContinuousClock` otherwise, without being
/// generic over it.
package struct ElapsedTimeClock: Sendable {
    /// The time since this value was made.
    package let now: @Sendable () -> Duration
    /// Sleeps until `now()` reaches the offset given.
    package let sleepUntil: @Sendable (Duration) async throws -> Void

    package init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        now = { origin.duration(to: clock.now) }
        sleepUntil = { offset in try await clock.sleep(until: origin.advanced(by: offset), tolerance: nil) }
    }
}
