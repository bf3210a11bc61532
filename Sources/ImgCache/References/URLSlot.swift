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
}
