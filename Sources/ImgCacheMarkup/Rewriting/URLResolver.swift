import ImgCacheURLs
/// Resolves URLs of one page: against its first `<base href>` (itself resolved against the page's
/// URL) when there is one, else against the page's URL.
///
/// A class, as is ``SimpleURLResolver``: it is handed to the rewriter's `resolve` for every URL of a
/// page, and as a struct (a base URL of 150 bytes, the simple resolver's arrays) it was copied and
/// its contents retained and released each time.
final class URLResolver: Sendable {
    enum Resolution: Equatable {
        indirect case resolved(BrowserURL)
        /// An http(s) URL in its serialised form, found without the full parser.
        case resolvedHTTP(String)
        /// A URL that is not http(s) and that the parser would serialise as the text itself
        /// (``VerbatimDataURL``): never localised, so not worth parsing.
        case verbatim(String)
        case relativeWithoutBase
        case invalid
    }

    /// The URL relative references resolve against, if known.
    let documentBase: BrowserURL?
    let queryEncoding: (@Sendable (String) -> [UInt8])?
    /// True when the page has a non-empty `<base href>` that does not resolve (so the page URL serves).
    let baseHrefFailed: Bool
    private let simple: SimpleURLResolver?

    init(pageURL: BrowserURL?, baseHref: String?, queryEncoding: (@Sendable (String) -> [UInt8])?) {
        self.queryEncoding = queryEncoding
        if let baseHref, let base = BrowserURL(baseHref, relativeTo: pageURL, queryEncoding: queryEncoding) {
            documentBase = base
            baseHrefFailed = false
        } else {
            documentBase = pageURL
            baseHrefFailed = !(baseHref ?? "").isEmpty
        }
        simple = SimpleURLResolver(base: documentBase)
    }

    func resolve(_ text: String) -> Resolution {
        if VerbatimDataURL.matches(text) { return .verbatim(text) }
        if let serialized = simple?.resolve(text) { return .resolvedHTTP(serialized) }
        if let base = documentBase {
            return BrowserURL(text, relativeTo: base, queryEncoding: queryEncoding).map(Resolution.resolved) ?? .invalid
        }
        if let absolute = BrowserURL(text, queryEncoding: queryEncoding) { return .resolved(absolute) }
        return .relativeWithoutBase
    }
}
