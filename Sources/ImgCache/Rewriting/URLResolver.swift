/// Resolves URLs of one page: against its first `<base href>` (itself resolved against the page's
/// URL) when there is one, else against the page's URL.
struct URLResolver: Sendable {
    enum Resolution: Equatable {
        case resolved(WebURL)
        case relativeWithoutBase
        case invalid
    }

    /// The URL relative references resolve against, if known.
    let documentBase: WebURL?
    let queryEncoding: (@Sendable (String) -> [UInt8])?

    init(pageURL: WebURL?, baseHref: String?, queryEncoding: (@Sendable (String) -> [UInt8])?) {
        self.queryEncoding = queryEncoding
        if let baseHref, let base = WebURL(baseHref, relativeTo: pageURL, queryEncoding: queryEncoding) {
            documentBase = base
        } else {
            documentBase = pageURL
        }
    }

    func resolve(_ text: String) -> Resolution {
        if let base = documentBase {
            return WebURL(text, relativeTo: base, queryEncoding: queryEncoding).map(Resolution.resolved) ?? .invalid
        }
        if let absolute = WebURL(text, queryEncoding: queryEncoding) { return .resolved(absolute) }
        return .relativeWithoutBase
    }

    /// True when `text` is an absolute URL on its own, so that no base changes what it means.
    func isAbsolute(_ text: String) -> Bool {
        WebURL(text) != nil
    }
}
