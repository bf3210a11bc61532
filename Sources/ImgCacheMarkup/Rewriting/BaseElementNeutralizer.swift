import ImgCacheURLs
/// Makes a page's `<base href>` stop redirecting relative URLs, as `wget -k` does, once images
/// have been rewritten to paths relative to the page; and keeps every other relative URL
/// pointing where it pointed by making it absolute against the original base. The same, with no
/// `<base>` to empty, makes a page written away from its origin reach its stylesheets, scripts
/// and links (``OtherURLs``).
///
/// Without this, a browser would resolve `images/….png` against the remote base and miss the
/// local files. These are the only changes outside image URLs the rewriter makes.
struct BaseElementNeutralizer {
    let originalBase: BrowserURL
    let queryEncoding: (@Sendable (String) -> [UInt8])?

    /// - Parameter slots: the page's URL slots left as they were (image URLs not rewritten, with
    ///   some text; links, scripts and the like), each made absolute when the base mattered to it.
    ///   - baseHref: the `<base href>` value to empty, if any.
    func edits(baseHref: URLSlot?, slots: [URLSlot]) -> [ByteEdit] {
        var edits: [ByteEdit] = []
        if let baseHref {
            // An empty href makes the base the document's own URL, so `#top` still means this page.
            // In an unquoted value, emptying would make `href= target=x` mean href="target=x".
            let emptied = baseHref.context == .attribute(quote: nil) ? Array("\"\"".utf8) : []
            edits.append(ByteEdit(range: baseHref.range, replacement: emptied))
        }
        // Plain links go through the fast resolver, which gives the parser's answer: running the
        // parser twice for each of a page's links is costly, and pages have many.
        let simple = SimpleURLResolver(base: originalBase)
        // With no `<base>`, the base is the page's own URL.
        let pageURL = baseHref == nil ? originalBase.serializedWithoutFragment : nil
        for slot in slots {
            // With no base, `#top` and an empty href mean this document, wherever it is.
            if baseHref == nil, Self.refersToSameDocument(slot.text) { continue }
            let absolute: String
            if let simple, let resolved = simple.resolve(slot.text) {
                // It takes no absolute URL but a plain http(s) one, which no base changes.
                if slot.text.hasPrefix("http://") || slot.text.hasPrefix("https://") { continue }
                absolute = resolved
            } else {
                guard Self.dependsOnBase(slot.text),
                      let url = BrowserURL(slot.text, relativeTo: originalBase, queryEncoding: queryEncoding) else { continue }
                absolute = url.serialized
            }
            // A refresh's URL may sit in quotes inside `content`: a quote in the absolute URL
            // would end it early, so such a URL stays as written.
            if slot.attribute == "content", absolute.contains(where: { $0 == "'" || $0 == "\"" }) { continue }
            if let pageURL, let hash = absolute.firstIndex(of: "#"), absolute[..<hash] == pageURL {
                // A place in this page (`index.html#s2` in index.html): its fragment alone keeps
                // it in the copy, as `wget -k` keeps links to what it saved, whatever the copy's
                // file is called.
                edits.append(ByteEdit(range: slot.range, replacement: ReplacementEscaper.escape(String(absolute[hash...]), for: slot.context)))
                continue
            }
            edits.append(ByteEdit(range: slot.range, replacement: ReplacementEscaper.escape(absolute, for: slot.context)))
        }
        return edits
    }

    /// Whether `text` is empty or a fragment alone, once the URL parser's leading spaces and controls,
    /// tabs and newlines are dropped.
    static func refersToSameDocument(_ text: String) -> Bool {
        let first = text.unicodeScalars.first { $0.value > 0x20 }
        return first == nil || first == "#"
    }

    /// Whether `text` can mean different URLs against different bases: a relative URL, or one that
    /// names a special scheme without `//` (`http:page.html` is relative against an http base and
    /// `http://page.html/` against any other), so that emptying the base could change it.
    static func dependsOnBase(_ text: String) -> Bool {
        guard let url = BrowserURL(text) else { return true }
        guard url.isSpecial else { return false }
        // As the URL parser reads it: no tabs or newlines, no leading controls or spaces.
        let scalars = text.unicodeScalars.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" }.drop { $0.value <= 0x20 }
        let afterScheme = scalars.dropFirst(url.scheme.unicodeScalars.count + 1).prefix(2)
        return !(afterScheme.count == 2 && afterScheme.allSatisfy { $0 == "/" || $0 == "\\" })
    }
}
