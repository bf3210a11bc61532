/// Why the cache refused a request. File-system failures are reported as `FileError`, naming
/// the file. A struct, so that a new reason is no breaking change: ``description`` says it in one line.
public struct ImageCacheError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why, with its particulars.
    package let kind: Kind

    package enum Kind: Sendable, Equatable {
        /// The URL is not http(s), or its path names no enabled image format and its bytes are none,
        /// so it has no file name in the cache.
        case noLocalName(url: String)
        /// The image alone is larger than ``CachePolicy/maxTotalBytes``; it was not stored, and
        /// nothing was evicted to make room for it.
        case largerThanCache(url: String, byteCount: Int, maxTotalBytes: Int)
        /// The image is not in the cache (or is damaged), so there is nothing to revalidate.
        case notCached(url: String)
    }

    package static func noLocalName(url: String) -> Self { Self(kind: .noLocalName(url: url)) }
    package static func largerThanCache(url: String, byteCount: Int, maxTotalBytes: Int) -> Self {
        Self(kind: .largerThanCache(url: url, byteCount: byteCount, maxTotalBytes: maxTotalBytes))
    }
    package static func notCached(url: String) -> Self { Self(kind: .notCached(url: url)) }

    /// A human-readable sentence.
    public var description: String {
        switch kind {
        case .noLocalName(let url):
            "\(url): not an http(s) URL with an image extension or image bytes, so it cannot be cached"
        case .largerThanCache(let url, let byteCount, let maxTotalBytes):
            "\(url): \(byteCount) bytes is more than the whole cache may hold (\(maxTotalBytes) bytes)"
        case .notCached(let url):
            "\(url): not in the cache"
        }
    }
}
