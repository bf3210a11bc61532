package import Foundation

/// The entries a store found fresh, or stored, in the last ``ImageCacheStore/lastUseGranularity``,
/// by URL: the next look for one of them (a site's pages share most of their images) is answered
/// from memory, with no look in the index, no `stat` of the file and no hop off the pool.
///
/// An answer stands while it is less than `lastUseGranularity` old (its use was recorded then, or
/// did not need to be: eviction goes by uses of that grain), while the entry is fresh, and while
/// the store has seen no entry leave the cache since it was given. Answers too old to stand are
/// dropped together, so the table holds at most that interval's images.
package struct RecentAnswers: Sendable {
    /// What an image's outcome needs of its entry.
    package struct Answer: Sendable {
        package let localName: String
        package let byteCount: Int
        package let contentType: String?
        package let fetchedAt: Date
        /// When the entry was found or stored.
        package let givenAt: Date

        package init(_ metadata: CacheEntryMetadata, at time: Date) {
            localName = metadata.localName
            byteCount = metadata.byteCount
            contentType = metadata.contentType
            fetchedAt = metadata.fetchedAt
            givenAt = time
        }
    }

    private var byURL: [String: Answer] = [:]
    /// The store's removal count the answers are current with.
    private var removals = 0
    /// When the oldest answer kept was given.
    private var since: Date?

    /// Keeps `entries`, found or stored at `now` by a store that had seen `removals` entries leave.
    mutating func remember(_ entries: some Sequence<CacheEntryMetadata>, at now: Date, removals: Int) {
        catchUp(now: now, removals: removals)
        for entry in entries { byURL[entry.url] = Answer(entry, at: now) }
        if since == nil, !byURL.isEmpty { since = now }
    }

    /// Keeps the entries `lookups` found fresh at `now`, by a store that had seen `removals`
    /// entries leave. The table is made room for at once, and each entry read where it lies:
    /// grown as it filled and given copies, the table took a warm page's 2,000 answers about as
    /// long as looking them up.
    mutating func remember(freshAmong lookups: [CacheLookup], at now: Date, removals: Int) {
        catchUp(now: now, removals: removals)
        byURL.reserveCapacity(byURL.count + lookups.count)
        for index in lookups.indices {
            guard case .fresh(let entry) = lookups[index] else { continue }
            byURL[entry.url] = Answer(entry, at: now)
        }
        if since == nil, !byURL.isEmpty { since = now }
    }

    /// The answers that stand at `now` for `urls` (serialized without their fragment), in order.
    mutating func answers(for urls: [String], now: Date, removals: Int, policy: CachePolicy) -> [Answer?] {
        catchUp(now: now, removals: removals)
        guard !byURL.isEmpty else { return Array(repeating: nil, count: urls.count) }
        return urls.map { url in
            byURL[url].flatMap { answer in
                now.timeIntervalSince(answer.givenAt) < ImageCacheStore.lastUseGranularity
                    && !policy.isStale(fetchedAt: answer.fetchedAt, now: now) ? answer : nil
            }
        }
    }

    /// Forgets every answer when an entry has left the cache since, or when the oldest is too old
    /// to stand (the rest soon would be).
    private mutating func catchUp(now: Date, removals: Int) {
        let tooOld = since.map { now.timeIntervalSince($0) >= ImageCacheStore.lastUseGranularity } ?? false
        guard removals != self.removals || tooOld else { return }
        byURL.removeAll()
        since = nil
        self.removals = removals
    }
}
