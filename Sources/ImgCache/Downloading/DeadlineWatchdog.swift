import Dispatch
import ImgCacheSupport

/// Calls each registered handler once its deadline has passed, with one Dispatch timer for all of
/// them.
///
/// What a per-request `Task.sleep` raced against the request did, without its cost: a cancelled
/// sleep keeps its Dispatch timer (and the sleeping task) alive until the deadline would have
/// come, so thousands of images held thousands of timers, and every request paid for arming one.
///
/// `@unchecked Sendable` for the Dispatch timer, which Dispatch does not mark `Sendable` although
/// its methods are thread-safe; all other state is behind the lock.
package final class DeadlineWatchdog: @unchecked Sendable {
    private struct Watch {
        let deadline: ContinuousClock.Instant
        let onExpiry: @Sendable () -> Void
    }

    private struct State {
        var watches: [UInt64: Watch] = [:]
        var nextTicket: UInt64 = 0
        /// The deadline the timer is set for, if it is set.
        var armedFor: ContinuousClock.Instant?
        /// Made on the first watch: every exchange has a watchdog, and with a transport that keeps
        /// its own deadlines (all three of the package's) it is never used.
        var timer: (any DispatchSourceTimer)?
    }

    private let state = ThreadLocked(State())

    package init() {}

    deinit {
        state.withLock { $0.timer?.cancel() }
    }

    /// Calls `onExpiry` (on a Dispatch thread) once `deadline` has passed, unless ``unwatch(_:)``
    /// is called first. Returns the ticket to unwatch with.
    func watch(until deadline: ContinuousClock.Instant, onExpiry: @escaping @Sendable () -> Void) -> UInt64 {
        state.withLock { state in
            let ticket = state.nextTicket
            state.nextTicket += 1
            state.watches[ticket] = Watch(deadline: deadline, onExpiry: onExpiry)
            if state.armedFor.map({ deadline < $0 }) ?? true {
                state.armedFor = deadline
                arm(&state, for: deadline)
            }
            return ticket
        }
    }

    /// Forgets a watch. The timer stays set: when it fires with nothing due, it is set again for
    /// the earliest watch left, which is cheaper than setting it on every change.
    func unwatch(_ ticket: UInt64) {
        state.withLock { $0.watches[ticket] = nil }
    }

    private func fire() {
        let due: [Watch] = state.withLock { state in
            let now = ContinuousClock.now
            var due: [Watch] = []
            var earliest: ContinuousClock.Instant?
            for (ticket, watch) in state.watches {
                if watch.deadline <= now {
                    due.append(watch)
                    state.watches[ticket] = nil
                } else if earliest.map({ watch.deadline < $0 }) ?? true {
                    earliest = watch.deadline
                }
            }
            state.armedFor = earliest
            if let earliest { arm(&state, for: earliest) }
            return due
        }
        for watch in due { watch.onExpiry() }
    }

    /// Sets the timer, making it the first time; call under the lock. Dispatch's clock is not
    /// `ContinuousClock` (they differ across a system sleep), which is harmless: ``fire()`` checks
    /// against `ContinuousClock` and sets it again.
    private func arm(_ state: inout State, for deadline: ContinuousClock.Instant) {
        let timer = state.timer ?? {
            let made = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "imgcache.deadlines"))
            made.setEventHandler { [weak self] in self?.fire() }
            made.activate()
            state.timer = made
            return made
        }()
        let delay = max(.zero, ContinuousClock.now.duration(to: deadline))
        let (seconds, attoseconds) = delay.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), leeway: .milliseconds(5))
    }
}
