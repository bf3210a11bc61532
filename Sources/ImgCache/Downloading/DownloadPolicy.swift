import ImgCacheURLs
import ImgCacheMarkup
/// How the downloader behaves: limits, time-outs, retries and what it accepts.
public struct DownloadPolicy: Sendable {
    /// The most images being fetched at once, from all hosts together. The default is high enough
    /// that the per-host limits decide, even when one HTTP/2 host takes ``perHostStreams``.
    public var concurrency: Int
    /// The most images being fetched at once from one origin (scheme, host, port) that answers over
    /// HTTP/1.1, or whose version is not known yet: the connections opened to it, since each carries
    /// one request at a time. Browsers open 6.
    public var perHostConcurrency: Int
    /// The most images being fetched at once from one origin that answers over HTTP/2 (or HTTP/3):
    /// streams multiplexed on its one connection. The server's `SETTINGS_MAX_CONCURRENT_STREAMS`
    /// applies too (the transport queues what exceeds it), and is the limit in practice: servers
    /// allow 100 to 256. A higher limit means fewer round trips for a page of many images, and
    /// more of them in memory at once.
    public var perHostStreams: Int
    /// How long one image may take, all attempts and redirects included. A time the process was
    /// not running (an app suspended in the background, a computer asleep) does not count against
    /// it: an image whose exchange such a gap broke is asked for again with the whole timeout.
    public var timeout: Duration
    /// How many times a connection failure, a time-out of an attempt or a 5xx is tried again.
    public var retries: Int
    /// The wait before the first retry; it doubles each time (with jitter).
    public var retryDelay: Duration
    /// The most redirects followed for one image (http and https only).
    public var maxRedirects: Int
    /// The largest image accepted, in bytes; enforced while receiving.
    public var maxBytes: Int
    /// The most bytes of image bodies held in memory at once, arriving or waiting to be written
    /// to the cache, over all the requests in flight. A body that would pass it is stopped and
    /// asked for again once there is room, so it costs time, never an image; one image alone may
    /// take up to ``maxBytes`` whatever this is. The default (64 MB) fits a phone; a server
    /// fetching many large images at once may allow more.
    public var maxBytesInFlight: Int
    /// The `User-Agent` header sent.
    public var userAgent: String
    /// When set, only images from these hosts are downloaded; others stay remote, and a redirect
    /// to a host not on the list is not followed (a ``DownloadFailure`` that names the host).
    public var allowedHosts: Set<String>?
    /// Which formats count as images (by their magic bytes).
    public var acceptedFormats: Set<ImageFormat>
    /// Whether images may come from loopback, private, link-local and other non-public addresses
    /// (checked on the address connected to, after DNS and after each redirect). Deny them when
    /// localising pages nobody reviewed; see ``PrivateNetworkAccess``.
    public var privateNetworks: PrivateNetworkAccess

    /// The bytes of image bodies held at once unless told otherwise: 64 MB.
    public static let defaultMaxBytesInFlight = 64 * 1024 * 1024

    /// The user agent sent unless told otherwise.
    public static let defaultUserAgent = "imgcache/1.0 (+https://github.com/imgcache)"

    /// Creates a policy; the defaults suit a page's images over the internet.
    public init(
        concurrency: Int = 256, perHostConcurrency: Int = 8, perHostStreams: Int = 256, timeout: Duration = .seconds(30), retries: Int = 2,
        retryDelay: Duration = .milliseconds(250), maxRedirects: Int = 5, maxBytes: Int = 20 * 1024 * 1024,
        maxBytesInFlight: Int = DownloadPolicy.defaultMaxBytesInFlight, userAgent: String = DownloadPolicy.defaultUserAgent, allowedHosts: Set<String>? = nil,
        acceptedFormats: Set<ImageFormat> = [.jpeg, .png, .gif, .webp, .avif], privateNetworks: PrivateNetworkAccess = .allowed
    ) {
        self.concurrency = max(1, concurrency)
        self.perHostConcurrency = max(1, perHostConcurrency)
        self.perHostStreams = max(1, perHostStreams)
        self.timeout = timeout
        self.retries = max(0, retries)
        self.retryDelay = retryDelay
        self.maxRedirects = max(0, maxRedirects)
        self.maxBytes = max(1, maxBytes)
        self.maxBytesInFlight = max(1, maxBytesInFlight)
        self.userAgent = userAgent
        self.allowedHosts = allowedHosts.map { Set($0.map { $0.lowercased() }) }
        self.acceptedFormats = acceptedFormats
        self.privateNetworks = privateNetworks
    }

    /// Whether `url`'s host may be downloaded from.
    package func allows(_ url: BrowserURL) -> Bool {
        guard let allowedHosts else { return true }
        return url.host.map { allowedHosts.contains($0.lowercased()) } ?? false
    }
}
