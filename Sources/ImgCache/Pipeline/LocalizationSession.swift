import Foundation
import ImgCacheSupport
import ImgCacheURLs
import ImgCacheMarkup
import ImgCacheStore

/// The pipeline that makes pages work offline: find a page's images, download them into the
/// cache, rewrite the page to use them, and announce the refresh a viewer reloads on.
///
/// One session serves any number of pages, stylesheets and site folders: they share its
/// downloader (each distinct image is fetched once, under one set of limits), its cache and its
/// ``notifier`` (one outstanding count, one refresh for all of them). An app keeps one for as
/// long as it shows pages (``OfflinePageLoader`` wraps one); a build step makes one, localises a
/// folder with ``localize(_:mode:filesAtOnce:imagesFound:written:)``, and calls ``finish()``.
///
/// Build it from a ``Configuration``:
///
/// ```swift
/// let store = try ImageCacheStore(directory: cacheFolder)
/// let session = LocalizationSession(.init(store: store, transport: URLSessionTransport()))
/// let result = try await session.localize(.bytes(html, url: pageURL, output: pagePath), mode: .build)
/// result.failures   // the images left remote
/// ```
public final class LocalizationSession: Sendable {
    /// What the session was built from.
    public let configuration: Configuration
    /// The cache the images go into.
    package var store: ImageCacheStore { configuration.store }
    /// Announces `started`, `finished`, `failed` and the debounced `refresh`.
    public let notifier: RefreshNotifier
    let downloader: ImageDownloader
    /// Where the session's file work runs (``Configuration/fileWork``).
    let fileWork: FileWork
    /// Reads and rewrites every document of the session: made once, since what it looks for is
    /// the same for all of them (a file's copy changes only where it refers to the cache from).
    let rewriter: ImageRewriter
    /// What pages opened through ``OfflinePageLoader`` wait for, for its waiting image requests.
    let arrivals = ImageArrivals()

    /// Creates a session.
    /// - Parameters:
    ///   - configuration: the cache, the transport and the policies.
    ///   - onEvent: called with every event the ``notifier`` reports, in order, never twice at
    ///     once (see ``RefreshNotifier``); ``RefreshNotifier/events()`` gives the same as streams.
    public init(_ configuration: Configuration, onEvent: (@Sendable (ImageEvent) -> Void)? = nil) {
        self.configuration = configuration
        notifier = RefreshNotifier(debounce: configuration.debounce, maxWait: configuration.maxWait, clock: configuration.clock,
                                   notificationCenter: configuration.notificationCenter, onEvent: onEvent)
        rewriter = ImageRewriter(options: configuration.rewriting, naming: configuration.store.naming)
        let fileWork = FileWork(placement: configuration.fileWork)
        self.fileWork = fileWork
        let notifier = self.notifier
        let arrivals = self.arrivals
        // The arrivals first: a request woken by an outcome finds what the notifier announces.
        downloader = ImageDownloader(transport: configuration.transport, store: configuration.store,
                                     policy: configuration.downloadPolicy, fileWork: fileWork,
                                     onEvent: { event in
                                         arrivals.record(event)
                                         notifier.record(event)
                                     },
                                     clock: configuration.clock)
    }

    /// The outstanding count: images that need the network and are not done yet (queued or in
    /// flight). The refresh comes once it has stayed zero for the debounce.
    public var outstandingCount: Int { downloader.outstandingCount }

    // MARK: - One page or stylesheet

    /// Localises one page or stylesheet: reads it (a file, a URL, or bytes you have), finds its
    /// images, downloads them into the cache, rewrites it, and writes the copy to the input's
    /// ``LocalizationInput/output`` (atomically), if it has one.
    ///
    /// A file read from disk or fetched refers to the cache by the path from its output's folder
    /// (unless the reference style is a URL prefix); bytes refer to it as the configuration's
    /// ``RewriteOptions/referenceStyle`` says.
    /// - Parameters:
    ///   - input: the page or stylesheet, where it comes from and where its copy goes
    ///     (``LocalizationInput/bytes(_:url:kind:output:)`` for bytes).
    ///   - mode: `.build` rewrites once the downloads are settled, keeping failed images remote;
    ///     `.live` rewrites everything first and hands the file over (and writes it) before
    ///     downloading, and again once images whose URL names no format have been named by their
    ///     bytes (the refresh waits for that).
    ///   - referringEncoding: for a stylesheet that declares no encoding and is not ASCII, the
    ///     encoding of a page linking it (asked only then, since finding it may mean waiting).
    ///   - imagesFound: told how many distinct images the file has, before any is fetched.
    ///   - pageReady: receives the rewritten file each time it is final for the mode, once it is
    ///     written when the input has an output (twice in live mode when images named by their
    ///     bytes come in).
    /// - Returns: what became of the file and its images; ``FileLocalization/page`` is the
    ///   rewritten file when the input has no output.
    /// - Throws: `PageLoadError` when a URL cannot be fetched, `FileError` when a file cannot be
    ///   read or written, and what `pageReady` throws.
    public func localize(
        _ input: LocalizationInput, mode: FetchMode,
        referringEncoding: (@Sendable (BrowserURL?) async -> HTMLEncoding?)? = nil,
        imagesFound: (@Sendable (Int) -> Void)? = nil,
        pageReady: (@Sendable (RewriteResult) async throws -> Void)? = nil
    ) async throws -> FileLocalization {
        try await run(LocalizationRequest(input, mode: mode, referringEncoding: referringEncoding,
                                          imagesFound: imagesFound, pageReady: pageReady)).file
    }

    /// The one way a document is localised, whatever asked for it.
    func run(_ request: LocalizationRequest) async throws -> LocalizationRequest.Outcome {
        let input = request.input
        let loaded = try await read(input)
        var rewriter = self.rewriter
        if loaded.refersFromOutputFolder, let output = input.output {
            rewriter.options.referenceStyle = referenceStyle(fromFolder: output.parentPath)
        }
        let document: LocalizedDocument
        switch input.kind {
        case .stylesheet:
            let needsReferrer = StylesheetEncoding.needsReferringEncoding(loaded.bytes)
            document = .stylesheet(referringEncoding: needsReferrer ? await request.referringEncoding?(loaded.url) : nil)
        case .page, .asset:
            document = .page
        }
        let scan = rewriter.scan(loaded.bytes, as: document, url: loaded.url, transportCharset: loaded.transportCharset,
                                 site: input.site, awayFromOrigin: loaded.awayFromOrigin)
        let untyped = scan.untypedImageURLs
        let known = untyped.isEmpty ? [:] : await fileWork.run { self.cachedNames(of: untyped) }
        let prepared = PreparedDocument(rewriter: rewriter, scan: scan, knownNames: known)
        let images = prepared.imagesToFetch()
        request.imagesFound?(images.count)
        let live = request.mode == .live
        // In live mode a page may be written again once its images are in (named by their bytes,
        // or picks replaced), and the refresh (the moment a viewer reloads) must come after that write.
        let hold = live && prepared.mayBeWrittenAgain ? notifier.hold() : nil
        defer { hold?.release() }
        if live { try await write(prepared.firstRewrite, of: input) }
        // Before the viewer hears of the page: a request for one of its images must find it expected.
        let expected = request.isShownWhileLoading ? arrivals.expect(images.map(\.url), localNames: Self.localNames(in: prepared.firstRewrite)) : nil
        if live { try await request.pageReady?(prepared.firstRewrite) }
        let results = await fetchImages(images, of: prepared)
        if let expected { arrivals.pageFinished(expected, outcomes: results) }
        let outcomes = Dictionary(results.map { ($0.url, $0) }, uniquingKeysWith: { first, _ in first })
        var page = prepared.firstRewrite
        if let final = live ? prepared.namingTypedImages(from: results) : prepared.keepingFailuresRemote(results) {
            let written: Bool
            if request.isShownWhileLoading {
                written = (try? await write(final, of: input)) != nil
            } else {
                try await write(final, of: input)
                written = true
            }
            if written {
                page = final
                try await request.pageReady?(final)
            }
            hold?.release(rewrittenPage: request.isShownWhileLoading && written ? input.output : nil)
        }
        let linked = page.linkedStylesheets
        let record = FetchManifest.Page(input: input.name, kind: input.kind == .stylesheet ? .stylesheet : .page,
                                        output: input.output ?? "", pageURL: loaded.url?.serialized,
                                        references: FetchManifest.entries(for: page.references, outcomes: outcomes),
                                        stylesheets: linked.isEmpty ? nil : linked,
                                        absoluteLinks: input.kind == .stylesheet ? nil : rewriter.options.otherURLs.makesAbsolute(awayFromOrigin: loaded.awayFromOrigin))
        let file = FileLocalization(input: input, manifestRecord: record, page: page, outcomes: outcomes)
        return LocalizationRequest.Outcome(file: file, fetched: results)
    }

    /// A document's bytes and what they are read against.
    private struct ReadDocument: Sendable {
        var bytes: [UInt8]
        /// Where it is served from: a fetched page's final URL.
        var url: BrowserURL?
        var transportCharset: String?
        /// Whether it is written away from where it was loaded from (see ``RewriteOptions/otherURLs``).
        var awayFromOrigin: Bool
        /// Whether its copy refers to the cache by the path from the output's folder (a file or a
        /// URL), rather than as the configuration says (bytes).
        var refersFromOutputFolder = true
    }

    /// Reads (or fetches) an input's bytes.
    private func read(_ input: LocalizationInput) async throws -> ReadDocument {
        switch input.source {
        case .bytes(let bytes):
            // A charset the transport declared beats the configuration's.
            return ReadDocument(bytes: bytes, url: input.url,
                                transportCharset: input.transportCharset ?? rewriter.options.transportEncodingLabel,
                                awayFromOrigin: true, refersFromOutputFolder: false)
        case .url(let remote):
            let loaded = try await loadPage(remote)
            // A charset the configuration names beats the server's.
            return ReadDocument(bytes: loaded.bytes, url: loaded.url,
                                transportCharset: rewriter.options.transportEncodingLabel ?? loaded.charset, awayFromOrigin: true)
        case .file(let path):
            // A site's file must still be the regular file its listing found: a symbolic link put
            // in its place could point anywhere on the machine. A page given on its own is read
            // wherever its name leads, as the person who named it meant.
            let isSiteFile = input.site != nil
            let bytes = try await fileWork.runDocumentFileWork {
                try isSiteFile ? AtomicFile.readRegularFile(path) : AtomicFile.read(path)
            }
            // A site folder's other files are copied beside its pages; a page given on its own
            // is written where its author may have put its assets.
            return ReadDocument(bytes: bytes, url: input.url, transportCharset: rewriter.options.transportEncodingLabel,
                                awayFromOrigin: false)
        }
    }

    /// Writes a rendering to the input's output, if it has one.
    private func write(_ page: RewriteResult, of input: LocalizationInput) async throws {
        guard let output = input.output else { return }
        try await fileWork.runDocumentFileWork { try page.write(toFile: output) }
    }

    /// The local name of each image the page points into the cache, with its URL.
    private static func localNames(in page: RewriteResult) -> [(localName: String, url: BrowserURL)] {
        page.references.compactMap { reference in
            guard reference.rewritten, let name = reference.localName, let url = reference.url.flatMap({ BrowserURL($0) }) else { return nil }
            return (name, url)
        }
    }

    /// Fetches a document's images; for a page read for devices, a device whose image failed
    /// then has the one it would pick without it fetched, in turn, until every device has an
    /// image in or no candidate is left to try. Outcomes of all of them.
    func fetchImages(_ images: [ImageToFetch], of prepared: PreparedDocument) async -> [DownloadOutcome] {
        var results = await downloader.fetchAll(images)
        guard prepared.choosesPerDevice else { return results }
        var tried = Set(images.lazy.map(\.url.serialized))
        while true {
            let instead = prepared.imagesInstead(of: PreparedDocument.failedURLs(in: results)).filter { tried.insert($0.url.serialized).inserted }
            guard !instead.isEmpty else { return results }
            results += await downloader.fetchAll(instead)
        }
    }

    /// The cache names of images whose URL names no format, for those the cache has seen (it
    /// reads the cache's index: call it off the cooperative pool).
    func cachedNames(of urls: [String]) -> [String: String] {
        let parsed = urls.compactMap { text in BrowserURL(text).map { (text, $0) } }
        let names = store.localNames(for: parsed.map(\.1))
        var known: [String: String] = [:]
        for ((text, _), name) in zip(parsed, names) {
            if let name { known[text] = name }
        }
        return known
    }

    /// Makes sure these images are in the cache (fetching those that are not, or are stale),
    /// as a page's images are: for images an app knows it will show. Outcomes in input order.
    public func fetch(_ urls: [BrowserURL]) async -> [DownloadOutcome] {
        await downloader.fetchAll(urls)
    }


    /// Fetches a page (or stylesheet) as the download policy allows (user agent, private networks),
    /// and lets its origin's images start at the HTTP version it came over.
    /// - Throws: `PageLoadError`.
    func loadPage(_ url: BrowserURL) async throws -> LoadedPage {
        let policy = configuration.downloadPolicy
        let page = try await PageLoader.load(url, transport: configuration.transport, userAgent: policy.userAgent,
                                             privateNetworks: policy.privateNetworks)
        downloader.noteHTTPVersion(page.httpVersion, forOriginOf: page.url)
        return page
    }

    /// How a file written in `folder` refers to the cache: the cache folder's path from there, or
    /// the configured URL prefix.
    func referenceStyle(fromFolder folder: String) -> LocalReferenceStyle {
        if case .urlPrefix = configuration.rewriting.referenceStyle { return configuration.rewriting.referenceStyle }
        return .relativePath(RelativePath.from(folder: folder.isEmpty ? "." : folder, to: store.directory))
    }

    /// Copies a site file into the output as it is (a hard link where possible), atomically.
    /// - Throws: `FileError` naming the file.
    package func copy(_ copy: SiteFileCopy) async throws {
        // Always off the pool: a copy (where a hard link cannot be made) is as long as the file.
        _ = try await fileWork.runForDocument { try AtomicFile.place(copyOf: copy.source, at: copy.output) }
    }

    // MARK: - Ending

    /// Stops the downloads under way: they end as failed (cancelled) and nothing half-written is left.
    public func cancelDownloads() async {
        await downloader.cancelAll()
    }

    /// Declares that no more files will come, waits for the final refresh (at once if nothing is
    /// downloading), and closes the transport's connections.
    /// - Returns: the summary of the refresh fired after the call, if any.
    @discardableResult
    public func finish() async -> RefreshSummary? {
        let refresh = await notifier.finishInputAndWait()
        await configuration.transport.shutdown()
        return refresh
    }
}
