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
        /// A CSS `url()` or `image-set()` URL in a stylesheet file.
        case stylesheet
    }

    /// Why a reference was left as it was, for good: whatever the cache holds, it stays.
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
        /// Inside markup that browsers treat as text (`textarea`, `title`, `iframe`, …).
        case inertMarkup = "inert-markup"
        /// A file the site already ships beside the page (a file of the site folder being localised): it is there
        /// offline as it is, so it is neither downloaded nor rewritten.
        case siteFile = "site-file"
    }

    /// What became of a reference.
    public enum Disposition: Sendable, Hashable {
        /// The page now refers to the image in the cache (``ImageReference/localPath``).
        case rewritten
        /// The URL names no image format, in a place where the markup says it is an image: it is
        /// fetched, and rewritten once its bytes have named it (`SHA-256(url).<format>`).
        case awaitingType
        /// An image to localise that is not in the cache (its download failed): the page keeps its
        /// remote URL, so that the output always works.
        case notCached
        /// Left as it is, for good.
        case skipped(SkipReason)
        /// Rewritable, but rewriting the page would change how a browser reads it (its
        /// `<meta charset>` would move into or out of the first 1024 bytes, or the page would not
        /// convert back to its encoding exactly): the page keeps this URL, and the image is not fetched.
        case unchangedForEncoding
        /// A candidate of a responsive image that none of the devices the page is read for shows
        /// (``RewriteOptions/devices``): dropped from its `srcset`, or, for a `src`, replaced with
        /// an image a device shows. It is not fetched.
        case notShown

        /// How the manifest and `list --json` spell a reference left as it was: the skip reason's
        /// name, `awaiting-type`, `declined` (not in the cache) or `not-shown`; nil when rewritten
        /// or kept for the encoding's sake.
        package var code: String? {
            switch self {
            case .rewritten, .unchangedForEncoding: nil
            case .awaitingType: "awaiting-type"
            case .notCached: "declined"
            case .notShown: "not-shown"
            case .skipped(let reason): reason.rawValue
            }
        }

        init?(code: String) {
            switch code {
            case "awaiting-type": self = .awaitingType
            case "declined": self = .notCached
            case "not-shown": self = .notShown
            default:
                guard let reason = SkipReason(rawValue: code) else { return nil }
                self = .skipped(reason)
            }
        }
    }

    /// Where an image reference's cache name comes from: its URL (an enabled extension), its
    /// bytes (a URL that names no format, once they are in), or nowhere (skipped for good).
    package enum NameSource: UInt8, Sendable, Hashable {
        case none
        case url
        case bytes
    }

    /// Whether the image is to be fetched: rewritten to a cache name, waiting for its bytes to
    /// name it, or missing from the cache.
    package var wantsImage: Bool {
        switch disposition {
        case .rewritten, .awaitingType, .notCached: true
        case .skipped, .unchangedForEncoding, .notShown: false
        }
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
    /// The file name inside the cache directory: for an http(s) URL with an enabled extension, or
    /// one whose bytes have named it.
    public var localName: String? { name?.string }
    var name: LocalName?
    /// The local name without spelling it out.
    var localNameValue: LocalName? { name }
    /// What became of it.
    public internal(set) var disposition: Disposition
    /// Where its cache name comes from.
    package let nameSource: NameSource
    /// Whether the page was changed for this reference.
    package var rewritten: Bool { disposition == .rewritten }
    /// Why it was left as it was for good, if it was.
    package var skipReason: SkipReason? {
        if case .skipped(let reason) = disposition { return reason }
        return nil
    }
    /// Byte offsets of the URL's text in the input page.
    public let byteRange: Range<Int>
    /// For a candidate of an `<img>`'s `srcset` or `src`, or of a `srcset` of its `<picture>`'s
    /// sources (or of the lazy-loading attributes a script copies into them: `data-srcset`,
    /// `data-src`, …, and of a responsive preload's `imagesrcset` and `href`), when the page is read for devices (``RewriteOptions/devices``): the devices
    /// that show it, by their ``DeviceProfile/description``, in the order given; empty when none does.
    /// Nil for every other reference, and when no devices are given.
    public internal(set) var shownOn: [String]?
    // Shared by all references of a page, so that a page with 100,000 images does not hold
    // 100,000 copies of the folder name.
    private var localPathPrefix: String?

    /// What the page now says instead of `original`, when rewritten.
    public var localPath: String? {
        guard rewritten, let name, let localPathPrefix else { return nil }
        return name.string(after: localPathPrefix)
    }

    init(
        kind: Kind, element: String, attribute: String?, original: String, url: String?,
        name: LocalName?, nameSource: NameSource, disposition: Disposition, byteRange: Range<Int>, localPathPrefix: String? = nil
    ) {
        self.kind = kind
        self.element = element
        self.attribute = attribute
        self.original = original
        self.url = url
        self.name = name
        self.nameSource = nameSource
        self.localPathPrefix = localPathPrefix
        self.disposition = disposition
        self.byteRange = byteRange
    }

    /// The same reference, kept as it was for the page's encoding's sake (``Disposition/unchangedForEncoding``).
    var notRewritten: ImageReference {
        guard disposition == .rewritten else { return self }
        var copy = self
        copy.disposition = .unchangedForEncoding
        return copy
    }

    private enum CodingKeys: String, CodingKey {
        case kind, element, attribute, original, url, localName, localPath, rewritten, skipReason, byteRange, shownOn
    }

    /// Encodes every field, `localPath` included.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(element, forKey: .element)
        try container.encodeIfPresent(attribute, forKey: .attribute)
        try container.encode(original, forKey: .original)
        try container.encodeIfPresent(url, forKey: .url)
        try container.encodeIfPresent(localName, forKey: .localName)
        try container.encodeIfPresent(localPath, forKey: .localPath)
        try container.encode(rewritten, forKey: .rewritten)
        try container.encodeIfPresent(disposition.code, forKey: .skipReason)
        try container.encode(byteRange, forKey: .byteRange)
        try container.encodeIfPresent(shownOn, forKey: .shownOn)
    }

    /// Decodes what `encode(to:)` wrote.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(Kind.self, forKey: .kind)
        element = try container.decode(String.self, forKey: .element)
        attribute = try container.decodeIfPresent(String.self, forKey: .attribute)
        original = try container.decode(String.self, forKey: .original)
        url = try container.decodeIfPresent(String.self, forKey: .url)
        let localName = try container.decodeIfPresent(String.self, forKey: .localName)
        name = localName.flatMap(LocalName.init)
        let rewritten = try container.decode(Bool.self, forKey: .rewritten)
        let code = try container.decodeIfPresent(String.self, forKey: .skipReason)
        if rewritten {
            disposition = .rewritten
        } else if let code {
            guard let decoded = Disposition(code: code) else {
                throw DecodingError.dataCorruptedError(forKey: .skipReason, in: container, debugDescription: "unknown skipReason \(code)")
            }
            disposition = decoded
        } else {
            disposition = .unchangedForEncoding
        }
        nameSource = localName == nil ? .none : .url
        byteRange = try container.decode(Range<Int>.self, forKey: .byteRange)
        shownOn = try container.decodeIfPresent([String].self, forKey: .shownOn)
        let path = try container.decodeIfPresent(String.self, forKey: .localPath)
        if let path, let localName, path.hasSuffix(localName) {
            localPathPrefix = String(path.dropLast(localName.count))
        } else {
            localPathPrefix = nil
        }
    }
}
