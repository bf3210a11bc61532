/// The images of a ``ImageDownloader/fetchAll(_:)`` call waiting to start, by origin, and how many
/// of each origin are running: which to start next so that every origin is kept at its limit.
///
/// Origins are served in turn (the first origin's images do not all go before the second's), in
/// the order they first appear on the page, and each origin's images in page order.
struct OriginQueue {
    private var waiting: [String: [Int]] = [:]
    private var nextWaiting: [String: Int] = [:]
    private var running: [String: Int] = [:]
    private var origins: [String] = []

    init(_ items: [(index: Int, origin: String)]) {
        for item in items {
            if waiting[item.origin] == nil { origins.append(item.origin) }
            waiting[item.origin, default: []].append(item.index)
        }
    }

    /// Up to `room` images to start now, each within its origin's `limit`, marked as running.
    /// (The caller's limits may be a little over the request limits: an image still being written
    /// to the cache counts as running here while its request slot is already free.)
    mutating func next(room: Int, limit: (String) -> Int) -> [(index: Int, origin: String)] {
        var started: [(index: Int, origin: String)] = []
        var progressed = true
        // Round-robin, one image per origin per pass, until there is no room or nothing fits.
        while started.count < room, progressed {
            progressed = false
            for origin in origins where started.count < room {
                let position = nextWaiting[origin, default: 0]
                guard let queue = waiting[origin], position < queue.count,
                      running[origin, default: 0] < limit(origin) else { continue }
                started.append((queue[position], origin))
                nextWaiting[origin] = position + 1
                running[origin, default: 0] += 1
                progressed = true
            }
        }
        if !started.isEmpty {
            origins.removeAll { origin in nextWaiting[origin, default: 0] >= (waiting[origin]?.count ?? 0) }
        }
        return started
    }

    /// One image of `origin` has ended.
    mutating func finished(_ origin: String) {
        running[origin, default: 1] -= 1
    }

    /// Everything not started yet, which will not be.
    mutating func drain() -> [Int] {
        defer { origins = [] }
        return origins.flatMap { origin in Array((waiting[origin] ?? []).dropFirst(nextWaiting[origin, default: 0])) }
    }
}
