import ImgCacheSupport
/// The bytes of image bodies one downloader holds in memory at once: those arriving, and those
/// received and waiting to be written to the cache (``DownloadPolicy/maxBytesInFlight``).
///
/// A transport counts each part of a body against it as the part arrives (``BudgetCharge``). A
/// part that would take the bytes held past the limit is refused, unless its image holds all
/// the bytes held (so that one image larger than the budget still comes in, alone): the transport
/// then ends the request with ``TransportError/overBudget(limit:)``, which frees what it held, and
/// the downloader asks again once the bytes held are down to half the limit. So memory stays
/// within the limit plus one image's ``DownloadPolicy/maxBytes``, whatever 256 streams of one
/// host send, and an image is never lost to the budget: at worst it is asked for again.
package final class ByteBudget: Sendable {
    /// The most bytes held at once.
    package let limit: Int
    private let held = ThreadLocked((now: 0, peak: 0))

    package init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// The bytes held now.
    package var heldBytes: Int { held.withLock { $0.now } }

    /// The most bytes held at any one time so far.
    package var peakHeldBytes: Int { held.withLock { $0.peak } }

    /// A new charge, holding nothing yet.
    package func charge() -> BudgetCharge { BudgetCharge(self) }

    /// Counts `count` more bytes for `charge`: false (and nothing counted) when that would pass
    /// the limit while others hold bytes too, or the charge was released.
    fileprivate func add(_ count: Int, to charge: BudgetCharge) -> Bool {
        held.withLock { held in
            guard !charge.isReleased, held.now + count <= limit || held.now == charge.charged else { return false }
            held.now += count
            held.peak = max(held.peak, held.now)
            charge.charged += count
            return true
        }
    }

    /// Gives back what `charge` holds, once.
    fileprivate func release(_ charge: BudgetCharge) {
        held.withLock { held in
            guard !charge.isReleased else { return }
            charge.isReleased = true
            held.now -= charge.charged
        }
    }

    /// Waits until the bytes held are down to half the limit, or `deadline` passes (false).
    func waitForRoom(until deadline: ContinuousClock.Instant) async -> Bool {
        let clock = ContinuousClock()
        while heldBytes > limit / 2 {
            // Polled: the budget is only ever full when many large images are in flight at once,
            // and a poll then costs nothing next to what they take.
            guard clock.now < deadline, (try? await Task.sleep(for: .milliseconds(10))) != nil else { return false }
        }
        return true
    }
}

/// The bytes of one body counted against a ``ByteBudget``: taken part by part as they arrive,
/// and given back at once by ``release()`` (or when the charge is dropped).
package final class BudgetCharge: @unchecked Sendable {
    private let budget: ByteBudget
    // Read and changed only under the budget's lock.
    fileprivate var charged = 0
    fileprivate var isReleased = false

    fileprivate init(_ budget: ByteBudget) {
        self.budget = budget
    }

    /// The budget's limit, for the error that reports a refusal.
    package var limit: Int { budget.limit }

    /// Counts `count` more bytes; false when the budget has no room for them.
    package func add(_ count: Int) -> Bool {
        budget.add(count, to: self)
    }

    /// Gives the bytes back; later calls do nothing.
    package func release() {
        budget.release(self)
    }

    deinit {
        release()
    }
}
