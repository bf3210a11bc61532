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
        /// The encoding the file was read in.
        var encoding: HTMLEncoding
        /// The absolute URLs of the stylesheets a page links.
        var linkedStylesheets: [String]
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
            // No connection attempt outlives --timeout: one still going (to a server whose TLS
            // handshake stalls, say) after its image has failed would hold the end of the run.
            transport = try AsyncHTTPClientTransport(trust: settings.trust, proxy: settings.proxy,
                                                     connectTimeout: min(.seconds(10), settings.downloadPolicy.timeout),
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

    /// Reads (or fetches) a page or stylesheet, localises its images in `mode`, and writes the
    /// rewritten copy.
    /// - Parameters:
    ///   - referringEncoding: for a stylesheet that declares no encoding and is not ASCII, the
    ///     encoding of a page linking it (asked only then, since finding it may mean waiting).
    ///   - imagesFound: told how many distinct images the file has, before any is fetched.
    ///   - pageWritten: told when the file has been written, and where.
    /// - Throws: `PageLoadError` when a URL cannot be fetched, `FileError` when a file cannot be
    ///   read or written.
    func localize(_ input: FetchInput, mode: FetchMode,
                  referringEncoding: (@Sendable (WebURL?) async -> HTMLEncoding?)? = nil,
                  imagesFound: (@Sendable (Int) -> Void)? = nil,
                  pageWritten: (@Sendable (RewriteResult, String) -> Void)? = nil) async throws -> PageRun {
        var options = settings.rewriteOptions
        let bytes: [UInt8]
        var url = input.url
        if input.isRemote, let remote = WebURL(input.source) {
            let loaded = try await PageLoader.load(remote, transport: transport, userAgent: settings.downloadPolicy.userAgent,
                                                      privateNetworks: settings.downloadPolicy.privateNetworks)
            bytes = loaded.bytes
            url = loaded.url
            downloader.noteHTTPVersion(loaded.httpVersion, forOriginOf: loaded.url)
            // An explicit --charset beats the server's.
            if options.transportEncodingLabel == nil { options.transportEncodingLabel = loaded.charset }
        } else {
            bytes = try await Self.read(input.source)
        }
        let destination = input.output
        // Each file refers to the cache folder by the path from its own folder.
        options.referenceStyle = settings.referenceStyle(fromFolder: (destination as NSString).deletingLastPathComponent)
        if let site = input.site {
            options.isSiteFile = { site.relativePath(servingURL: $0) != nil }
        }
        let document: LocalizedDocument
        switch input.kind {
        case .stylesheet:
            let needsReferrer = StylesheetEncoding.needsReferringEncoding(bytes)
            document = .stylesheet(referringEncoding: needsReferrer ? await referringEncoding?(url) : nil)
        case .page, .asset:
            document = .page
        }
        let localizer = PageLocalizer(rewriter: ImageRewriter(options: options), downloader: downloader)
        let progress = self.progress
        let printer = self.printer
        let name = input.name
        let result = try await localizer.localize(
            bytes, pageURL: url, document: document, mode: mode,
            imagesFound: { count in
                progress?.addImages(count)
                imagesFound?(count)
            },
            pageReady: { rewritten in
                try await Self.write(rewritten, to: destination)
                printer?.printPage(input: name, output: destination, rewritten: rewritten)
                pageWritten?(rewritten, destination)
            })
        for warning in result.page.warnings { Diagnostics.warn("\(name): \(warning)") }
        let counts = Dictionary(grouping: result.outcomes.values, by: \.status).mapValues(\.count)
        let summary = [DownloadStatus.downloaded, .revalidated, .cached, .failed, .skipped]
            .compactMap { status in counts[status].map { "\($0) \(status.rawValue)" } }
            .joined(separator: ", ")
        let linked = result.page.linkedStylesheets
        let page = FetchManifest.Page(input: name, kind: input.kind == .stylesheet ? .stylesheet : .page, output: destination,
                                      pageURL: url?.serialized,
                                      references: FetchManifest.entries(for: result.page.references, outcomes: result.outcomes),
                                      stylesheets: linked.isEmpty ? nil : linked)
        return PageRun(manifestPage: page, outcomes: result.outcomes, failures: result.failures, encoding: result.page.encoding,
                       linkedStylesheets: linked,
                       summaryLine: "\(name): \(result.outcomes.count) images (\(summary.isEmpty ? "none" : summary)) -> \(destination)")
    }

    /// ``localize(_:mode:referringEncoding:imagesFound:pageWritten:)`` for one argument given on its own.
    func localize(_ argument: String, mode: FetchMode,
                  imagesFound: (@Sendable (Int) -> Void)? = nil,
                  pageWritten: (@Sendable (RewriteResult, String) -> Void)? = nil) async throws -> PageRun {
        try await localize(.single(argument, out: settings.out, baseURL: settings.baseURL), mode: mode,
                           imagesFound: imagesFound, pageWritten: pageWritten)
    }

    /// Reads a file on a Dispatch thread: file work stays off the cooperative pool.
    static func read(_ path: String) async throws -> [UInt8] {
        try await onFileThread { try AtomicFile.read(path) }
    }

    /// Writes a rewritten page atomically, in pieces, on a Dispatch thread.
    static func write(_ page: RewriteResult, to path: String) async throws {
        try await onFileThread { try page.write(toFile: path) }
    }

    /// Copies a site file into the output (a hard link where possible) on a Dispatch thread.
    static func copy(_ copy: FetchCopy) async throws {
        _ = try await onFileThread { try AtomicFile.place(copyOf: copy.source, at: copy.output) }
    }

    private static let fileQueue = DispatchQueue(label: "imgcache.files", qos: .userInitiated, attributes: .concurrent)

    private static func onFileThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            fileQueue.async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Writes the manifest for `pages` (atomically).
    func writeManifest(_ pages: [FetchManifest.Page]) throws {
        let manifest = FetchManifest(cacheDirectory: settings.cacheFolder, pages: pages)
        try AtomicFile.write(to: settings.manifestPath) { emit in try manifest.encode(into: emit) }
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
