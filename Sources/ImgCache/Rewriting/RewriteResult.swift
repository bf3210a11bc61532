/// The outcome of rewriting (or listing) one page.
public struct RewriteResult: Sendable {
    /// The page's bytes with image URLs replaced; identical to the input where nothing was rewritten.
    public let bytes: [UInt8]
    /// Every image reference found, in document order.
    public let references: [ImageReference]
    /// The encoding the page was read in.
    public let encoding: HTMLEncoding
    /// How that encoding was determined.
    public let encodingSource: EncodingSource
    /// The absolute URLs of the stylesheets the page links (`<link rel=stylesheet href>`), in
    /// document order; empty for a stylesheet, or when the page's URL is not known and the links are relative.
    public internal(set) var linkedStylesheets: [String] = []
    /// Things a person should know: unresolvable relative URLs, a lying charset, a neutralised `<base>`.
    public let warnings: [String]
    /// The replacements besides the rewritten references' own: the emptied `<base href>` and the
    /// relative URLs made absolute against it. Ranges are in the page's bytes, or in its UTF-8 form
    /// for a page whose encoding is not ASCII-compatible (as are the references' byte ranges).
    /// Exposed only so that the fuzz targets can check that nothing else changed.
    @_spi(Fuzzing) public internal(set) var otherEdits: [(range: Range<Int>, replacement: [UInt8])] = []

    /// The references that were rewritten.
    public var rewrittenReferences: [ImageReference] { references.filter(\.rewritten) }
}
