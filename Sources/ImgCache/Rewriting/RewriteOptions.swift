/// What the rewriter looks for and how it writes local references.
public struct RewriteOptions: Sendable {
    /// Which URLs are images and how they are named in the cache.
    public var naming: LocalImageNaming
    /// How the page refers to a cached image.
    public var referenceStyle: LocalReferenceStyle
    /// Lazy-loading attributes that hold an image URL (or a `srcset` when the name ends in `srcset`).
    public var lazyAttributes: [String]
    /// The page's encoding as the transport declared it (an HTTP `charset` label), if any.
    public var transportEncodingLabel: String?
    /// Decides, for each image URL that could be rewritten, whether to rewrite it now (for example
    /// only once it is in the cache). Nil rewrites them all.
    public var shouldRewrite: (@Sendable (_ url: WebURL, _ localName: String) -> Bool)?
    /// Whether an http(s) URL that names no image format (no extension, or one such as `.php`
    /// that names no kind of file) counts as an image where the markup says it is one beyond
    /// doubt (`img src`, `srcset`, `poster`, CSS `background`, …): its bytes then decide its type
    /// and name. False keeps to the extensions (`--extensions-only`).
    public var untypedImages = true
    /// The cache name of such an URL when it is known (its image was downloaded before, or in this
    /// run); its references are rewritten only then. Nil: none is known.
    public var untypedName: (@Sendable (_ url: String) -> String?)?
    /// Says whether an absolute image URL is served by a file the site itself ships (a local
    /// asset inside the folder being localised). Such references are left as they are and not
    /// downloaded (``ImageReference/SkipReason/siteFile``). Nil: none is.
    public var isSiteFile: (@Sendable (_ url: String) -> Bool)?

    /// The lazy-loading attributes recognised by default.
    public static let defaultLazyAttributes = ["data-src", "data-srcset", "data-original", "data-lazy-src", "data-bg"]

    /// Creates options; the defaults localise jpg, jpeg, png and gif into `images/` beside the page.
    public init(
        naming: LocalImageNaming = LocalImageNaming(),
        referenceStyle: LocalReferenceStyle = .relativePath("images"),
        lazyAttributes: [String] = RewriteOptions.defaultLazyAttributes,
        transportEncodingLabel: String? = nil,
        shouldRewrite: (@Sendable (_ url: WebURL, _ localName: String) -> Bool)? = nil,
        isSiteFile: (@Sendable (_ url: String) -> Bool)? = nil
    ) {
        self.naming = naming
        self.referenceStyle = referenceStyle
        self.lazyAttributes = lazyAttributes
        self.transportEncodingLabel = transportEncodingLabel
        self.shouldRewrite = shouldRewrite
        self.isSiteFile = isSiteFile
    }
}
