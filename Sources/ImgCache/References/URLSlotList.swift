/// The URL slots of a page, in document order, kept in chunks of bounded size.
///
/// A generated 100 MB page has 660,000 slots. Kept in one array, that array (doubling as it grew,
/// old and new storage at once) and then every slot alongside the references made from them were
/// in memory together at the page's peak. Chunks never move once full, and ``drain(_:)`` gives
/// each one back once its slots have become references.
struct URLSlotList {
    /// Slots per chunk: about 1 MB each.
    private static let chunkSize = 8192
    private var chunks: [[URLSlot]] = []
    /// The number of slots.
    private(set) var count = 0

    mutating func append(_ slot: URLSlot) {
        if chunks.isEmpty || chunks[chunks.count - 1].count == Self.chunkSize {
            chunks.append([])
        }
        chunks[chunks.count - 1].append(slot)
        count += 1
    }

    mutating func append(contentsOf slots: [URLSlot]) {
        for slot in slots { append(slot) }
    }

    /// Hands every slot to `body` in document order and empties the list as it goes, a chunk at a time.
    mutating func drain(_ body: (URLSlot) -> Void) {
        var remaining = chunks
        chunks = []
        count = 0
        for index in remaining.indices {
            for slot in remaining[index] { body(slot) }
            remaining[index] = []
        }
    }
}
