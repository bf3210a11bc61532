import Foundation

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
/// let result = try await session.localize(html, url: pageURL, mode: .build)
/// try result.page.write(toFile: pagePath)
/// ```
public final class LocalizationSession: Sendable {
    /// What the session was built from.
    public let configuration: Configuration
    /// The cache the images go into.
    public var store: ImageCacheStore { configuration.store }
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

    // MARK: - Pages and stylesheets in memory

    /// Localises one page or stylesheet given as bytes.
    /// - Parameters:
    ///   - bytes: the file's bytes, in whatever encoding it uses.
    ///   - url: where it is served from; relative references resolve against it, and with
    ///     ``RewriteOptions/otherURLs`` `.automatic` its URLs that are not images become absolute
    ///     (the page is taken to be written away from its origin).
    ///   - document: a page (the default) or a stylesheet.
    ///   - mode: `.build` rewrites once the downloads are done, keeping failed images remote;
    ///     `.live` rewrites everything first and calls `pageReady` before downloading, and again
    ///     once images whose URL names no format have been named by their bytes.
    ///   - imagesFound: told how many distinct images the file has, before any is fetched.
    ///   - pageReady: receives the rewritten file as soon as it is final for the mode (in live
    ///     mode, the refresh waits for its second call).
    /// - Throws: what `pageReady` throws.
    public func localize(
        _ bytes: [UInt8], url: BrowserURL?, as document: LocalizedDocument = .page, mode: FetchMode,
        imagesFound: (@Sendable (Int) -> Void)? = nil,
        pageReady: (@Sendable (RewriteResult) async throws -> Void)? = nil
    ) async throws -> PageLocalization {
        try await localize(bytes, url: url, as: document, rewriter: rewriter, mode: mode, awayFromOrigin: true,
                           imagesFound: imagesFound, pageReady: pageReady)
    }

    func localize(
        _ bytes: [UInt8], url: BrowserURL?, as document: LocalizedDocument, rewriter: ImageRewriter, mode: FetchMode,
        site: SiteTree? = nil, transportCharset: String? = nil, awayFromOrigin: Bool,
        imagesFound: (@Sendable (Int) -> Void)?, pageReady: (@Sendable (RewriteResult) async throws -> Void)?
    ) async throws -> PageLocalization {
        let scan = rewriter.scan(bytes, as: document, url: url, transportCharset: transportCharset ?? rewriter.options.transportEncodingLabel,
                                 site: site, awayFromOrigin: awayFromOrigin)
        let untyped = scan.untypedImageURLs
        let known = untyped.isEmpty ? [:] : await fileWork.run { self.cachedNames(of: untyped) }
        let prepared = PreparedDocument(rewriter: rewriter, scan: scan, knownNames: known)
        let images = prepared.imagesToFetch()
        imagesFound?(images.count)
        if mode == .live { try await pageReady?(prepared.firstRewrite) }
        // In live mode a page may be written again once its images are in (named by their bytes,
        // or picks replaced), and the refresh (the moment a viewer reloads) must come after that write.
        let hold = mode == .live && prepared.mayBeWrittenAgain ? notifier.hold() : nil
        defer { hold?.release() }
        let results = await fetchImages(images, of: prepared)
        let outcomes = Dictionary(results.map { ($0.url, $0) }, uniquingKeysWith: { first, _ in first })
        let final = mode == .live ? prepared.namingTypedImages(from: results) : prepared.keepingFailuresRemote(results)
        guard let final else { return PageLocalization(page: prepared.firstRewrite, outcomes: outcomes) }
        try await pageReady?(final)
        return PageLocalization(page: final, outcomes: outcomes)
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

    // MARK: - Files

    /// Reads (or fetches) a page or stylesheet, localises its images in `mode`, and writes the
    /// rewritten copy to ``LocalizationInput/output``, atomically. It refers to the cache by the
    /// path from its own folder (unless the reference style is a URL prefix).
    /// - Parameters:
    ///   - input: the page or stylesheet, where it comes from and where its copy goes.
    ///   - mode: `.build` writes the copy once the downloads are settled, with the images that
    ///     are in the cache; `.live` writes it at once, every image local, and again when images
    ///     named by their bytes come in.
    ///   - referringEncoding: for a stylesheet that declares no encoding and is not ASCII, the
    ///     encoding of a page linking it (asked only then, since finding it may mean waiting).
    ///   - imagesFound: told how many distinct images the file has, before any is fetched.
    ///   - written: told each time the file has been written (twice in live mode when images
    ///     named by their bytes come in).
    /// - Throws: `PageLoadError` when a URL cannot be fetched, `FileError` when a file cannot be
    ///   read or written.
    public func localize(
        _ input: LocalizationInput, mode: FetchMode,
        referringEncoding: (@Sendable (BrowserURL?) async -> HTMLEncoding?)? = nil,
        imagesFound: (@Sendable (Int) -> Void)? = nil,
        written: (@Sendable (RewriteResult) -> Void)? = nil
    ) async throws -> FileLocalization {
        var rewriter = self.rewriter
        let bytes: [UInt8]
        var url = input.url
        var transportCharset: String?
        let awayFromOrigin: Bool
        switch input.source {
        case .url(let remote):
            let loaded = try await loadPage(remote)
            bytes = loaded.bytes
            url = loaded.url
            // A charset the configuration names beats the server's.
            transportCharset = rewriter.options.transportEncodingLabel ?? loaded.charset
            awayFromOrigin = true
        case .file(let path):
            // A site folder's other files are copied beside its pages; a page given on its own
            // is written where its author may have put its assets.
            awayFromOrigin = false
            // A site's file must still be the regular file its listing found: a symbolic link put
            // in its place could point anywhere on the machine. A page given on its own is read
            // wherever its name leads, as the person who named it meant.
            let isSiteFile = input.site != nil
            bytes = try await fileWork.runDocumentFileWork {
                try isSiteFile ? AtomicFile.readRegularFile(path) : AtomicFile.read(path)
            }
        }
        let destination = input.output
        let fileWork = self.fileWork
        rewriter.options.referenceStyle = referenceStyle(fromFolder: destination.parentPath)
        let document: LocalizedDocument
        switch input.kind {
        case .stylesheet:
            let needsReferrer = StylesheetEncoding.needsReferringEncoding(bytes)
            document = .stylesheet(referringEncoding: needsReferrer ? await referringEncoding?(url) : nil)
        case .page, .asset:
            document = .page
        }
        let result = try await localize(
            bytes, url: url, as: document, rewriter: rewriter, mode: mode, site: input.site, transportCharset: transportCharset,
            awayFromOrigin: awayFromOrigin, imagesFound: imagesFound,
            pageReady: { rewritten in
                try await fileWork.runDocumentFileWork { try rewritten.write(toFile: destination) }
                written?(rewritten)
            })
        let linked = result.page.linkedStylesheets
        let record = FetchManifest.Page(input: input.name, kind: input.kind == .stylesheet ? .stylesheet : .page,
                                        output: destination, pageURL: url?.serialized,
                                        references: FetchManifest.entries(for: result.page.references, outcomes: result.outcomes),
                                        stylesheets: linked.isEmpty ? nil : linked,
                                        absoluteLinks: input.kind == .stylesheet ? nil : rewriter.options.otherURLs.makesAbsolute(awayFromOrigin: awayFromOrigin))
        return FileLocalization(input: input, manifestRecord: record, localization: result)
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
    public func copy(_ copy: SiteFileCopy) async throws {
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
