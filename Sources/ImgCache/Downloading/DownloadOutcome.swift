/// What happened to one image.
public enum DownloadStatus: String, Sendable, Codable, Hashable {
    /// Already in the cache and fresh: no request was made.
    case cached
    /// Fetched and stored.
    case downloaded
    /// In the cache but stale; the server said `304 Not Modified`, so the bytes were kept.
    case revalidated
    /// Could not be fetched, or what came back is not an image; nothing was cached.
    case failed
    /// Not attempted: its host is not on the allow-list.
    case skipped
}

/// The result of asking the downloader for one image.
public struct DownloadOutcome: Sendable, Hashable {
    /// The image's absolute URL.
    public let url: String
    /// Its file name in the cache folder; nil when its URL could not be named (not an image URL,
    /// or one that names no format whose bytes never came).
    public let localName: String?
    /// What happened.
    public let status: DownloadStatus
    /// The size of the cached bytes (0 when failed or skipped).
    public let byteCount: Int
    /// The `Content-Type` the server gave.
    public let contentType: String?
    /// Why it failed or was skipped; never nil when it failed.
    public let failure: DownloadFailure?

    /// Whether the image is in the cache now.
    package var isCached: Bool { status == .cached || status == .downloaded || status == .revalidated }

    /// Creates an outcome.
    init(url: String, localName: String?, status: DownloadStatus, byteCount: Int = 0, contentType: String? = nil,
                failure: DownloadFailure? = nil) {
        precondition(status != .failed || failure != nil, "a failed outcome names its failure")
        self.url = url
        self.localName = localName
        self.status = status
        self.byteCount = byteCount
        self.contentType = contentType
        self.failure = failure
    }
}

extension DownloadOutcome {
    /// The failed ones among `outcomes`, by URL.
    static func failures(in outcomes: [String: DownloadOutcome]) -> [DownloadOutcome] {
        outcomes.values.filter { $0.status == .failed }.sorted { $0.url < $1.url }
    }
}
