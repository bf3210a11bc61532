/// The answer to "is this image in the cache?".
package enum CacheLookup: Sendable, Equatable {
    /// Present, intact and younger than ``CachePolicy/maxAge``: use it without asking the server.
    case fresh(CacheEntryMetadata)
    /// Present and intact but older than ``CachePolicy/maxAge``: revalidate with the stored
    /// ``CacheEntryMetadata/etag`` / ``CacheEntryMetadata/lastModified``, then call
    /// ``ImageCacheStore/markRevalidated(_:etag:lastModified:now:)`` on a 304 or
    /// ``ImageCacheStore/store(_:for:contentType:etag:lastModified:now:)`` on a 200.
    case stale(CacheEntryMetadata)
    /// Not cached, or the image and its metadata disagree (half-written, damaged, replaced).
    case missing

    /// Whether the entry may be used without asking the server.
    package var isFresh: Bool {
        if case .fresh = self { true } else { false }
    }

    /// The entry's metadata when present, fresh or stale.
    package var metadata: CacheEntryMetadata? {
        switch self {
        case .fresh(let metadata), .stale(let metadata): metadata
        case .missing: nil
        }
    }
}
