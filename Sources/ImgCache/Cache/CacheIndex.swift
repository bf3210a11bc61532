import Foundation

/// What the cache folder's index says, in memory: each entry's metadata, the image bytes they add
/// up to, and which was used longest ago. Built by applying ``CacheIndexRecord``s in the order they
/// were appended to `.imgcache.index`, so every process that reads the file agrees on it.
struct CacheIndex {
    private(set) var entries: [String: CacheEntryMetadata] = [:]
    /// Each entry's local name by its URL: how an image whose URL names no format (its name comes
    /// from its bytes) is found again, by this process or another.
    private(set) var namesByURL: [String: String] = [:]
    /// The image bytes of all entries.
    private(set) var totalBytes = 0

    /// How many entries the index holds.
    var count: Int { entries.count }

    subscript(localName: String) -> CacheEntryMetadata? { entries[localName] }

    /// Applies one record, replacing what was known about its entry.
    mutating func apply(_ record: CacheIndexRecord) {
        switch record {
        case .entry(let metadata):
            let previous = entries.updateValue(metadata, forKey: metadata.localName)
            totalBytes += metadata.byteCount - (previous?.byteCount ?? 0)
            if let previous, previous.url != metadata.url { forgetName(of: previous) }
            namesByURL[metadata.url] = metadata.localName
        case .used(let localName, let at):
            entries[localName]?.lastUsedAt = at
        case .removed(let localName):
            if let previous = entries.removeValue(forKey: localName) {
                totalBytes -= previous.byteCount
                forgetName(of: previous)
            }
        }
    }

    private mutating func forgetName(of entry: CacheEntryMetadata) {
        if namesByURL[entry.url] == entry.localName { namesByURL[entry.url] = nil }
    }

    mutating func apply(_ records: [CacheIndexRecord]) {
        for record in records { apply(record) }
    }

    /// The entry used longest ago, other than `protected` (the one being stored). Ties go to the
    /// smaller name so that every process picks the same victim.
    ///
    /// A linear pass: eviction removes few entries per store, and a pass over a few thousand
    /// in-memory items costs microseconds, less than keeping a heap in step with every use.
    func leastRecentlyUsed(excluding protected: String?) -> String? {
        var best: (name: String, lastUsedAt: Date)?
        for (name, metadata) in entries where name != protected {
            if let current = best, (current.lastUsedAt, current.name) <= (metadata.lastUsedAt, name) { continue }
            best = (name, metadata.lastUsedAt)
        }
        return best?.name
    }

    /// One record per entry, in name order: the whole index, as a compacted file holds it.
    var snapshot: [CacheIndexRecord] {
        entries.keys.sorted().map { .entry(entries[$0]!) }
    }
}
