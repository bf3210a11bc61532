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
    /// The entries in eviction order, built the first time eviction needs it and kept in step
    /// from then on: most runs never evict, and should not pay for it.
    private var evictionQueue: EvictionQueue?

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
            evictionQueue?.push(EvictionQueue.Item(lastUsedAt: metadata.lastUsedAt, localName: metadata.localName))
        case .used(let localName, let at):
            guard entries[localName] != nil else { return }
            entries[localName]?.lastUsedAt = at
            evictionQueue?.push(EvictionQueue.Item(lastUsedAt: at, localName: localName))
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
        // A whole index read at once (the first look, or a replaced file): room for every entry
        // up front, rather than growing and rehashing two 100,000-entry dictionaries step by step.
        if entries.isEmpty {
            entries.reserveCapacity(records.count)
            namesByURL.reserveCapacity(records.count)
        }
        for record in records { apply(record) }
    }

    /// Takes the entry used longest ago, other than `protected` (the one being stored), out of
    /// the eviction order; the caller removes it. Ties go to the smaller name so that every
    /// process picks the same victim. Nil when there is no other entry.
    mutating func popLeastRecentlyUsed(excluding protected: String?) -> String? {
        // Rebuilt when stale pairs (uses, replaced and removed entries) outnumber the entries.
        if evictionQueue == nil || evictionQueue!.count > 2 * entries.count + 1_024 {
            evictionQueue = EvictionQueue(entries)
        }
        return evictionQueue!.popLeastRecentlyUsed(of: entries, excluding: protected)
    }

    /// Drops the eviction order (to be rebuilt when next needed): after an entry was taken out of
    /// it but not removed.
    mutating func forgetEvictionOrder() {
        evictionQueue = nil
    }

    /// One record per entry, in name order: the whole index, as a compacted file holds it.
    var snapshot: [CacheIndexRecord] {
        entries.keys.sorted().map { .entry(entries[$0]!) }
    }
}
