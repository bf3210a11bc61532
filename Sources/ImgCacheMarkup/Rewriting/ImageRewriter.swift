#if canImport(Darwin)
internal import libxml2  // the SDK's own module (Xcode 12+): headers in $SDKROOT/usr/include/libxml2
#else
internal import CLibXML2  // pkg-config's libxml-2.0
#endif
public import ImgCacheURLs

/// Finds every image reference in an HTML page or a stylesheet and replaces its URL with a local
/// path, leaving every other byte as it was.
///
/// It works in two pure phases, so that a pipeline can ask the cache and the network in between:
/// `scan(_:as:url:transportCharset:site:)` reads the document (its encoding, its references,
/// what the markup alone decides about each) and `render(_:availability:)` splices the local
/// paths of the images that are available. ``rewrite(_:pageURL:)`` does both at once.
///
/// Synchronous, no I/O, no shared state: safe to call from any thread at once. Keep one for
/// many documents rather than making one for each: it prepares what it looks for once.
public struct ImageRewriter: Sendable {
    /// What to look for and how to write local references.
    public var options: RewriteOptions {
        didSet {
            if options.lazyAttributes != oldValue.lazyAttributes {
                attributeNames = ReferenceCollector.AttributeNames(lazyAttributes: options.lazyAttributes)
            }
        }
    }

    /// Which URLs are images and how they are named in the cache: a session's rewriter takes
    /// its store's, so that a page and the cache never name an image apart.
    public let naming: LocalImageNaming

    /// The attribute names a page's elements are looked at for, made from the options.
    private(set) var attributeNames: ReferenceCollector.AttributeNames

    /// Creates a rewriter.
    /// - Parameters:
    ///   - options: what to look for and how to write local references.
    ///   - naming: which URLs are images and their names in the cache: the cache's own
    ///     (``ImageCacheStore/naming``) when the images go into one.
    public init(options: RewriteOptions = RewriteOptions(), naming: LocalImageNaming = LocalImageNaming()) {
        self.options = options
        self.naming = naming
        attributeNames = ReferenceCollector.AttributeNames(lazyAttributes: options.lazyAttributes)
    }

    /// Reads a page or stylesheet and finds its image references.
    /// - Parameters:
    ///   - bytes: the document's bytes, in whatever encoding it uses.
    ///   - document: a page (the default) or a stylesheet (with the encoding of a page linking it,
    ///     used when the stylesheet has neither a byte order mark nor `@charset`; UTF-8 when nil).
    ///   - url: where the document is served from; relative URLs resolve against it (and against
    ///     a page's `<base href>`). Without it, relative image URLs are left alone.
    ///   - transportCharset: the encoding the transport declares (an HTTP `charset` label), if any.
    ///   - site: the site folder the document belongs to: references to its own files are left as
    ///     they are (``ImageReference/SkipReason/siteFile``).
    ///   - awayFromOrigin: whether the page is written away from where it was loaded from, so
    ///     that ``RewriteOptions/otherURLs`` `.automatic` makes its other URLs absolute.
    package func scan(_ bytes: [UInt8], as document: LocalizedDocument = .page, url: BrowserURL?,
                     transportCharset: String? = nil, site: SiteTree? = nil, awayFromOrigin: Bool = false) -> DocumentScan {
        switch document {
        case .page:
            scanPage(bytes, pageURL: url, transportCharset: transportCharset, site: site,
                     absoluteLinks: options.otherURLs.makesAbsolute(awayFromOrigin: awayFromOrigin))
        case .stylesheet(let referringEncoding): scanStylesheet(bytes, url: url, referringEncoding: referringEncoding, site: site)
        }
    }

    /// Rewrites the page's image URLs to local paths, every image whose URL names an enabled
    /// format (those whose URL names none wait for their bytes: ``ImageReference/Disposition/awaitingType``).
    /// - Parameters:
    ///   - page: the page's bytes, in whatever encoding it uses.
    ///   - pageURL: the URL the page was (or will be) served from; relative URLs resolve against it
    ///     and against the page's `<base href>`. Without it, relative image URLs are left alone.
    /// - Returns: the rewritten bytes (the input itself when nothing was rewritable) and every reference.
    public func rewrite(_ page: [UInt8], pageURL: BrowserURL?) -> RewriteResult {
        render(scan(page, url: pageURL, transportCharset: options.transportEncodingLabel))
    }

    /// Lists the page's image references without rewriting anything. `rewritten` on each reference
    /// says whether `rewrite(_:pageURL:)` would replace it; `bytes` is the input.
    public func references(in page: [UInt8], pageURL: BrowserURL?) -> RewriteResult {
        render(scan(page, url: pageURL, transportCharset: options.transportEncodingLabel), availability: .everyTypedImage(), splicing: false)
    }

    /// Rewrites the image URLs of a stylesheet: every `url()` and the URLs of `image-set()`, resolved
    /// against the stylesheet's own URL. `@import` URLs and URLs without an enabled image extension
    /// (fonts) are left alone.
    /// - Parameters:
    ///   - stylesheet: the file's bytes.
    ///   - url: where the stylesheet is served from; relative URLs resolve against it. Without it,
    ///     relative URLs are left alone.
    ///   - referringEncoding: the encoding of the page that links the stylesheet, used when the
    ///     file has neither a byte order mark nor an `@charset` rule (UTF-8 when nil).
    public func rewriteStylesheet(_ stylesheet: [UInt8], url: BrowserURL?, referringEncoding: HTMLEncoding? = nil) -> RewriteResult {
        render(scan(stylesheet, as: .stylesheet(referringEncoding: referringEncoding), url: url))
    }

    /// Lists a stylesheet's image references without rewriting anything (see
    /// ``rewriteStylesheet(_:url:referringEncoding:)``).
    public func references(inStylesheet stylesheet: [UInt8], url: BrowserURL?, referringEncoding: HTMLEncoding? = nil) -> RewriteResult {
        render(scan(stylesheet, as: .stylesheet(referringEncoding: referringEncoding), url: url),
               availability: .everyTypedImage(), splicing: false)
    }
}
