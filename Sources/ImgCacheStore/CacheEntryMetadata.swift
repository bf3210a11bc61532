import Foundation

/// Everything the cache knows about one stored image. It is kept as one line of the cache folder's
/// index (`.imgcache.index`) and is what ``ImageCacheStore`` checks the image file against.
///
/// Dates are written as seconds since 1970 with their fractional part (see
/// ``ImageCacheStore`` for the layout). ``imageFile`` holds integers, not dates, because it is
/// compared for exact equality with `stat`.
package struct CacheEntryMetadata: Sendable, Equatable {
    /// The layout version this code writes. Metadata with any other version is treated as absent,
    /// so a future layout change can never be misread as today's.
    static let currentFormatVersion = 1

    /// The layout version of this record; see ``currentFormatVersion``.
    var formatVersion: Int
    /// The image's URL without its fragment (the fragment never changes what is fetched).
    var url: String
    /// The image's file name inside the cache folder, as `LocalImageNaming` gives it
    /// (`3f2a….png`, or `3f/3f2a….png` with fan-out).
    package var localName: String
    /// The `Content-Type` the server sent, if any.
    package var contentType: String?
    /// The image's length in bytes.
    package var byteCount: Int
    /// What tells these bytes from a damaged or replaced file.
    var checksum: ContentChecksum
    /// The `ETag` response header, verbatim, for `If-None-Match`.
    package var etag: String?
    /// The `Last-Modified` response header, verbatim, for `If-Modified-Since`.
    package var lastModified: String?
    /// When the bytes were fetched, or last confirmed unchanged by a 304 response. Freshness is
    /// measured from here.
    var fetchedAt: Date
    /// When the image was last stored or used; eviction removes the least recently used first.
    var lastUsedAt: Date
    /// The image file as it was when written, for the cheap integrity check.
    var imageFile: ImageFileFingerprint

    /// Creates a metadata record. Only needed to build records by hand (tests, migrations);
    /// ``ImageCacheStore`` creates them when storing.
    init(
        formatVersion: Int = CacheEntryMetadata.currentFormatVersion,
        url: String,
        localName: String,
        contentType: String?,
        byteCount: Int,
        checksum: ContentChecksum,
        etag: String?,
        lastModified: String?,
        fetchedAt: Date,
        lastUsedAt: Date,
        imageFile: ImageFileFingerprint
    ) {
        self.formatVersion = formatVersion
        self.url = url
        self.localName = localName
        self.contentType = contentType
        self.byteCount = byteCount
        self.checksum = checksum
        self.etag = etag
        self.lastModified = lastModified
        self.fetchedAt = fetchedAt
        self.lastUsedAt = lastUsedAt
        self.imageFile = imageFile
    }
}
