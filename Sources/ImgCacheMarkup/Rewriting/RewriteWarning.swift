public import ImgCacheURLs
/// Something a person should know about a rewritten page or stylesheet: a declaration that was
/// ignored, references that could not be resolved, a `<base>` emptied, a page left unchanged to
/// keep how it reads. ``description`` is the sentence to show.
public enum RewriteWarning: Sendable, Hashable, CustomStringConvertible {
    /// What reading the document's encoding noticed, in order (declarations ignored or overruled).
    case encoding([EncodingNotice])
    /// The document's bytes do not convert to Unicode and back exactly in its encoding: it was left unchanged.
    case notReversible(DocumentKind, encoding: HTMLEncoding)
    /// The page's `<base href>` does not resolve (`pageURLKnown`: against the page's URL), so
    /// relative URLs resolve against the page's URL.
    case unresolvableBase(href: String, pageURLKnown: Bool)
    /// Relative image URLs left as they were: the document's URL is not known.
    case relativeURLsWithoutBase(count: Int, DocumentKind)
    /// The page's `<base href>` was emptied so that local paths resolve next to the page; its other
    /// relative URLs were made absolute against the base they had.
    case baseEmptied(originalBase: BrowserURL)
    /// Rewriting would have moved the page's `<meta charset>` into or out of the first bytes where
    /// browsers look for it: the page was left unchanged.
    case metaCharsetWouldMove(window: Int)
    /// Image URLs in the page's first bytes were left as they were, to keep its `<meta charset>`
    /// where browsers look for it.
    case referencesKeptForMetaCharset(count: Int, window: Int)
    /// The rewritten document did not convert back to its encoding: it was left unchanged.
    case notConvertibleBack(DocumentKind, encoding: HTMLEncoding)

    /// The sentence to show.
    public var description: String {
        switch self {
        case .encoding(let notices):
            return notices.map(\.description).joined(separator: " ")
        case .notReversible(let document, let encoding):
            return "The \(document.rawValue)'s \(encoding) bytes do not convert to Unicode and back exactly; it was left unchanged."
        case .unresolvableBase(let href, let pageURLKnown):
            return "The page's <base href=\"\(href)\"> could not be resolved\(pageURLKnown ? "" : " without a page URL")."
        case .relativeURLsWithoutBase(let count, let document):
            return "\(count) relative image URL\(count == 1 ? " was" : "s were") left as they were: the \(document.rawValue)'s URL is not known (give a base URL)."
        case .baseEmptied(let originalBase):
            return "The page's <base href> was emptied so that local image paths resolve next to the page; other relative URLs were made absolute against \(originalBase)."
        case .metaCharsetWouldMove(let window):
            return "Rewriting would move the page's <meta charset> into or out of the first \(window) bytes, where browsers look for it, and change how the page reads; it was left unchanged."
        case .referencesKeptForMetaCharset(let count, let window):
            let one = count == 1
            return "\(count) image URL\(one ? " was" : "s were") left as \(one ? "it was" : "they were") in the page's first \(window) bytes: rewriting \(one ? "it" : "them") would move the page's <meta charset> into or out of the part where browsers look for it."
        case .notConvertibleBack(let document, let encoding):
            return "The rewritten \(document.rawValue) could not be converted back to \(encoding); it was left unchanged."
        }
    }
}
