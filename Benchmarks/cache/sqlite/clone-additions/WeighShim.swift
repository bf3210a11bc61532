public import Foundation

/// Added only in /work/sqlite-weigh's clone: public doors to the internal batch operations the
/// command line uses (CacheWriteQueue's batch store, ImageDownloader's lookUpForUse), so that a
/// driver can time the store at the index + files level exactly as a fetch drives it.
public enum WeighShim {
    public struct Item: Sendable {
        public var bytes: [UInt8]
        public var url: BrowserURL
        public var contentType: String?
        public var etag: String?
        public var lastModified: String?
        public init(bytes: [UInt8], url: BrowserURL, contentType: String?, etag: String?, lastModified: String?) {
            self.bytes = bytes; self.url = url; self.contentType = contentType; self.etag = etag; self.lastModified = lastModified
        }
    }

    /// `store([ImageToStore])`: one lock turn and one append per batch (one at a time under a cap). Returns how many were stored.
    public static func storeBatch(_ store: ImageCacheStore, _ items: [Item], now: Date) -> Int {
        let images = items.map { ImageToStore(bytes: $0.bytes, url: $0.url, contentType: $0.contentType, etag: $0.etag, lastModified: $0.lastModified) }
        return store.store(images, now: now).reduce(0) { n, r in if case .success = r { return n + 1 } else { return n } }
    }

    /// `lookUpForUse`: a page's warm lookups, recording uses older than a minute. Returns (fresh, stale, missing).
    public static func lookUpForUse(_ store: ImageCacheStore, _ urls: [BrowserURL], now: Date) -> (fresh: Int, stale: Int, missing: Int) {
        var fresh = 0, stale = 0, missing = 0
        for result in store.lookUpForUse(urls.map { ImageToFetch($0) }, now: now) {
            switch result {
            case .fresh: fresh += 1
            case .stale: stale += 1
            case .missing: missing += 1
            }
        }
        return (fresh, stale, missing)
    }
}
