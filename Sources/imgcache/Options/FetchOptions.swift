#if CommandLine
import ArgumentParser
import Foundation
import ImgCache
import ImgCacheHTTPClient

/// The options of the commands that download images (`fetch`, `watch`): where things go, every
/// download and cache policy, and how progress and events are reported.
struct FetchOptions: ParsableArguments {
    @OptionGroup var page: PageOptions

    @Option(help: "Output folder for the pages.")
    var out: String = "imgcache-out"

    @Option(name: .customLong("cache-dir"), help: "Cache folder (default: <out>/images).")
    var cacheDirectory: String?

    @Option(help: "Manifest file (default: <out>/imgcache-manifest.json).")
    var manifest: String?

    @Option(help: "Images fetched at once, from all hosts together.")
    var concurrency: Int = DownloadPolicy().concurrency

    @Option(name: .customLong("per-host"), help: ArgumentHelp(
        "Images fetched at once from one host, whatever its protocol (default: 8 over HTTP/1.1, --max-streams over HTTP/2).",
        discussion: "Over HTTP/1.1 each request in flight takes a connection of its own, so this is also the connections opened to the host; over HTTP/2 they are streams on one connection."))
    var perHost: Int?

    @Option(name: .customLong("max-streams"), help: "Images fetched at once from one HTTP/2 host, multiplexed on its connection (the server's own limit applies too).")
    var maxStreams: Int = DownloadPolicy().perHostStreams

    @Option(name: .customLong("cacert"), help: ArgumentHelp(
        "PEM file of CA certificates to trust besides the system's (repeatable).",
        discussion: "SSL_CERT_FILE and SSL_CERT_DIR replace the system's CA bundle and folder, as in OpenSSL and curl."))
    var caCertificates: [String] = []

    @Option(help: "Seconds one image may take, retries and redirects included.")
    var timeout: Double = 30

    @Option(help: "Retries after a connection failure or a 5xx.")
    var retries: Int = 2

    @Option(name: .customLong("max-bytes"), help: "Largest image accepted, in bytes.")
    var maxBytes: Int = 20 * 1024 * 1024

    @Option(name: .customLong("max-bytes-in-flight"), help: ArgumentHelp(
        "Most bytes of images held in memory at once, over all downloads (default: 64 MB).",
        discussion: "An image that would pass it is stopped and asked for again once there is room; one image alone may take up to --max-bytes."))
    var maxBytesInFlight: Int = DownloadPolicy.defaultMaxBytesInFlight

    @Option(name: .customLong("max-age"), help: "Seconds before a cached image is revalidated (0: always).")
    var maxAge: Double?

    @Option(name: .customLong("max-cache-size"), help: "Cache size cap in bytes; least recently used images are evicted.")
    var maxCacheSize: Int?

    @Option(name: .customLong("allow-host"), help: ArgumentHelp(
        "Only download images from this host (repeatable).",
        discussion: "A redirect to a host off the list is not followed."))
    var allowHosts: [String] = []

    @Flag(name: .customLong("deny-private-networks"), help: ArgumentHelp(
        "Refuse pages and images on loopback, private, link-local and other non-public addresses.",
        discussion: "For build servers that localise pages they did not write: a page, a redirect or a DNS name cannot reach the machine's own network or a cloud metadata service (169.254.169.254). Checked on the address actually connected to, after DNS and after each redirect. Through a proxy, the host's addresses are checked before each request and the proxy is asked to connect to the address checked (CONNECT to the address, plain http too); with --http-client async-http-client, which cannot ask that, requests through a proxy are refused."))
    var denyPrivateNetworks = false

    @Option(name: .customLong("allow-network"), help: ArgumentHelp(
        "With --deny-private-networks, still allow this address or CIDR block, e.g. 10.2.0.0/16 (repeatable).",
        valueName: "cidr"))
    var allowNetworks: [String] = []

    @Option(name: .customLong("user-agent"), help: "User-Agent header.")
    var userAgent: String = DownloadPolicy.defaultUserAgent

    @Option(help: "HTTP proxy for all requests, e.g. http://proxy:3128 (default: http_proxy/https_proxy/no_proxy).")
    var proxy: String?

    @Option(name: .customLong("http-client"), help: ArgumentHelp(
        "The HTTP client that downloads: curl (libcurl) or async-http-client (default: curl where libcurl.so.4 is installed, on Linux).",
        discussion: "Both keep every option above: proxies, --cacert, --deny-private-networks, --timeout."))
    var httpClient: HTTPClientChoice?

    @Option(help: "Print every event (page, started, finished, failed, refresh) on standard output: ndjson.")
    var events: EventsFormat?

    @Option(help: "Seconds downloads must have been idle before a refresh event (0 allowed).")
    var debounce: Double = 2

    @Option(name: .customLong("max-wait"), help: "During a long run of downloads, a progress refresh at least every this many seconds (default: none).")
    var maxWait: Double?

    @Option(name: .customLong("on-refresh"), help: ArgumentHelp(
        "Shell command run after each refresh, with IMGCACHE_DOWNLOADED, IMGCACHE_FAILED, … set.",
        discussion: "Every failed URL is in the file IMGCACHE_FAILED_URLS_FILE, one a line (removed when the command ends); IMGCACHE_FAILED_URLS holds as many as fit in 64 KiB (IMGCACHE_FAILED_URLS_TRUNCATED=1 when some were left out). The URLs are the page's text, chosen by whoever wrote it: quote them, never eval them."))
    var onRefresh: String?

    @Flag(help: "No progress display and no per-page summary; failures and warnings still go to standard error.")
    var quiet = false

    func validate() throws {
        if concurrency < 1 { throw ValidationError("--concurrency must be at least 1.") }
        if let perHost, perHost < 1 { throw ValidationError("--per-host must be at least 1.") }
        if maxStreams < 1 { throw ValidationError("--max-streams must be at least 1.") }
        if !(timeout > 0) { throw ValidationError("--timeout must be a positive number of seconds.") }
        if retries < 0 { throw ValidationError("--retries cannot be negative.") }
        if maxBytes < 1 { throw ValidationError("--max-bytes must be at least 1.") }
        if maxBytesInFlight < 1 { throw ValidationError("--max-bytes-in-flight must be at least 1.") }
        if let maxAge, !(maxAge >= 0) { throw ValidationError("--max-age cannot be negative.") }
        if let maxCacheSize, maxCacheSize < 1 { throw ValidationError("--max-cache-size must be at least 1 byte.") }
        if let proxy, ProxySettings(proxy: proxy) == nil { throw ValidationError("--proxy '\(proxy)' is not an http://host:port URL.") }
        if !HTTPFieldValue.isSendable(userAgent) {
            throw ValidationError("--user-agent cannot hold a control character (a line break would start another header).")
        }
        if !(debounce >= 0) { throw ValidationError("--debounce cannot be negative.") }
        if let maxWait, !(maxWait > 0) { throw ValidationError("--max-wait must be a positive number of seconds.") }
        for network in allowNetworks where AddressRange(network) == nil {
            throw ValidationError("--allow-network '\(network)' is not an IP address or CIDR block such as 10.2.0.0/16.")
        }
        if !allowNetworks.isEmpty, !denyPrivateNetworks {
            throw ValidationError("--allow-network only makes sense with --deny-private-networks.")
        }
    }

    /// `--deny-private-networks`, with the `--allow-network` exceptions.
    var privateNetworks: PrivateNetworkAccess {
        denyPrivateNetworks ? .denied(except: allowNetworks.compactMap(AddressRange.init)) : .allowed
    }

    /// The cache folder: `--cache-dir`, or `<out>/images`.
    var cacheFolder: String { cacheDirectory ?? (out as NSString).appendingPathComponent("images") }

    /// The manifest file: `--manifest`, or `<out>/imgcache-manifest.json`.
    var manifestPath: String { manifest ?? (out as NSString).appendingPathComponent("imgcache-manifest.json") }

    var cachePolicy: CachePolicy { CachePolicy(maxAge: maxAge, maxTotalBytes: maxCacheSize) }

    var certificateTrust: CertificateTrust { .fromEnvironment(adding: caCertificates) }

    var proxySettings: ProxySettings { proxy.flatMap(ProxySettings.init(proxy:)) ?? ProxySettings.fromEnvironment() }

    var downloadPolicy: DownloadPolicy {
        DownloadPolicy(
            concurrency: concurrency, perHostConcurrency: perHost ?? DownloadPolicy().perHostConcurrency,
            perHostStreams: min(maxStreams, perHost ?? maxStreams), timeout: .seconds(timeout),
            retries: retries, maxBytes: maxBytes, maxBytesInFlight: maxBytesInFlight, userAgent: userAgent,
            allowedHosts: allowHosts.isEmpty ? nil : Set(allowHosts),
            acceptedFormats: ImageFormat.accepted(forExtensions: page.parsedExtensions),
            privateNetworks: privateNetworks)
    }

    /// Rewrites that refer to the cache folder by a path relative to the output folder.
    var rewriteOptions: RewriteOptions {
        page.rewriteOptions(referenceStyle: .relativePath(RelativePath.from(folder: out, to: cacheFolder)))
    }
}

/// `--events`: the one format there is.
enum EventsFormat: String, ExpressibleByArgument, CaseIterable {
    case ndjson
}

/// `--mode`, spelled as the library's `FetchMode`.
enum ModeArgument: String, ExpressibleByArgument, CaseIterable {
    case build, live

    var mode: FetchMode { self == .build ? .build : .live }
}
#endif
