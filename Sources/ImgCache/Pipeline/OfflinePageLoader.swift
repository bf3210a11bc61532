public import Foundation
import ImgCacheSupport
import ImgCacheURLs
import ImgCacheMarkup
import ImgCacheStore

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
/// A thin façade over its ``session``'s live mode: what it adds is the page's place in the cache
/// folder, returning once the page is first written, and answering a web view's requests for
/// images still downloading (``image(forLocalName:)``).
///
/// Show the page with `WKWebView.loadFileURL(page.fileURL, allowingReadAccessTo: page.readAccessURL)`
/// and reload on the refresh; or serve images from `image(for:)` through a custom URL scheme
/// handler (use `LocalReferenceStyle.urlPrefix("imgcache://")`) and skip the reload.
public final class OfflinePageLoader: Sendable {
    /// The cache the images go to; the page is written beside them.
    package var store: ImageCacheStore { session.store }
    /// Announces `started`, `finished`, `failed` and the debounced `refresh`.
    public var notifier: RefreshNotifier { session.notifier }
    /// The pipeline the loader runs on.
    public let session: LocalizationSession

    /// Creates a loader.
    /// - Parameters:
    ///   - store: the cache folder (the page files are written into it too).
    ///   - transport: `URLSessionTransport()` in an app.
    ///   - policy: download limits and rules.
    ///   - referenceStyle: how the page refers to images; the default, a path relative to the page,
    ///     suits `loadFileURL`; `.urlPrefix("imgcache://")` suits a scheme handler.
    ///   - debounce: how long downloads must be idle before a refresh.
    ///   - notificationCenter: where refreshes are also posted as `.imgcacheRefresh` (nil: nowhere).
    ///   - devices: the devices pages are for (``RewriteOptions/devices``): of
    ///     each responsive image only what they show is fetched and kept. Nil (the default): the
    ///     screen the app runs on, both ways up on a phone or a tablet (`DeviceProfile.screen(_:)` on Apple platforms),
    ///     when the loader is made on the main thread, else every candidate. Empty: every candidate.
    public convenience init(store: ImageCacheStore, transport: any ImageTransport, policy: DownloadPolicy = DownloadPolicy(),
                            referenceStyle: LocalReferenceStyle = .relativePath("."), debounce: Duration = .seconds(2),
                            notificationCenter: NotificationCenter? = .default, devices: [DeviceProfile]? = nil) {
        var configuration = LocalizationSession.Configuration(
            store: store, transport: transport, downloadPolicy: policy,
            rewriting: RewriteOptions(referenceStyle: referenceStyle), debounce: debounce,
            notificationCenter: notificationCenter)
        configuration.devices = devices ?? DeviceProfile.mainScreen ?? []
        self.init(session: LocalizationSession(configuration))
    }

    /// Creates a loader on a session of your own making; pages refer to images as its
    /// configuration's ``RewriteOptions/referenceStyle`` says.
    public init(session: LocalizationSession) {
        self.session = session
    }

    /// Rewrites `html` for the cache, writes it into the cache folder as `pageName`, and starts
    /// downloading its images. Returns as soon as the page file is written; the reading, rewriting
    /// and writing happen off the caller's thread, so the main actor may call it.
    ///
    /// Its URLs that are not images become absolute against `pageURL` (unless the session's
    /// ``RewriteOptions/otherURLs`` says `.asWritten`): opened from the cache folder, the page
    /// still loads its stylesheets and scripts from the web, and its links lead there.
    /// - Parameters:
    ///   - html: the page's bytes, in whatever encoding it declares.
    ///   - pageURL: where the page was served from: the base of its relative URLs (nil: they stay
    ///     as written, and images with relative URLs are not fetched).
    ///   - transportEncodingLabel: the charset of the response's `Content-Type`, if there was one.
    ///   - pageName: the file name in the cache folder; by default one of its own for each URL
    ///     (``defaultPageName(for:)``), so that pages do not overwrite each other.
    /// - Throws: `FileError` when the page cannot be written, or `pageName` is not a plain file
    ///   name (it may not name a folder, nor climb out of the cache folder).
    public func open(html: [UInt8], pageURL: BrowserURL?, pageName: String? = nil,
                     transportEncodingLabel: String? = nil) async throws -> OfflinePage {
        let pageName = pageName ?? Self.defaultPageName(for: pageURL)
        guard !pageName.isEmpty, pageName != ".", pageName != "..", !pageName.contains("/"), !pageName.contains("\0") else {
            throw FileError(path: pageName, reason: "a page name must be a plain file name, without '/' and not '.' or '..'")
        }
        let pagePath = (store.directory as NSString).appendingPathComponent(pageName)
        // The session's live mode, run to its end in the background; the page is open once its
        // first write is in.
        let firstWrite = FirstDelivery<RewriteResult>()
        var input = LocalizationInput(name: pagePath, source: .bytes(html), output: pagePath, kind: .page, url: pageURL)
        input.transportCharset = transportEncodingLabel
        var request = LocalizationRequest(input, mode: .live, pageReady: { page in firstWrite.deliver(page) })
        request.isShownWhileLoading = true
        let session = self.session
        let downloads = Task { [request] in
            do {
                return try await session.run(request).fetched
            } catch {
                // Only the first write can fail a page shown while loading: `open` throws it.
                firstWrite.fail(error)
                return []
            }
        }
        let rewrite = try await firstWrite.value()
        return OfflinePage(fileURL: URL(fileURLWithPath: pagePath),
                           readAccessURL: URL(fileURLWithPath: store.directory, isDirectory: true),
                           rewrite: rewrite, downloads: downloads)
    }

    /// Fetches the page at `url` (its final URL is the base, its charset the encoding) as the
    /// policy allows (user agent, private networks), then does what
    /// ``open(html:pageURL:pageName:transportEncodingLabel:)`` does; the default name comes from
    /// `url`, the one asked for.
    /// - Throws: `PageLoadError` when the page cannot be fetched, `FileError` when it cannot be written.
    public func open(url: BrowserURL, pageName: String? = nil) async throws -> OfflinePage {
        let page = try await session.loadPage(url)
        return try await open(html: page.bytes, pageURL: page.url, pageName: pageName ?? Self.defaultPageName(for: url),
                              transportEncodingLabel: page.charset)
    }

    /// The file name a page from `url` gets in the cache folder: its last path segment's name
    /// (`index` for a folder) and a digest of the URL without its fragment, so that two pages
    /// never share a file (`post-3f2a9c81e0d4b7a6.html`); `index.html` without a URL.
    public static func defaultPageName(for url: BrowserURL?) -> String {
        guard let url else { return "index.html" }
        let key = url.serializedWithoutFragment
        let last = url.path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        var stem = OutputFileName.fromURLSegment(last)
        if let dot = stem.lastIndex(of: "."), dot != stem.startIndex { stem = String(stem[..<dot]) }
        if stem.isEmpty || stem.utf8.count > 64 { stem = "index" }
        let digest = CacheContentDigest.sha256Hex(Array(key.utf8)).prefix(16)
        return "\(stem)-\(digest).html"
    }

    /// The bytes and content type of a cached image, by the local name a page rewritten with
    /// `.urlPrefix` asks for: what a custom URL scheme handler serves. When a page opened here is
    /// still downloading it, waits for the download and answers once it is in.
    /// - Throws: ``OfflineImageError`` when the image is not in the cache and nothing is fetching
    ///   it, or when its download failed; `CancellationError` when the calling task is cancelled
    ///   while it waits.
    public func image(forLocalName localName: String) async throws -> (bytes: [UInt8], contentType: String?) {
        let store = self.store
        if let found = await session.fileWork.run({ store.contents(forLocalName: localName) }) { return (found.bytes, found.image.contentType) }
        guard let url = session.arrivals.url(forLocalName: localName) else { throw OfflineImageError(.notCached(localName)) }
        return try await waitForImage(url: url, name: localName) { store.contents(forLocalName: localName) }
    }

    /// The same, by the image's absolute URL.
    public func image(for url: BrowserURL) async throws -> (bytes: [UInt8], contentType: String?) {
        let store = self.store
        if let found = await session.fileWork.run({ store.contents(for: url) }) { return (found.bytes, found.image.contentType) }
        return try await waitForImage(url: url.serializedWithoutFragment, name: url.serialized) { store.contents(for: url) }
    }

    private func waitForImage(url: String, name: String,
                              read: @escaping @Sendable () -> (bytes: [UInt8], image: CachedImage)?) async throws -> (bytes: [UInt8], contentType: String?) {
        switch await session.arrivals.arrival(of: url) {
        case .cancelled:
            throw CancellationError()
        case .settled(let outcome) where outcome.status == .failed:
            throw OfflineImageError(.downloadFailed(name, outcome.failure ?? DownloadFailure(.cancelled)))
        case .settled, .nothingExpected:
            // Fetched (or fetched between the first look and the wait): the cache has it now.
            guard let found = await session.fileWork.run(read) else { throw OfflineImageError(.notCached(name)) }
            return (found.bytes, found.image.contentType)
        }
    }
}

/// Why ``OfflinePageLoader`` could not give an image: ``description`` says it in one line. A struct,
/// so that a new reason is no breaking change.
public struct OfflineImageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why, with its particulars.
    package let kind: Kind

    package enum Kind: Sendable, Hashable {
        /// The image is not in the cache, and no page opened by the loader is fetching it.
        case notCached(String)
        /// Its download failed.
        case downloadFailed(String, DownloadFailure)
    }

    package init(_ kind: Kind) {
        self.kind = kind
    }

    /// One line for a person.
    public var description: String {
        switch kind {
        case .notCached(let name): "\(name) is not in the cache, and no page is downloading it"
        case .downloadFailed(let name, let failure): "\(name) could not be downloaded: \(failure)"
        }
    }
}
