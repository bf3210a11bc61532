/// How a URL's bytes sit in the page, which decides how a replacement must be escaped.
enum SlotContext: Sendable, Equatable {
    /// An attribute value; `quote` is `"`, `'` or nil when unquoted.
    case attribute(quote: UInt8?)
    /// CSS inside a `style` attribute (character references apply, then CSS syntax).
    case cssInAttribute(quote: UInt8?)
    /// CSS inside a `<style>` element (raw text: no character references).
    case cssInElement
}

/// A URL's place in the page: the raw bytes that spell it and the text they decode to.
struct URLSlot: Sendable {
    /// Bytes of the page that spell the URL (after trimming surrounding whitespace).
    let range: Range<Int>
    /// The URL text, decoded.
    let text: String
    let context: SlotContext
    /// The reference kind, or nil for a URL that is not an image (links, scripts, … kept for `<base>` handling).
    let kind: ImageReference.Kind?
    let element: String
    let attribute: String?
    /// False for a `srcset` candidate that browsers drop.
    let isValidCandidate: Bool
    /// True inside markup browsers treat as text.
    let isInert: Bool
    /// True where the markup says "this is an image" beyond doubt, so that a URL naming no
    /// format may be fetched to let its bytes decide.
    var acceptsUntyped = false
}

extension URLSlot {
    /// Whether `property` (lowercase) is a CSS property whose `url()` values are images. Compared
    /// name by name: a set of them hashed the name of every CSS URL's property, which showed on
    /// pages of big `<style>` blocks.
    static func isImageProperty(_ property: String) -> Bool {
        switch property {
        case "background", "background-image", "list-style", "list-style-image", "border-image", "border-image-source",
             "content", "mask", "mask-image", "-webkit-mask", "-webkit-mask-image", "-webkit-mask-box-image":
            true
        default:
            false
        }
    }

    /// Whether an attribute reference of `kind` on `element` is unambiguously an image: every
    /// image attribute, and the lazy attributes of `img` and `source` (elsewhere they may hold anything).
    static func attributeAcceptsUntyped(kind: ImageReference.Kind?, element: String) -> Bool {
        switch kind {
        case nil, .styleAttribute, .styleElement, .stylesheet: false
        case .lazyAttribute: element == "img" || element == "source"
        default: true
        }
    }

    /// Whether a CSS URL is unambiguously an image: the value of an image property, never a font
    /// or an `@import`.
    static func cssAcceptsUntyped(_ token: CSSURLToken) -> Bool {
        guard !token.isNeverImage, let property = token.property else { return false }
        return isImageProperty(property)
    }
}
