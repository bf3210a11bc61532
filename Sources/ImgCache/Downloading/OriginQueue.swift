import ImgCacheURLs
import ImgCacheMarkup
/// The images of a ``ImageDownloader/fetchAll(_:)`` call waiting to start, by origin, and how many
/// of each origin are running: which to start next so that every origin is kept at its limit.
///
/// Origins are served in turn (the first origin's images do not all go before the second's), in
/// the order they first appear on the page, and each origin's images in page order. Each origin is
/// known by its position in ``origins`` (hashed once, here), so starting and ending an image
/// looks nothing up.
struct OriginQueue {
    private struct Queue {
        var waiting: [Int] = []
        var next = 0
        var running = 0

        var isDrained: Bool { next >= waiting.count }
    }

    /// The origins, in the order they first appear; an origin's number is its position here.
    private(set) var origins: [Origin] = []
    private var queues: [Queue] = []
    /// The origins with images still waiting, in turn order.
    private var turns: [Int] = []

    init(_ items: [(index: Int, origin: Origin)]) {
        var numbers: [Origin: Int] = [:]
        for item in items {
            let number: Int
            if let known = numbers[item.origin] {
                number = known
            } else {
                number = origins.count
                numbers[item.origin] = number
                origins.append(item.origin)
                queues.append(Queue())
                turns.append(number)
            }
            queues[number].waiting.append(item.index)
        }
    }

    /// Up to `room` images to start now, each within its origin's `limit` (given the origin's
    /// number), marked as running. (The caller's limits may be a little over the request limits:
    /// an image still being written to the cache counts as running here while its request slot
    /// is already free.)
    mutating func next(room: Int, limit: (Int) -> Int) -> [(index: Int, origin: Int)] {
        var started: [(index: Int, origin: Int)] = []
        var progressed = true
        // Round-robin, one image per origin per pass, until there is no room or nothing fits.
        while started.count < room, progressed {
            progressed = false
            for number in turns where started.count < room {
                guard !queues[number].isDrained, queues[number].running < limit(number) else { continue }
                started.append((queues[number].waiting[queues[number].next], number))
                queues[number].next += 1
                queues[number].running += 1
                progressed = true
            }
        }
        if !started.isEmpty {
            turns.removeAll { queues[$0].isDrained }
        }
        return started
    }

    /// Whether every image has been started (or drained).
    var isEmpty: Bool { turns.isEmpty }

    /// One image of the origin numbered `origin` has ended.
    mutating func finished(_ origin: Int) {
        queues[origin].running -= 1
    }

    /// Everything not started yet, which will not be.
    mutating func drain() -> [Int] {
        defer { turns = [] }
        return turns.flatMap { Array(queues[$0].waiting[queues[$0].next...]) }
    }
}
