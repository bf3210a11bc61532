/// What the rewriter looks for and how it writes local references. Which URLs are images and
/// how they are named is not among them: that is the cache's (``ImageCacheStore/naming``) or,
/// for a rewriter on its own, the rewriter's (``ImageRewriter/naming``), set in one place so that
/// a page never names an image otherwise than the cache does.
public struct RewriteOptions: Sendable {
    /// How the page refers to a cached image.
    public var referenceStyle: LocalReferenceStyle
    /// Lazy-loading attributes that hold an image URL (or a `srcset` when the name ends in `srcset`).
    public var lazyAttributes: [String]
    /// The encoding to read pages in, as a transport would declare it (an HTTP `charset` label):
    /// when set, it stands for what a server declares (`--charset`). Nil: what the server says.
    public var transportEncodingLabel: String?
    /// Whether an http(s) URL that names no image format (no extension, or one such as `.php`
    /// that names no kind of file) counts as an image where the markup says it is one beyond
    /// doubt (`img src`, `srcset`, `poster`, CSS `background`, …): its bytes then decide its type
    /// and name. False keeps to the extensions (`--extensions-only`).
    public var untypedImages = true
    /// What becomes of the page's URLs that are not images (see ``OtherURLs``).
    public var otherURLs: OtherURLs = .automatic
    /// The devices a page is read for. For each `<img>`, with the sources of its `<picture>`, the
    /// candidate each device shows is worked out as its browser would pick it (`media`, `type`,
    /// `sizes`, `srcset`, `src`), and its reference says so (``ImageReference/shownOn``). In a
    /// session, only the candidates they show are fetched and kept in the page
    /// (``OfflinePageLoader`` sets the screen it runs on when none is given). Empty (the default):
    /// not worked out, and every candidate is kept.
    public var devices: [DeviceProfile] = []

    /// The lazy-loading attributes recognised by default.
    public static let defaultLazyAttributes = ["data-src", "data-srcset", "data-original", "data-lazy-src", "data-bg"]

    /// Creates options; the defaults refer to images in `images/` beside the page.
    public init(
        referenceStyle: LocalReferenceStyle = .relativePath("images"),
        lazyAttributes: [String] = RewriteOptions.defaultLazyAttributes,
        transportEncodingLabel: String? = nil
    ) {
        self.referenceStyle = referenceStyle
        self.lazyAttributes = lazyAttributes
        self.transportEncodingLabel = transportEncodingLabel
    }
}
