/// One page made to work offline: the rewritten page and what happened to each image.
public struct PageLocalization: Sendable {
    /// The rewritten page (in build mode, only cached images are rewritten).
    public let page: RewriteResult
    /// One outcome per distinct image URL, keyed by absolute URL.
    public let outcomes: [String: DownloadOutcome]

    /// The images that could not be localised.
    public var failures: [DownloadOutcome] {
        outcomes.values.filter { $0.status == .failed }.sorted { $0.url < $1.url }
    }
}

/// What kind of file a ``PageLocalizer`` is given.
public enum LocalizedDocument: Sendable, Equatable {
    /// An HTML page.
    case page
    /// A stylesheet (`.css`); `referringEncoding` is the encoding of a page that links it, for a
    /// file with neither a byte order mark nor `@charset`.
    case stylesheet(referringEncoding: HTMLEncoding?)
}

/// The page pipeline: find a page's images, download them into the cache, rewrite the page.
/// Stylesheets go through it the same way.
public struct PageLocalizer: Sendable {
    /// Finds and rewrites references.
    public let rewriter: ImageRewriter
    /// Fills the cache.
    public let downloader: ImageDownloader

    /// Creates a pipeline from its two parts.
    public init(rewriter: ImageRewriter, downloader: ImageDownloader) {
        self.rewriter = rewriter
        self.downloader = downloader
    }

    /// Localises one page.
    /// - Parameters:
    ///   - page: the page's bytes.
    ///   - pageURL: the page's URL, for relative references.
    ///   - document: a page (the default) or a stylesheet.
    ///   - mode: `.build` rewrites once the downloads are done, keeping failed images remote;
    ///     `.live` rewrites everything first and calls `pageReady` before downloading, and again
    ///     once images whose URL names no format have been named by their bytes.
    ///   - imagesFound: told how many distinct images the page has, before any is fetched.
    ///   - pageReady: receives the rewritten page as soon as it is final for the mode.
    public func localize(
        _ page: [UInt8], pageURL: WebURL?, document: LocalizedDocument = .page, mode: FetchMode,
        imagesFound: (@Sendable (Int) -> Void)? = nil,
        pageReady: (@Sendable (RewriteResult) async throws -> Void)? = nil
    ) async throws -> PageLocalization {
        // Images whose URL names no format are named by their bytes: those the cache already has
        // are rewritten at once.
        var options = rewriter.options
        let store = downloader.store
        if options.untypedImages, options.untypedName == nil {
            options.untypedName = { url in WebURL(url).flatMap(store.localName(for:)) }
        }
        // One parse when every image ends up cached (always so in live mode): the page rewritten
        // in full also lists the references. Build mode parses again only to keep failures remote.
        let full = Self.rewrite(page, pageURL: pageURL, document: document, with: ImageRewriter(options: options))
        var seen: Set<String> = []
        let urls = full.references.compactMap { reference -> WebURL? in
            guard reference.wantsImage, let url = reference.url, seen.insert(url).inserted else { return nil }
            return WebURL(url)
        }
        let awaitingType = full.references.contains { $0.skipReason == .awaitingType }
        imagesFound?(urls.count)
        if mode == .live { try await pageReady?(full) }
        // In live mode a page with images named by their bytes is written again once they are
        // in, and the refresh (the moment a viewer reloads) must come after that write.
        let holdsRefresh = mode == .live && awaitingType
        if holdsRefresh { downloader.holdRefresh() }
        defer { if holdsRefresh { downloader.releaseRefresh() } }
        let results = await downloader.fetchAll(urls)
        let outcomes = Dictionary(results.map { ($0.url, $0) }, uniquingKeysWith: { first, _ in first })
        let named = Dictionary(results.filter(\.isCached).map { ($0.url, $0.localName) }, uniquingKeysWith: { first, _ in first })
        options.untypedName = { named[$0] }
        if mode == .live {
            guard awaitingType, full.references.contains(where: { $0.skipReason == .awaitingType && $0.url.flatMap { named[$0] } != nil }) else {
                return PageLocalization(page: full, outcomes: outcomes)
            }
            let rewritten = Self.rewrite(page, pageURL: pageURL, document: document, with: ImageRewriter(options: options))
            try await pageReady?(rewritten)
            return PageLocalization(page: rewritten, outcomes: outcomes)
        }
        if !awaitingType, results.allSatisfy(\.isCached) {
            try await pageReady?(full)
            return PageLocalization(page: full, outcomes: outcomes)
        }
        let previous = options.shouldRewrite
        options.shouldRewrite = { url, name in
            named[url.serializedWithoutFragment] != nil && (previous?(url, name) ?? true)
        }
        let rewritten = Self.rewrite(page, pageURL: pageURL, document: document, with: ImageRewriter(options: options))
        try await pageReady?(rewritten)
        return PageLocalization(page: rewritten, outcomes: outcomes)
    }

    private static func rewrite(_ bytes: [UInt8], pageURL: WebURL?, document: LocalizedDocument,
                                with rewriter: ImageRewriter) -> RewriteResult {
        switch document {
        case .page: rewriter.rewrite(bytes, pageURL: pageURL)
        case .stylesheet(let referringEncoding): rewriter.rewriteStylesheet(bytes, url: pageURL, referringEncoding: referringEncoding)
        }
    }
}
