public import Foundation

/// A summary of what a cache folder holds, from ``ImageCacheStore/stats()``.
public struct CacheStats: Sendable, Equatable {
    /// How many intact entries the folder holds.
    public var entryCount: Int
    /// Their image bytes, added up (the index file is not counted).
    public var totalBytes: Int
    /// The earliest ``CachedImage/fetchedAt``, or nil when the cache is empty.
    public var oldestFetchedAt: Date?
    /// The latest ``CachedImage/fetchedAt``, or nil when the cache is empty.
    public var newestFetchedAt: Date?

    /// Creates a summary.
    init(entryCount: Int, totalBytes: Int, oldestFetchedAt: Date?, newestFetchedAt: Date?) {
        self.entryCount = entryCount
        self.totalBytes = totalBytes
        self.oldestFetchedAt = oldestFetchedAt
        self.newestFetchedAt = newestFetchedAt
    }
}
