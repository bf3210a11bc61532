/// Makes a page's `<base href>` stop redirecting relative URLs, as `wget -k` does, once images
/// have been rewritten to paths relative to the page; and keeps every other relative URL
/// pointing where it pointed by making it absolute against the original base.
///
/// Without this, a browser would resolve `images/….png` against the remote base and miss the
/// local files. This is the only change outside image URLs the rewriter makes.
struct BaseElementNeutralizer {
    let collector: ReferenceCollector
    let scanner: HTMLScanner
    let originalBase: WebURL
    let queryEncoding: (@Sendable (String) -> [UInt8])?

    func edits(baseHref: URLSlot, skipping rewrittenStarts: Set<Int>) -> [ByteEdit] {
        // An empty href makes the base the document's own URL, so `#top` still means this page.
        // In an unquoted value, emptying would make `href= target=x` mean href="target=x".
        let emptied = baseHref.context == .attribute(quote: nil) ? Array("\"\"".utf8) : []
        var edits = [ByteEdit(range: baseHref.range, replacement: emptied)]

        var slots = collector.urlSlots.filter { !rewrittenStarts.contains($0.range.lowerBound) && !$0.text.isEmpty }
        let imageRanges = collector.urlSlots.map(\.range)
        for pending in collector.linkTags where pending.name != "base" {
            guard let tag = scanner.locate(pending) else { continue }
            for slot in collector.urlAttributeSlots(of: tag, element: pending.name) {
                // Values that hold image URLs were already taken care of above.
                let holdsImageURL = imageRanges.contains { $0.lowerBound >= slot.range.lowerBound && $0.upperBound <= slot.range.upperBound }
                if !holdsImageURL { slots.append(slot) }
            }
        }
        for slot in slots where Self.dependsOnBase(slot.text) {
            guard let absolute = WebURL(slot.text, relativeTo: originalBase, queryEncoding: queryEncoding) else { continue }
            edits.append(ByteEdit(range: slot.range, replacement: ReplacementEscaper.escape(absolute.serialized, for: slot.context)))
        }
        return edits
    }

    /// Whether `text` can mean different URLs against different bases: a relative URL, or one that
    /// names a special scheme without `//` (`http:page.html` is relative against an http base and
    /// `http://page.html/` against any other), so that emptying the base could change it.
    static func dependsOnBase(_ text: String) -> Bool {
        guard let url = WebURL(text) else { return true }
        guard url.isSpecial else { return false }
        // As the URL parser reads it: no tabs or newlines, no leading controls or spaces.
        let scalars = text.unicodeScalars.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" }.drop { $0.value <= 0x20 }
        let afterScheme = scalars.dropFirst(url.scheme.unicodeScalars.count + 1).prefix(2)
        return !(afterScheme.count == 2 && afterScheme.allSatisfy { $0 == "/" || $0 == "\\" })
    }
}
