import Foundation

/// The cache's entries ordered for eviction: least recently used first, ties to the smaller name
/// (so that every process picks the same victim). A binary min-heap of (last use, name) pairs.
///
/// It is never told when an entry changes or goes: a change pushes a new pair, and a pair that
/// no longer matches its entry (used since, replaced, removed) is dropped when it comes to the
/// top. A cache at its cap evicts about one entry per image stored, and finding each victim by a
/// pass over every entry made storing images into a big cache slow; a heap needs a few steps.
struct EvictionQueue {
    struct Item {
        let lastUsedAt: Date
        let localName: String

        func precedes(_ other: Item) -> Bool {
            (lastUsedAt, localName) < (other.lastUsedAt, other.localName)
        }
    }

    private var heap: [Item] = []

    /// A queue of these items, built in one pass.
    init(_ items: some Sequence<Item>) {
        heap = Array(items)
        for position in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(position) }
    }

    /// How many pairs it holds, stale ones included.
    var count: Int { heap.count }

    /// Records an entry's (new) last use.
    mutating func push(_ item: Item) {
        heap.append(item)
        siftUp(heap.count - 1)
    }

    /// Takes out the least recently used entry other than `protected`, dropping the stale pairs
    /// it meets (those whose entry, by `lastUse`, is gone or was used since); nil when there is none.
    mutating func popLeastRecentlyUsed(excluding protected: String?, lastUse: (String) -> Date?) -> String? {
        var skipped: Item?
        defer { if let skipped { push(skipped) } }
        while let top = heap.first {
            removeTop()
            guard lastUse(top.localName) == top.lastUsedAt else { continue }
            // The protected entry stays queued (pushed back once the victim is found).
            if top.localName == protected {
                skipped = top
                continue
            }
            return top.localName
        }
        return nil
    }

    private mutating func removeTop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(0)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var smallest = left
            if left + 1 < heap.count, heap[left + 1].precedes(heap[left]) { smallest = left + 1 }
            guard heap[smallest].precedes(heap[parent]) else { return }
            heap.swapAt(smallest, parent)
            parent = smallest
        }
    }
}
