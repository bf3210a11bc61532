import Foundation
import ImgCache
import ImgCacheHTTPClient

/// One run of the download pipeline shared by `fetch`, `watch` and `demo`: the cache, the
/// transport, the downloader and the refresh notifier wired to the event printer, the progress
/// display and the `--on-refresh` hook. Pages are localised one call at a time; ``finish()``
/// waits for the last refresh and closes the connections.
final class FetchSession: Sendable {
    let settings: FetchSettings
    let store: ImageCacheStore
    let downloader: ImageDownloader
    let notifier: RefreshNotifier
    private let transport: AsyncHTTPClientTransport
    private let printer: EventPrinter?
    private let progress: ProgressDisplay?

    /// What localising one page produced.
    struct PageRun: Sendable {
        /// The page's part of the manifest.
        var manifestPage: FetchManifest.Page
        /// What happened to each distinct image, by absolute URL.
        var outcomes: [String: DownloadOutcome]
        /// The images that could not be localised.
        var failures: [DownloadOutcome]
        /// "page.html: 20 images (18 downloaded, 2 failed) -> out/page.html"
        var summaryLine: String
    }

    /// Why the session could not start.
    struct StartError: Error, CustomStringConvertible {
        let description: String
    }

    init(settings: FetchSettings) throws {
        self.settings = settings
        do {
            store = try ImageCacheStore(directory: settings.cacheFolder, naming: settings.rewriteOptions.naming,
                                        policy: settings.cachePolicy)
        } catch {
            throw StartError(description: "cannot use the cache folder \(settings.cacheFolder): \(error)")
        }
        do {
            transport = try AsyncHTTPClientTransport(trust: settings.trust, proxy: settings.proxy,
                                                     maxConnectionsPerHost: settings.downloadPolicy.perHostConcurrency)
        } catch let error as CertificateTrustError {
            let option = settings.trust.additionalCAFiles.contains(error.path) ? "--cacert" : "SSL_CERT_FILE/SSL_CERT_DIR"
            throw StartError(description: "\(option) \(error)")
        }
        let style = settings.rewriteOptions.referenceStyle
        let printer = settings.printsEvents ? EventPrinter(localPath: { style.reference(to: $0) }) : nil
        let progress = settings.quiet ? nil : ProgressDisplay()
        let hook = settings.onRefresh.map(RefreshHook.init(command:))
        notifier = RefreshNotifier(debounce: settings.debounce, maxWait: settings.maxWait, notificationCenter: nil) { event in
            printer?.print(event)
            progress?.record(event)
            if case .refresh(let summary) = event { hook?.run(summary) }
        }
        self.printer = printer
        self.progress = progress
        downloader = ImageDownloader(transport: transport, store: store, policy: settings.downloadPolicy,
                                     onEvent: notifier.record)
    }

    /// Advice for failures a person can fix with an option: certificates from a CA that is not trusted.
    static func hint(for failures: [DownloadOutcome]) -> String? {
        failures.lazy.compactMap { hint(forReason: $0.error ?? "") }.first
    }

    /// ``hint(for:)`` for one failure's reason.
    static func hint(forReason reason: String) -> String? {
        let untrusted = reason.contains("TLS certificate") && reason.contains("trusted")
        return untrusted ? "to trust a company's or a test server's CA, pass its certificate with --cacert FILE (PEM)" : nil
    }

    /// Where the page read from `input` is written: `<out>/<file name>`; for a URL, its last path
    /// segment (percent-decoded), or `index.html` when the path ends in `/`.
    static func outputPath(for input: String, out: String) -> String {
        let name: String
        if let url = WebURL(input), url.isHTTP {
            let last = url.path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? ""
            name = last.isEmpty ? "index.html" : PercentEncodingForNames.decoded(last)
        } else {
            name = (input as NSString).lastPathComponent
        }
        return (out as NSString).appendingPathComponent(name)
    }

    /// A reason to refuse these inputs before doing anything: two of them would be written to the
    /// same output file, or one would be overwritten by its own output.
    static func conflict(among inputs: [String], out: String) -> String? {
        var firstInput: [String: String] = [:]
        for input in inputs {
            let output = canonicalPath(outputPath(for: input, out: out))
            if let other = firstInput[output], other != input {
                return "'\(other)' and '\(input)' would both be written to \(output); fetch them into different --out folders"
            }
            firstInput[output] = input
            if WebURL(input).map(\.isHTTP) != true, canonicalPath(input) == output {
                return "'\(input)' would be overwritten by its rewritten copy; choose another --out folder"
            }
        }
        return nil
    }

    private static func canonicalPath(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// Reads (or fetches) `input`, localises its images in `mode`, and writes the rewritten page.
    /// - Parameters:
    ///   - imagesFound: told how many distinct images the page has, before any is fetched.
    ///   - pageWritten: told when the page file has been written, and where.
    /// - Throws: `PageLoadError` when a URL cannot be fetched, `FileError` when a file cannot be
    ///   read or written.
    func localize(_ input: String, mode: FetchMode,
                  imagesFound: (@Sendable (Int) -> Void)? = nil,
                  pageWritten: (@Sendable (RewriteResult, String) -> Void)? = nil) async throws -> PageRun {
        var options = settings.rewriteOptions
        let bytes: [UInt8]
        let pageURL: WebURL?
        if let url = WebURL(input), url.isHTTP {
            let loaded = try await PageLoader.load(url, transport: transport, userAgent: settings.downloadPolicy.userAgent)
            bytes = loaded.bytes
            pageURL = loaded.url
            downloader.noteHTTPVersion(loaded.httpVersion, forOriginOf: loaded.url)
            // An explicit --charset beats the server's.
            if options.transportEncodingLabel == nil { options.transportEncodingLabel = loaded.charset }
        } else {
            bytes = try AtomicFile.read(input)
            pageURL = settings.baseURL
        }
        let destination = Self.outputPath(for: input, out: settings.out)
        let localizer = PageLocalizer(rewriter: ImageRewriter(options: options), downloader: downloader)
        let progress = self.progress
        let printer = self.printer
        let result = try await localizer.localize(
            bytes, pageURL: pageURL, mode: mode,
            imagesFound: { count in
                progress?.addImages(count)
                imagesFound?(count)
            },
            pageReady: { rewritten in
                try AtomicFile.write(rewritten.bytes, to: destination)
                printer?.printPage(input: input, output: destination, rewritten: rewritten)
                pageWritten?(rewritten, destination)
            })
        for warning in result.page.warnings { Diagnostics.warn("\(input): \(warning)") }
        let counts = Dictionary(grouping: result.outcomes.values, by: \.status).mapValues(\.count)
        let summary = [DownloadStatus.downloaded, .revalidated, .cached, .failed, .skipped]
            .compactMap { status in counts[status].map { "\($0) \(status.rawValue)" } }
            .joined(separator: ", ")
        let page = FetchManifest.Page(input: input, output: destination, pageURL: pageURL?.serialized,
                                      references: FetchManifest.entries(for: result.page.references, outcomes: result.outcomes))
        return PageRun(manifestPage: page, outcomes: result.outcomes, failures: result.failures,
                       summaryLine: "\(input): \(result.outcomes.count) images (\(summary.isEmpty ? "none" : summary)) -> \(destination)")
    }

    /// Writes the manifest for `pages` (atomically).
    func writeManifest(_ pages: [FetchManifest.Page]) throws {
        let manifest = FetchManifest(cacheDirectory: settings.cacheFolder, pages: pages)
        try AtomicFile.write(try manifest.encoded(), to: settings.manifestPath)
    }

    /// Stops the downloads under way: they end as failed (`cancelled`) and nothing half-written is left.
    func cancelDownloads() async {
        await downloader.cancelAll()
    }

    /// Declares that no more pages will come, waits for the final refresh (at once if nothing is
    /// downloading), ends the progress display and closes the connections.
    @discardableResult
    func finish() async -> RefreshSummary? {
        let refresh = await notifier.finishInputAndWait()
        progress?.finish()
        await transport.shutdown()
        return refresh
    }
}

/// A URL path segment made into a file name: percent-escapes decoded, slashes kept out.
enum PercentEncodingForNames {
    static func decoded(_ segment: String) -> String {
        let decoded = segment.removingPercentEncoding ?? segment
        let safe = decoded.replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "\0", with: "_")
        return safe == "." || safe == ".." ? "index.html" : safe
    }
}
