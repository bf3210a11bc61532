/// The running total of image bytes and each entry's last use, kept in memory so that enforcing
/// ``CachePolicy/maxTotalBytes`` never re-reads the folder. It is rebuilt from the folder when it
/// cannot be trusted, and otherwise kept current from the ``CacheJournal`` that every process
/// appends its changes to.
struct CacheSizeIndex {
    /// One change to an entry, as recorded in the journal.
    enum Change: Equatable {
        case stored(localName: String, byteCount: Int, lastUsedAt: Double)
        case removed(localName: String)
    }

    private struct Item {
        var byteCount: Int
        var lastUsedAt: Double
    }

    private var items: [String: Item] = [:]
    /// The image bytes of all entries.
    private(set) var totalBytes = 0

    /// How many entries the index holds.
    var count: Int { items.count }

    /// Applies one change, replacing any earlier size for the same entry.
    mutating func apply(_ change: Change) {
        switch change {
        case .stored(let localName, let byteCount, let lastUsedAt):
            let previous = items.updateValue(Item(byteCount: byteCount, lastUsedAt: lastUsedAt), forKey: localName)
            totalBytes += byteCount - (previous?.byteCount ?? 0)
        case .removed(let localName):
            if let previous = items.removeValue(forKey: localName) { totalBytes -= previous.byteCount }
        }
    }

    /// The entry used longest ago, other than `protected` (the one being stored). Ties go to the
    /// smaller name so that every process picks the same victim.
    ///
    /// A linear pass: eviction removes few entries per store, and a pass over a few thousand
    /// in-memory items costs microseconds, less than keeping a heap in step with every use.
    func leastRecentlyUsed(excluding protected: String?) -> String? {
        var best: (name: String, lastUsedAt: Double)?
        for (name, item) in items where name != protected {
            if let current = best, (current.lastUsedAt, current.name) <= (item.lastUsedAt, name) { continue }
            best = (name, item.lastUsedAt)
        }
        return best?.name
    }
}
