import Dispatch
import ImgCacheSupport
import ImgCacheStore

/// Notices when the process stopped running for a while: an iOS app suspended in the background,
/// a Mac asleep, a process stopped by its shell. The downloader asks again for an image whose
/// exchange such a gap broke, instead of reporting the time-out that the gap made.
///
/// A frozen process cannot see itself frozen; it sees the time it was gone only once it runs
/// again, as a sign of life that came late. So while downloads are outstanding a Dispatch timer
/// beats every ``period``, and any sighting of the process running (a beat, or a check by an
/// exchange that just failed) more than ``silenceLimit`` after the last one marks a suspension.
/// The beats come from Dispatch, not from a task, so that a cooperative pool kept busy by other
/// work does not look like a suspension; the time between sightings is read on the injected
/// clock, so that a test can make a gap by moving a manual clock on. Nothing beats while no
/// download is outstanding: an app that is not downloading is not woken.
///
/// `@unchecked Sendable` for the Dispatch timer, which Dispatch does not mark `Sendable` although
/// its methods are thread-safe; all other state is behind the lock.
final class SuspensionWatch: @unchecked Sendable {
    /// How often the process looks at the clock while downloads are outstanding.
    static let period: Duration = .seconds(1)
    /// The longest time between two sightings of the process that is not a suspension: three
    /// beats, so that a beat a little late on a busy machine is not taken for one.
    static let silenceLimit: Duration = .seconds(3)

    private struct State {
        /// The timer beating, while downloads are outstanding.
        var timer: (any DispatchSourceTimer)?
        /// When the process was last seen running, on the injected clock.
        var lastSeen: Duration = .zero
        /// When the last suspension was seen to end, on the deadlines' clock.
        var lastResumed: ContinuousClock.Instant?
    }

    private let clock: ElapsedTimeClock
    private let isBusy: @Sendable () -> Bool
    private let state = ThreadLocked(State())

    /// - Parameters:
    ///   - clock: what the time between sightings is read on.
    ///   - isBusy: whether downloads are outstanding; the beats stop at the first one that finds none.
    init(clock: ElapsedTimeClock, isBusy: @escaping @Sendable () -> Bool) {
        self.clock = clock
        self.isBusy = isBusy
    }

    deinit {
        state.withLock { $0.timer?.cancel() }
    }

    /// Makes sure the beats are running: called as an exchange starts, once the download counts
    /// as outstanding. A gap before the beats start is no suspension of a download's.
    func keepWatching() {
        state.withLock { state in
            guard state.timer == nil else { return }
            state.lastSeen = clock.now()
            let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
            let (seconds, attoseconds) = Self.period.components
            let period = DispatchTimeInterval.nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
            timer.schedule(deadline: .now() + period, repeating: period, leeway: .milliseconds(100))
            // Weak: a session that goes away stops its timer (in deinit) instead of being kept by it.
            timer.setEventHandler { [weak self] in self?.beat() }
            state.timer = timer
            timer.activate()
        }
    }

    /// Whether the beats are running.
    var isWatching: Bool { state.withLock { $0.timer != nil } }

    /// Whether a suspension ended after `instant`: whether an exchange that started then was
    /// broken by one. Also a sighting: an exchange failing at once on resume (its deadline passed
    /// while the process was frozen) is told so even before the next beat.
    func hasSuspended(after instant: ContinuousClock.Instant) -> Bool {
        state.withLock { state in
            sight(&state)
            return state.lastResumed.map { $0 > instant } ?? false
        }
    }

    private func beat() {
        state.withLock { state in
            sight(&state)
            if !isBusy() {
                state.timer?.cancel()
                state.timer = nil
            }
        }
    }

    /// The process is running now: a suspension ended if it was last seen too long ago.
    private func sight(_ state: inout State) {
        guard state.timer != nil else { return }
        let now = clock.now()
        if now - state.lastSeen > Self.silenceLimit { state.lastResumed = ContinuousClock.now }
        state.lastSeen = now
    }
}
