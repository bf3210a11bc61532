public import Foundation

/// A page made available offline for an app's web view: written now, its images arriving.
public struct OfflinePage: Sendable {
    /// The rewritten page file, inside the cache folder.
    public let fileURL: URL
    /// The folder a web view must be allowed to read: the cache folder, which holds the page and its images.
    public let readAccessURL: URL
    /// What the rewriter found and did.
    public let rewrite: RewriteResult
    /// The downloads, running; await `value` for their outcomes.
    public let downloads: Task<[DownloadOutcome], Never>
}

/// The app-facing pipeline: rewrite a page for the local cache at once (live mode), write it
/// into the cache folder, download the missing images in the background, and announce a
/// refresh through `notifier` when they are in. Images whose URL names no format are named by
/// their bytes: the page is written again once they are in, before the refresh, which lists it
/// (``RefreshSummary/rewrittenPages``).
///
/// Show the page with `WKWebView.loadFileURL(page.fileURL, allowingReadAccessTo: page.readAccessURL)`
/// and reload on the refresh; or serve images from `image(for:)` through a custom URL scheme
/// handler (use `LocalReferenceStyle.urlPrefix("imgcache://")`) and skip the reload.
public final class OfflinePageLoader: Sendable {
    /// The cache the images go to; the page is written beside them.
    public var store: ImageCacheStore { session.store }
    /// Announces `started`, `finished`, `failed` and the debounced `refresh`.
    public var notifier: RefreshNotifier { session.notifier }
    /// The pipeline the loader runs on.
    public let session: LocalizationSession

    /// Creates a loader.
    /// - Parameters:
    ///   - store: the cache folder (the page files are written into it too).
    ///   - transport: `URLSessionTransport()` in an app, or the AsyncHTTPClient one.
    ///   - policy: download limits and rules.
    ///   - referenceStyle: how the page refers to images; the default, a path relative to the page,
    ///     suits `loadFileURL`; `.urlPrefix("imgcache://")` suits a scheme handler.
    ///   - debounce: how long downloads must be idle before a refresh.
    ///   - notificationCenter: where refreshes are also posted as `.imgcacheRefresh` (nil: nowhere).
    public convenience init(store: ImageCacheStore, transport: any ImageTransport, policy: DownloadPolicy = DownloadPolicy(),
                            referenceStyle: LocalReferenceStyle = .relativePath("."), debounce: Duration = .seconds(2),
                            notificationCenter: NotificationCenter? = .default) {
        self.init(session: LocalizationSession(.init(
            store: store, transport: transport, downloadPolicy: policy,
            rewriting: RewriteOptions(naming: store.naming, referenceStyle: referenceStyle), debounce: debounce,
            notificationCenter: notificationCenter)))
    }

    /// Creates a loader on a session of your own making; pages refer to images as its
    /// configuration's ``RewriteOptions/referenceStyle`` says.
    public init(session: LocalizationSession) {
        self.session = session
    }

    /// The outstanding count: images queued for the network or in flight.
    public var outstandingCount: Int { session.outstandingCount }

    /// Rewrites `html` for the cache, writes it into the cache folder as `pageName`, and starts
    /// downloading its images. Returns as soon as the page file is written.
    /// - Throws: `FileError` when the page cannot be written, or `pageName` is not a plain file
    ///   name (it may not name a folder, nor climb out of the cache folder).
    public func open(html: [UInt8], pageURL: BrowserURL?, pageName: String = "index.html",
                     transportEncodingLabel: String? = nil) throws -> OfflinePage {
        guard !pageName.isEmpty, pageName != ".", pageName != "..", !pageName.contains("/"), !pageName.contains("\0") else {
            throw FileError(path: pageName, reason: "a page name must be a plain file name, without '/' and not '.' or '..'")
        }
        let session = self.session
        let rewriter = ImageRewriter(options: session.rewriteOptions)
        let scan = rewriter.scan(html, url: pageURL, transportCharset: transportEncodingLabel ?? rewriter.options.transportEncodingLabel)
        // Those whose URL names no format and that the cache already has are rewritten at once.
        let prepared = PreparedDocument(rewriter: rewriter, scan: scan, knownNames: session.cachedNames(of: scan.untypedImageURLs))
        let pagePath = (store.directory as NSString).appendingPathComponent(pageName)
        try prepared.firstRewrite.write(toFile: pagePath)
        // The images named by their bytes: the page is written again once they are in, and the
        // refresh waits for that write and lists the page.
        let hold = prepared.awaitsTypes ? session.notifier.hold() : nil
        let downloads = Task {
            let results = await session.downloader.fetchAll(prepared.imageURLs())
            guard let hold else { return results }
            var written: String?
            if let rewritten = prepared.namingTypedImages(from: results),
               (try? await BlockingIO.run({ try rewritten.write(toFile: pagePath) })) != nil {
                written = pagePath
            }
            hold.release(rewrittenPage: written)
            return results
        }
        return OfflinePage(fileURL: URL(fileURLWithPath: pagePath),
                           readAccessURL: URL(fileURLWithPath: store.directory, isDirectory: true),
                           rewrite: prepared.firstRewrite, downloads: downloads)
    }

    /// Fetches the page at `url` (its final URL is the base, its charset the encoding) as the
    /// policy allows (user agent, private networks), then does what `open(html:pageURL:)` does.
    /// - Throws: `PageLoadError` when the page cannot be fetched, `FileError` when it cannot be written.
    public func open(url: BrowserURL, pageName: String = "index.html") async throws -> OfflinePage {
        let page = try await session.loadPage(url)
        return try open(html: page.bytes, pageURL: page.url, pageName: pageName, transportEncodingLabel: page.charset)
    }

    /// The cached bytes and content type of an image, by its absolute URL: what a custom URL
    /// scheme handler serves. Nil while it is not (or not intact) in the cache.
    public func image(for url: BrowserURL) -> (bytes: [UInt8], contentType: String?)? {
        store.contents(for: url).map { ($0.bytes, $0.image.contentType) }
    }

    /// The same, by the local name a page rewritten with `.urlPrefix` asks for.
    public func image(forLocalName localName: String) -> (bytes: [UInt8], contentType: String?)? {
        store.contents(forLocalName: localName).map { ($0.bytes, $0.image.contentType) }
    }
}
