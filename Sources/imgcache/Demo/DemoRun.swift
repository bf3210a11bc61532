import Foundation
import ImgCache
import ImgCacheHTTPClient

/// The live pipeline of `imgcache demo`, what `fetch --mode live` does for one page URL: write
/// the fully rewritten page at once, download its images with progress and events, fire the
/// refresh, write the manifest. Only loopback hosts are contacted, never through a proxy.
struct DemoRun: Sendable {
    /// The output folder; images go to `<out>/images`.
    let out: String
    /// Seconds of idle downloads before a refresh.
    let debounce: Double
    /// `--events`.
    let events: EventsFormat?
    /// `--quiet`: no progress display.
    let quiet: Bool
    /// Tells the person watching what is going on (nothing when quiet).
    let narrate: @Sendable (String) -> Void

    /// What the run did.
    struct Outcome: Sendable {
        /// Images that could not be localised, by URL.
        var failures: [DownloadOutcome]
        /// Distinct images now in the cache.
        var localised: Int
        /// Distinct images the page references.
        var total: Int
        /// Seconds from the page request to the end of the downloads.
        var elapsed: Double
        /// Whether the manifest could not be written.
        var manifestFailed: Bool
    }

    /// Why the run could not get going (the page or the output).
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Hosts the demo may download from: its own server.
    static let loopbackHosts: Set<String> = ["127.0.0.1"]

    func run(pageURL: String) async throws -> Outcome {
        let start = ContinuousClock.now
        let cacheFolder = (out as NSString).appendingPathComponent("images")
        let naming = LocalImageNaming()
        let store: ImageCacheStore
        do {
            store = try ImageCacheStore(directory: cacheFolder, naming: naming)
            // The port, hence every image URL and name, changes from run to run: start empty so the
            // folder holds exactly this run's images, all of them really downloaded.
            try store.clear()
        } catch {
            throw Failure(description: "cannot use the cache folder \(cacheFolder): \(error)")
        }
        let transport = AsyncHTTPClientTransport(proxy: .direct, maxConnectionsPerHost: 8)
        let policy = DownloadPolicy(timeout: .seconds(20), allowedHosts: Self.loopbackHosts)
        let options = RewriteOptions(naming: naming, referenceStyle: .relativePath(RelativePath.from(folder: out, to: cacheFolder)))
        let style = options.referenceStyle
        let printer = events.map { _ in EventPrinter(localPath: { style.reference(to: $0) }) }
        let progress = quiet ? nil : ProgressDisplay()
        let notifier = RefreshNotifier(debounce: .milliseconds(Int64(debounce * 1000)), notificationCenter: nil) { event in
            printer?.print(event)
            progress?.record(event)
        }
        let downloader = ImageDownloader(transport: transport, store: store, policy: policy, onEvent: notifier.record)

        let loaded: LoadedPage
        do {
            guard let url = WebURL(pageURL) else { throw Failure(description: "\(pageURL) is not a URL") }
            loaded = try await PageLoader.load(url, transport: transport)
        } catch {
            await transport.shutdown()
            throw Failure(description: "cannot load the demo page: \(error)")
        }
        var pageOptions = options
        pageOptions.transportEncodingLabel = loaded.charset
        let destination = (out as NSString).appendingPathComponent("index.html")
        let localizer = PageLocalizer(rewriter: ImageRewriter(options: pageOptions), downloader: downloader)
        let result: PageLocalization
        do {
            result = try await localizer.localize(
                loaded.bytes, pageURL: loaded.url, mode: .live,
                imagesFound: { count in
                    narrate("\(count) distinct images referenced; writing the page before downloading them (live mode)")
                    progress?.addImages(count)
                },
                pageReady: { [narrate] rewritten in
                    try AtomicFile.write(rewritten.bytes, to: destination)
                    let rewrittenCount = rewritten.references.filter(\.rewritten).count
                    narrate("wrote \(destination) after " + Self.seconds(since: start)
                            + ": all \(rewrittenCount) image references already point into images/; downloading…")
                })
        } catch {
            _ = await notifier.finishInputAndWait()
            progress?.finish()
            await transport.shutdown()
            throw Failure(description: "\(error)")
        }
        let refresh = await notifier.finishInputAndWait()
        progress?.finish()
        await transport.shutdown()
        let elapsed = (ContinuousClock.now - start) / .seconds(1)
        if let refresh {
            narrate("refresh fired (\(refresh.reason.rawValue)): \(refresh.downloaded) downloaded, \(refresh.failed.count) failed "
                    + "— a viewer showing the page would reload it now")
        }
        for warning in result.page.warnings { Diagnostics.warn("\(pageURL): \(warning)") }

        var manifest = FetchManifest(cacheDirectory: cacheFolder)
        manifest.pages.append(FetchManifest.Page(
            input: pageURL, output: destination, pageURL: loaded.url.serialized,
            references: FetchManifest.entries(for: result.page.references, outcomes: result.outcomes)))
        let manifestPath = (out as NSString).appendingPathComponent("imgcache-manifest.json")
        var manifestFailed = false
        do {
            try AtomicFile.write(try manifest.encoded(), to: manifestPath)
        } catch {
            Diagnostics.error("cannot write the manifest: \(error)")
            manifestFailed = true
        }
        return Outcome(failures: result.failures, localised: result.outcomes.values.filter(\.isCached).count,
                       total: result.outcomes.count, elapsed: elapsed, manifestFailed: manifestFailed)
    }

    private static func seconds(since start: ContinuousClock.Instant) -> String {
        String(format: "%.2f s", (ContinuousClock.now - start) / .seconds(1))
    }
}
