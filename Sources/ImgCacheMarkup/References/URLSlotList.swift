/// The URL slots of a page, in document order, kept in chunks of bounded size.
///
/// A generated 100 MB page has hundreds of thousands of slots. Kept in one array, that array
/// (doubling as it grew, old and new storage at once) and then every slot alongside the references
/// made from them were in memory together at the page's peak. Chunks never move once full, and
/// ``drain(_:)`` gives each one back once its slots have become references.
///
/// Slots are moved in and moved out, never copied: through arrays, each slot's texts were
/// retained once more on the way in and on the way out, and released as often (much of the
/// reference counting of a page of long `srcset`s).
final class URLSlotList {
    /// Slots in the first chunk; each next chunk holds twice as many, up to ``largestChunk``. A
    /// page of a few dozen images needs one small block: a first chunk of the largest size (640 KB)
    /// was above glibc's `mmap` threshold while downloading, so every page mapped it, faulted it
    /// in and unmapped it again, which stops the other threads' CPUs to flush their TLBs.
    private static let firstChunk = 64
    /// Slots per chunk at most: about 640 KB.
    private static let largestChunk = 8192
    /// Full chunks, then the last one, which holds `lastCount` slots.
    private var chunks: [UnsafeMutablePointer<URLSlot>] = []
    private var lastCount = 0
    /// The slots in the full chunks.
    private var fullCount = 0

    /// The number of slots.
    var count: Int { fullCount + lastCount }

    /// How many slots chunk `index` has room for.
    private static func capacity(ofChunk index: Int) -> Int {
        index >= 7 ? largestChunk : firstChunk << index  // 64 << 7 == 8192
    }

    /// How many slots chunk `index` of `chunkCount` holds: full, but for the last, which holds `lastCount`.
    private static func slots(inChunk index: Int, of chunkCount: Int, lastCount: Int) -> Int {
        index == chunkCount - 1 ? lastCount : capacity(ofChunk: index)
    }

    func append(_ slot: consuming URLSlot) {
        if chunks.isEmpty || lastCount == Self.capacity(ofChunk: chunks.count - 1) {
            fullCount += chunks.isEmpty ? 0 : lastCount
            chunks.append(.allocate(capacity: Self.capacity(ofChunk: chunks.count)))
            lastCount = 0
        }
        (chunks[chunks.count - 1] + lastCount).initialize(to: slot)
        lastCount += 1
    }

    /// Hands every slot to `body` in document order and empties the list as it goes, a chunk at a time.
    func drain(_ body: (consuming URLSlot) -> Void) {
        let taken = chunks
        let lastTaken = lastCount
        chunks = []
        lastCount = 0
        fullCount = 0
        for (index, chunk) in taken.enumerated() {
            for offset in 0..<Self.slots(inChunk: index, of: taken.count, lastCount: lastTaken) {
                body((chunk + offset).move())
            }
            chunk.deallocate()
        }
    }

    deinit {
        for (index, chunk) in chunks.enumerated() {
            chunk.deinitialize(count: Self.slots(inChunk: index, of: chunks.count, lastCount: lastCount))
            chunk.deallocate()
        }
    }
}
