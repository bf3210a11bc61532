#if CommandLine
import ImgCache
import ImgCacheHTTPClient

/// Everything a ``FetchSession`` needs, gathered from a command's options (or set by `demo`).
struct FetchSettings: Sendable {
    /// Where pages are written.
    var out: String
    /// The cache folder the images go into.
    var cacheFolder: String
    /// Where the manifest is written.
    var manifestPath: String
    /// How pages are rewritten (reference style, lazy attributes, `--charset`).
    var rewriteOptions: RewriteOptions
    /// Which URLs are images and how the cache names them (`--extensions`, `--fan-out`).
    var naming = LocalImageNaming()
    /// Where local pages are served from, for their relative URLs.
    var baseURL: BrowserURL?
    var cachePolicy = CachePolicy()
    var downloadPolicy = DownloadPolicy()
    var proxy = ProxySettings.direct
    /// The CAs HTTPS servers' certificates may chain to.
    var trust = CertificateTrust.system
    /// `--http-client`; nil for the default (libcurl when it can be loaded).
    var httpClient: HTTPClientChoice?
    /// Print events as ndjson on standard output.
    var printsEvents = false
    /// No progress display.
    var quiet = false
    var debounce = Duration.seconds(2)
    var maxWait: Duration?
    /// `--on-refresh`.
    var onRefresh: String?
}

extension FetchOptions {
    var settings: FetchSettings {
        FetchSettings(
            out: out, cacheFolder: cacheFolder, manifestPath: manifestPath, rewriteOptions: rewriteOptions, naming: page.naming,
            baseURL: page.pageURL, cachePolicy: cachePolicy, downloadPolicy: downloadPolicy, proxy: proxySettings,
            trust: certificateTrust, httpClient: httpClient,
            printsEvents: events != nil, quiet: quiet, debounce: .seconds(debounce), maxWait: maxWait.map { .seconds($0) },
            onRefresh: onRefresh)
    }
}
#endif
