import ImgCacheURLs
/// What scanning a page or stylesheet found: its image references, decided as far as the markup
/// alone decides them, and what rendering needs besides. Made with no I/O; rendered by
/// ``ImageRewriter/render(_:availability:)`` once it is known which images are in the cache.
package struct DocumentScan: Sendable {
    /// The bytes as given.
    let input: [UInt8]
    /// The bytes the references' ranges point into: the input, or its UTF-8 form when its encoding
    /// is not ASCII-compatible (UTF-16, ISO-2022-JP), converted back when rendered.
    let working: [UInt8]
    /// The encoding the document was read in.
    package let encoding: HTMLEncoding
    /// How that encoding was determined.
    package let encodingSource: EncodingSource
    /// Every reference, in document order. Those named by their URL read as rewritten and those
    /// to be named by their bytes as awaiting their type, until rendered.
    var references: [ImageReference]
    /// What a rewritten reference is spelled with before its cache name (the scanning rewriter's
    /// ``RewriteOptions/referenceStyle``).
    let referencePrefix: String
    /// The absolute URLs of the stylesheets a page links (`<link rel=stylesheet href>`), in document order.
    package let linkedStylesheets: [String]
    /// What scanning found to say, in order.
    let warnings: [RewriteWarning]
    /// A page's `<base href>` when rewriting must neutralise it, and the URLs to make absolute.
    let base: BaseNeutralization?
    /// Whether rendering must leave the document as it is (its bytes do not convert to UTF-8 and back).
    let leavesUnchanged: Bool
    /// Whether this is a page (its `<meta charset>` window is kept) rather than a stylesheet.
    let isPage: Bool
    /// A page's images a browser picks among candidates for, when it is read for devices
    /// (``RewriteOptions/devices``); empty otherwise.
    package var responsiveImages: [ResponsiveImageSpan] = []

    /// The images whose URL names no format, each once, in document order: their names come from
    /// their bytes, or from the cache when it saw them before (``ImageAvailability/untypedNames``).
    package var untypedImageURLs: [String] {
        var seen: Set<String> = []
        return references.compactMap { reference in
            guard reference.nameSource == .bytes, reference.wantsImage, let url = reference.url, seen.insert(url).inserted else { return nil }
            return url
        }
    }
}

/// What rendering needs to empty a page's `<base href>` and make the URLs it steered absolute, or
/// to make the page's other URLs absolute (see ``BaseElementNeutralizer``).
struct BaseNeutralization: Sendable {
    /// The `href` value's slot, when the page has a `<base href>`.
    let href: URLSlot?
    /// The base the page's relative URLs resolved against.
    let originalBase: BrowserURL
    let queryEncoding: (@Sendable (String) -> [UInt8])?
    /// The page's image URL slots with some text: those left as they are are made absolute.
    let imageSlots: [URLSlot]
    /// The other URL attributes of the page (links, scripts, …) that no image slot lies in.
    let linkSlots: [URLSlot]
    /// Whether the URLs left are made absolute whatever is rewritten (``OtherURLs``), not only
    /// once images are rewritten and the base is emptied.
    let absoluteLinks: Bool
}
