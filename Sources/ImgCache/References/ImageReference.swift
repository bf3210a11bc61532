/// One image URL found in a page, and what the rewriter did with it.
public struct ImageReference: Sendable, Hashable, Codable {
    /// Where in the markup a reference stands.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// `img src` (and the HTML parser's alias `image src`).
        case imgSrc = "img-src"
        /// A candidate of `img srcset`.
        case imgSrcset = "img-srcset"
        /// A candidate of `srcset` on a `source` inside `picture`.
        case sourceSrcset = "source-srcset"
        /// `src` of `input type=image`.
        case inputImage = "input-image"
        /// `video poster`.
        case videoPoster = "video-poster"
        /// `href` of a `link` whose `rel` names an icon.
        case linkIcon = "link-icon"
        /// `href` or an `imagesrcset` candidate of `link rel=preload as=image`.
        case linkPreload = "link-preload"
        /// `href` / `xlink:href` of SVG `image` or `feImage`.
        case svgImage = "svg-image"
        /// The legacy `background` attribute of `body`, `table` and its parts.
        case backgroundAttribute = "background-attribute"
        /// A CSS `url()` or `image-set()` URL in a `style` attribute.
        case styleAttribute = "style-attribute"
        /// A CSS `url()` or `image-set()` URL in a `<style>` element.
        case styleElement = "style-element"
        /// A lazy-loading attribute such as `data-src` or a `data-srcset` candidate.
        case lazyAttribute = "lazy-attribute"
    }

    /// Why a reference was left as it was.
    public enum SkipReason: String, Sendable, Hashable, Codable {
        /// The value is empty or only whitespace.
        case empty
        /// The URL resolves to a scheme other than http or https (`data:`, `blob:`, `javascript:`, …).
        case notHTTP = "not-http"
        /// The URL's path does not end in one of the enabled image extensions.
        case unsupportedExtension = "unsupported-extension"
        /// The URL is relative and the page has no known URL to resolve it against.
        case relativeWithoutBase = "relative-without-base"
        /// A browser's URL parser rejects the value.
        case invalidURL = "invalid-url"
        /// A `srcset` candidate whose descriptors make browsers drop it.
        case invalidCandidate = "invalid-candidate"
        /// The caller's filter declined it (for example: not in the cache yet).
        case declined
        /// Inside markup that browsers treat as text (`textarea`, `title`, `iframe`, …).
        case inertMarkup = "inert-markup"
    }

    /// The kind of markup the URL was found in.
    public let kind: Kind
    /// The element's name, lowercase.
    public let element: String
    /// The attribute's name, lowercase; nil for a `<style>` element.
    public let attribute: String?
    /// The URL as the page gives it, with character references and CSS escapes decoded.
    public let original: String
    /// The absolute URL after resolution, when it could be resolved.
    public let url: String?
    /// The file name inside the cache directory, for an http(s) URL with an enabled extension.
    public let localName: String?
    /// What the page now says instead of `original`, when rewritten.
    public let localPath: String?
    /// Whether the page was changed for this reference.
    public let rewritten: Bool
    /// Why it was not rewritten.
    public let skipReason: SkipReason?
    /// Byte offsets of the URL's text in the input page.
    public let byteRange: Range<Int>

    /// Creates a reference; the rewriter is the usual source of these.
    public init(
        kind: Kind, element: String, attribute: String?, original: String, url: String?,
        localName: String?, localPath: String?, rewritten: Bool, skipReason: SkipReason?, byteRange: Range<Int>
    ) {
        self.kind = kind
        self.element = element
        self.attribute = attribute
        self.original = original
        self.url = url
        self.localName = localName
        self.localPath = localPath
        self.rewritten = rewritten
        self.skipReason = skipReason
        self.byteRange = byteRange
    }
}
