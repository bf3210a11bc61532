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

    /// - Parameters:
    ///   - slots: the page's URL slots left as they were, with some text.
    ///   - slotRanges: where every URL slot of the page is, rewritten or not, in document order.
    func edits(baseHref: URLSlot, slots: [URLSlot], slotRanges: [Range<Int>]) -> [ByteEdit] {
        // An empty href makes the base the document's own URL, so `#top` still means this page.
        // In an unquoted value, emptying would make `href= target=x` mean href="target=x".
        let emptied = baseHref.context == .attribute(quote: nil) ? Array("\"\"".utf8) : []
        var edits = [ByteEdit(range: baseHref.range, replacement: emptied)]

        var slots = slots
        let sortedRanges = slotRanges.sorted { $0.lowerBound < $1.lowerBound }
        for pending in collector.linkTags where pending.name != "base" {
            guard let tag = scanner.locate(pending) else { continue }
            for slot in collector.urlAttributeSlots(of: tag, element: pending.name) {
                // Values that hold image URLs were already taken care of above.
                if !Self.holdsSlot(slot.range, sortedRanges) { slots.append(slot) }
            }
        }
        // Plain links go through the fast resolver, which gives the parser's answer: running the
        // parser twice for each of a page's links cost 40,000 instructions a link.
        let simple = SimpleURLResolver(base: originalBase)
        for slot in slots {
            let absolute: String
            if let simple, let resolved = simple.resolve(slot.text) {
                // It takes no absolute URL but a plain http(s) one, which no base changes.
                if slot.text.hasPrefix("http://") || slot.text.hasPrefix("https://") { continue }
                absolute = resolved
            } else {
                guard Self.dependsOnBase(slot.text),
                      let url = WebURL(slot.text, relativeTo: originalBase, queryEncoding: queryEncoding) else { continue }
                absolute = url.serialized
            }
            edits.append(ByteEdit(range: slot.range, replacement: ReplacementEscaper.escape(absolute, for: slot.context)))
        }
        return edits
    }

    /// Whether one of `ranges` (sorted by start) lies within `range`; found by binary search, since
    /// a page with a `<base>` can have thousands of both links and images.
    private static func holdsSlot(_ range: Range<Int>, _ ranges: [Range<Int>]) -> Bool {
        var low = 0
        var high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].lowerBound < range.lowerBound { low = middle + 1 } else { high = middle }
        }
        var index = low
        while index < ranges.count, ranges[index].lowerBound <= range.upperBound {
            if ranges[index].upperBound <= range.upperBound { return true }
            index += 1
        }
        return false
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
