public import Foundation

/// An image in the cache, as an app sees it: what it was fetched from, where it is, what it is,
/// and when it was fetched. (The validators it is revalidated with and when it was last used,
/// which eviction goes by, are the cache's own business.)
public struct CachedImage: Sendable, Hashable {
    /// The image's URL without its fragment.
    public let url: String
    /// The image's file name inside the cache folder (`3f2a….png`, or `3f/3f2a….png` with fan-out).
    public let localName: String
    /// The `Content-Type` the server sent, if any.
    public let contentType: String?
    /// The image's length in bytes.
    public let byteCount: Int
    /// The `ETag` the server sent, for revalidation.
    package let etag: String?
    /// The `Last-Modified` the server sent, for revalidation.
    package let lastModified: String?
    /// When the bytes were fetched, or last confirmed unchanged: freshness counts from here.
    public let fetchedAt: Date
    /// When the image was last stored or used; eviction removes the least recently used first.
    package let lastUsedAt: Date

    init(_ metadata: CacheEntryMetadata) {
        url = metadata.url
        localName = metadata.localName
        contentType = metadata.contentType
        byteCount = metadata.byteCount
        etag = metadata.etag
        lastModified = metadata.lastModified
        fetchedAt = metadata.fetchedAt
        lastUsedAt = metadata.lastUsedAt
    }
}
