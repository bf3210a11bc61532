import ArgumentParser
import Foundation
import ImgCache
import ImgCacheHTTPClient

struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Downloads pages' images into a cache folder and writes the pages rewritten to use them.",
        discussion: """
            Exit status: 0 when every image was localised; 2 when some could not be (one line per \
            failure on standard error); 1 when a page or file could not be read or written; 64 for \
            a usage error.
            """
    )

    @Argument(help: "HTML files or http(s) URLs.")
    var inputs: [String]

    @Option(name: .customLong("base-url"), help: "The URL local pages are served from (a fetched page's own URL is used for it).")
    var baseURL: String?

    @Option(help: "Output folder for the pages.")
    var out: String = "imgcache-out"

    @Option(name: .customLong("cache-dir"), help: "Cache folder (default: <out>/images).")
    var cacheDirectory: String?

    @Option(help: "build: wait for downloads and rewrite what is cached; live: rewrite everything first, then download.")
    var mode: ModeArgument = .build

    @Option(help: "Manifest file (default: <out>/imgcache-manifest.json).")
    var manifest: String?

    @Option(help: "Images fetched at once.")
    var concurrency: Int = 16

    @Option(name: .customLong("per-host"), help: "Images fetched at once from one host.")
    var perHost: Int = 8

    @Option(help: "Seconds one image may take, retries and redirects included.")
    var timeout: Double = 30

    @Option(help: "Retries after a connection failure or a 5xx.")
    var retries: Int = 2

    @Option(name: .customLong("max-bytes"), help: "Largest image accepted, in bytes.")
    var maxBytes: Int = 20 * 1024 * 1024

    @Option(name: .customLong("max-age"), help: "Seconds before a cached image is revalidated (0: always).")
    var maxAge: Double?

    @Option(name: .customLong("max-cache-size"), help: "Cache size cap in bytes; least recently used images are evicted.")
    var maxCacheSize: Int?

    @Option(name: .customLong("allow-host"), help: "Only download images from this host (repeatable).")
    var allowHosts: [String] = []

    @Option(name: .customLong("user-agent"), help: "User-Agent header.")
    var userAgent: String = DownloadPolicy.defaultUserAgent

    @Option(help: "HTTP proxy for all requests, e.g. http://proxy:3128 (default: http_proxy/https_proxy/no_proxy).")
    var proxy: String?

    @Option(help: "Comma-separated image extensions to localise.")
    var extensions: String = LocalImageNaming.defaultExtensions.sorted().joined(separator: ",")

    @Option(help: "Print every event (started, finished, failed, refresh) on standard output: ndjson.")
    var events: EventsFormat?

    @Option(help: "Seconds downloads must have been idle before a refresh event (0 allowed).")
    var debounce: Double = 2

    @Option(name: .customLong("on-refresh"), help: "Shell command run after each refresh, with IMGCACHE_DOWNLOADED, IMGCACHE_FAILED, … set.")
    var onRefresh: String?

    @Flag(help: "No progress display and no per-page summary; failures and warnings still go to standard error.")
    var quiet = false

    func validate() throws {
        if inputs.isEmpty { throw ValidationError("Give at least one page: a file or an http(s) URL.") }
        if let baseURL, WebURL(baseURL) == nil { throw ValidationError("--base-url '\(baseURL)' is not an absolute URL.") }
        if concurrency < 1 { throw ValidationError("--concurrency must be at least 1.") }
        if perHost < 1 { throw ValidationError("--per-host must be at least 1.") }
        if !(timeout > 0) { throw ValidationError("--timeout must be a positive number of seconds.") }
        if retries < 0 { throw ValidationError("--retries cannot be negative.") }
        if maxBytes < 1 { throw ValidationError("--max-bytes must be at least 1.") }
        if let maxAge, maxAge < 0 { throw ValidationError("--max-age cannot be negative.") }
        if let maxCacheSize, maxCacheSize < 1 { throw ValidationError("--max-cache-size must be at least 1 byte.") }
        if let proxy, ProxySettings(proxy: proxy) == nil { throw ValidationError("--proxy '\(proxy)' is not an http://host:port URL.") }
        if imageExtensions.isEmpty { throw ValidationError("--extensions needs at least one extension, such as jpg,png.") }
        if !(debounce >= 0) { throw ValidationError("--debounce cannot be negative.") }
    }

    private var imageExtensions: Set<String> {
        Set(extensions.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty })
    }

    func run() async throws {
        let cacheFolder = cacheDirectory ?? (out as NSString).appendingPathComponent("images")
        let naming = LocalImageNaming(extensions: imageExtensions)
        let store: ImageCacheStore
        do {
            store = try ImageCacheStore(directory: cacheFolder, naming: naming,
                                        policy: CachePolicy(maxAge: maxAge, maxTotalBytes: maxCacheSize))
        } catch {
            Diagnostics.error("cannot use the cache folder \(cacheFolder): \(error)")
            throw ExitCode.failure
        }
        let proxySettings = proxy.flatMap(ProxySettings.init(proxy:)) ?? ProxySettings.fromEnvironment()
        let transport = AsyncHTTPClientTransport(proxy: proxySettings, maxConnectionsPerHost: perHost)
        let policy = DownloadPolicy(
            concurrency: concurrency, perHostConcurrency: perHost, timeout: .milliseconds(Int64(timeout * 1000)),
            retries: retries, maxBytes: maxBytes, userAgent: userAgent,
            allowedHosts: allowHosts.isEmpty ? nil : Set(allowHosts),
            acceptedFormats: ImageFormat.accepted(forExtensions: imageExtensions))
        let rewriteOptions = RewriteOptions(naming: naming, referenceStyle: .relativePath(RelativePath.from(folder: out, to: cacheFolder)))
        let style = rewriteOptions.referenceStyle
        let printer = events.map { _ in EventPrinter(localPath: { style.reference(to: $0) }) }
        let progress = quiet ? nil : ProgressDisplay()
        let hook = onRefresh.map(RefreshHook.init(command:))
        let notifier = RefreshNotifier(debounce: .milliseconds(Int64(debounce * 1000)), notificationCenter: nil) { event in
            printer?.print(event)
            progress?.record(event)
            if case .refresh(let summary) = event { hook?.run(summary) }
        }
        let downloader = ImageDownloader(transport: transport, store: store, policy: policy, onEvent: notifier.record)

        var report = FetchManifest(cacheDirectory: cacheFolder)
        var ioFailed = false
        var failures: [DownloadOutcome] = []
        var notes: [String] = []
        for input in inputs {
            do {
                let (page, failed, note) = try await localize(input, rewriteOptions: rewriteOptions, downloader: downloader,
                                                              transport: transport, progress: progress)
                report.pages.append(page)
                failures += failed
                notes.append(note)
            } catch let error as PageLoadError {
                Diagnostics.error(error.description)
                ioFailed = true
            } catch let error as FileError {
                Diagnostics.error(error.description)
                ioFailed = true
            }
        }
        _ = await notifier.finishInputAndWait()
        progress?.finish()
        if !quiet { notes.forEach(Diagnostics.note) }
        await transport.shutdown()

        let manifestPath = manifest ?? (out as NSString).appendingPathComponent("imgcache-manifest.json")
        do {
            try AtomicFile.write(try report.encoded(), to: manifestPath)
        } catch {
            Diagnostics.error("cannot write the manifest: \(error)")
            ioFailed = true
        }
        for failure in failures {
            Diagnostics.note("imgcache: failed: \(failure.url): \(failure.error ?? "unknown error")")
        }
        if ioFailed { throw ExitCode.failure }
        if !failures.isEmpty { throw ExitCode(2) }
    }

    private func localize(_ input: String, rewriteOptions: RewriteOptions, downloader: ImageDownloader,
                          transport: any ImageTransport, progress: ProgressDisplay?) async throws -> (FetchManifest.Page, [DownloadOutcome], String) {
        var options = rewriteOptions
        let bytes: [UInt8]
        let pageURL: WebURL?
        let outputName: String
        if let url = WebURL(input), url.isHTTP {
            let loaded = try await PageLoader.load(url, transport: transport, userAgent: userAgent)
            bytes = loaded.bytes
            pageURL = loaded.url
            options.transportEncodingLabel = loaded.charset
            let last = loaded.url.path.split(separator: "/").last.map(String.init) ?? ""
            outputName = last.isEmpty ? "index.html" : String(decoding: PercentEncodingForNames.decoded(last).utf8, as: UTF8.self)
        } else {
            bytes = try AtomicFile.read(input)
            pageURL = baseURL.flatMap { WebURL($0) }
            outputName = (input as NSString).lastPathComponent
        }
        let destination = (out as NSString).appendingPathComponent(outputName)
        let localizer = PageLocalizer(rewriter: ImageRewriter(options: options), downloader: downloader)
        let result = try await localizer.localize(bytes, pageURL: pageURL, mode: mode.mode, imagesFound: { progress?.addImages($0) }) { rewritten in
            try AtomicFile.write(rewritten.bytes, to: destination)
        }
        for warning in result.page.warnings { Diagnostics.warn("\(input): \(warning)") }
        let counts = Dictionary(grouping: result.outcomes.values, by: \.status).mapValues(\.count)
        let summary = [DownloadStatus.downloaded, .revalidated, .cached, .failed, .skipped]
            .compactMap { status in counts[status].map { "\($0) \(status.rawValue)" } }
            .joined(separator: ", ")
        let note = "\(input): \(result.outcomes.count) images (\(summary.isEmpty ? "none" : summary)) -> \(destination)"
        let page = FetchManifest.Page(input: input, output: destination, pageURL: pageURL?.serialized,
                                      references: FetchManifest.entries(for: result.page.references, outcomes: result.outcomes))
        return (page, result.failures, note)
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

/// A URL path segment made into a file name: percent-escapes decoded, slashes kept out.
enum PercentEncodingForNames {
    static func decoded(_ segment: String) -> String {
        let decoded = segment.removingPercentEncoding ?? segment
        let safe = decoded.replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "\0", with: "_")
        return safe == "." || safe == ".." ? "index.html" : safe
    }
}
