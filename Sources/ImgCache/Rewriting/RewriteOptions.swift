/// What the rewriter looks for and how it writes local references.
public struct RewriteOptions: Sendable {
    /// Which URLs are images and how they are named in the cache.
    public var naming: LocalImageNaming
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
    /// `sizes`, `srcset`, `src`), and its reference says so (``ImageReference/shownOn``). Empty
    /// (the default): not worked out.
    public var devices: [DeviceProfile] = []

    /// The lazy-loading attributes recognised by default.
    public static let defaultLazyAttributes = ["data-src", "data-srcset", "data-original", "data-lazy-src", "data-bg"]

    /// Creates options; the defaults localise jpg, jpeg, png and gif into `images/` beside the page.
    public init(
        naming: LocalImageNaming = LocalImageNaming(),
        referenceStyle: LocalReferenceStyle = .relativePath("images"),
        lazyAttributes: [String] = RewriteOptions.defaultLazyAttributes,
        transportEncodingLabel: String? = nil
    ) {
        self.naming = naming
        self.referenceStyle = referenceStyle
        self.lazyAttributes = lazyAttributes
        self.transportEncodingLabel = transportEncodingLabel
    }
}
