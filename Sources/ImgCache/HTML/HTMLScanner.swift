internal import CLibXML2

/// Receives what the scanner finds, in document order.
protocol HTMLScanHandler: AnyObject {
    /// Called for every element libxml2 opens. Call `scanner.locate(_:)` to find its raw tag.
    func elementStarted(_ element: ElementStart, scanner: HTMLScanner)
    /// The raw text of a `<style>` element (between its start tag and its end tag).
    func styleText(_ range: Range<Int>, isInert: Bool)
}

/// Drives libxml2's HTML SAX parser over a page and maps its events back to raw byte offsets.
///
/// libxml2 decides what is markup (comments, scripts, unclosed quotes, recovery from broken HTML);
/// at each start tag `xmlByteConsumed` gives the offset of its `>`. The tag's own bytes are then
/// lexed from the page, starting after the previous tag, so that every attribute value has an
/// exact byte range. No tree is built, so memory does not grow with the document.
final class HTMLScanner {
    private let buffer: ParseBuffer
    private let page: UnsafeBufferPointer<UInt8>
    private unowned let handler: any HTMLScanHandler
    private var context: htmlParserCtxtPtr?

    /// Every offset before this belongs to markup libxml2 has already reported.
    private var cursor = 0
    private var pendingEnd = -1
    private var pendingSearchStart = 0
    private var pendingName = ""
    private var located: StartTag?
    /// Open elements, as name ids.
    private var stack: [Int] = []
    // libxml2 interns names in its dictionary, so a pointer stands for a name: per-element work
    // is then a pointer lookup instead of building and hashing a String.
    private var elementNameIDs: [UnsafeRawPointer: Int] = [:]
    private var elementNames: [String] = []
    private var elementFlags: [ElementFlags] = []
    private var attributeNameIDs: [UnsafeRawPointer: Int] = [:]
    private var attributeNames: [String] = []
    private var currentAttributeIDs: [Int] = []

    private struct ElementFlags {
        var isSVG = false
        var isInert = false
        var isRawText = false
        var isStyle = false
        var isPlaintext = false
        var isVoid = false
    }
    private var svgDepth = 0
    private var inertDepth = 0
    private var afterPlaintext = false

    private static let inertElements: Set<String> = ["textarea", "title", "iframe", "xmp", "noembed", "noframes"]
    private static let rawTextElements: Set<String> = ["script", "style"]
    /// HTML's void elements: they have no content, so they never become a parent. libxml2's HTML4
    /// table does not know all of them (`source`, `track`, `wbr`, …) and keeps those open, which
    /// would make a `picture`'s second `source` a child of its first.
    private static let voidElements: Set<String> = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "link", "meta", "param", "source", "track", "wbr",
    ]

    private static let initialized: Bool = {
        xmlInitParser()
        return true
    }()

    init(buffer: ParseBuffer, handler: any HTMLScanHandler) {
        self.buffer = buffer
        self.page = buffer.view
        self.handler = handler
    }

    /// Parses the whole page, calling the handler as elements open.
    func run() {
        _ = Self.initialized
        // libxml2 copies the bytes: its static (no-copy) input buffers read past the end of
        // large documents in 2.9.
        guard buffer.count > 0, buffer.count <= Int(Int32.max),
              let ctxt = htmlCreateMemoryParserCtxt(
                  UnsafeRawPointer(page.baseAddress!).assumingMemoryBound(to: CChar.self), Int32(buffer.count))
        else { return }
        context = ctxt
        defer {
            htmlFreeParserCtxt(ctxt)
            context = nil
        }
        // Pin the encoding: a <meta charset> must not make libxml2 start converting mid-document.
        xmlSwitchEncoding(ctxt, XML_CHAR_ENCODING_UTF8)
        ctxt.pointee.input.pointee.encoding = UnsafePointer(xmlStrdup("UTF-8"))

        var sax = htmlSAXHandler()
        sax.startElement = { userData, name, attributes in
            guard let userData, let name else { return }
            Unmanaged<HTMLScanner>.fromOpaque(userData).takeUnretainedValue().started(name, attributes)
        }
        sax.endElement = { userData, name in
            guard let userData, let name else { return }
            Unmanaged<HTMLScanner>.fromOpaque(userData).takeUnretainedValue().ended(name)
        }
        sax.comment = { userData, _ in
            guard let userData else { return }
            Unmanaged<HTMLScanner>.fromOpaque(userData).takeUnretainedValue().passedComment()
        }
        ctxt.pointee.sax.pointee = sax
        ctxt.pointee.userData = Unmanaged.passUnretained(self).toOpaque()
        // HUGE lifts the 10 MB limits on a single text node or comment.
        let options = Int32(HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
            | HTML_PARSE_NONET.rawValue | HTML_PARSE_NOIMPLIED.rawValue | XML_PARSE_HUGE.rawValue)
        htmlCtxtUseOptions(ctxt, options)
        _ = htmlParseDocument(ctxt)
    }

    private var consumed: Int {
        guard let context else { return 0 }
        return Int(xmlByteConsumed(context))
    }

    /// The name of an attribute id given in `ElementStart.attributeNameIDs`.
    func attributeName(_ id: Int) -> String { attributeNames[id] }

    private func elementID(_ cName: UnsafePointer<xmlChar>) -> Int {
        if let id = elementNameIDs[UnsafeRawPointer(cName)] { return id }
        let name = String(cString: cName)
        let id = elementNames.firstIndex(of: name) ?? elementNames.count
        if id == elementNames.count {
            elementNames.append(name)
            elementFlags.append(ElementFlags(
                isSVG: name == "svg", isInert: Self.inertElements.contains(name), isRawText: Self.rawTextElements.contains(name),
                isStyle: name == "style", isPlaintext: name == "plaintext", isVoid: Self.voidElements.contains(name)))
        }
        elementNameIDs[UnsafeRawPointer(cName)] = id
        return id
    }

    private func attributeID(_ cName: UnsafePointer<xmlChar>) -> Int {
        if let id = attributeNameIDs[UnsafeRawPointer(cName)] { return id }
        let name = String(cString: cName)
        let id = attributeNames.firstIndex(of: name) ?? attributeNames.count
        if id == attributeNames.count { attributeNames.append(name) }
        attributeNameIDs[UnsafeRawPointer(cName)] = id
        return id
    }

    private func started(_ cName: UnsafePointer<xmlChar>, _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) {
        let id = elementID(cName)
        let name = elementNames[id]
        let flags = elementFlags[id]
        let end = consumed
        currentAttributeIDs.removeAll(keepingCapacity: true)
        if let attributes {
            var i = 0
            while let attributeName = attributes[i] {
                currentAttributeIDs.append(attributeID(attributeName))
                i += 2
            }
        }
        pendingEnd = end
        pendingSearchStart = cursor
        pendingName = name
        located = nil

        let inert = inertDepth > 0 || afterPlaintext
        let element = ElementStart(
            name: name,
            nameID: id,
            parentName: stack.last.map { elementNames[$0] },
            inSVG: svgDepth > 0,
            isInert: inert,
            attributeNameIDs: currentAttributeIDs[...]
        )
        handler.elementStarted(element, scanner: self)

        if let tag = located {
            cursor = tag.end + 1
        } else if end >= 0, end < page.count {
            // Only a real tag's end moves the cursor: libxml2 also opens implied elements (a `p`
            // around stray text) at offsets that are not a `>`.
            if page[end] == UInt8(ascii: ">") {
                cursor = max(cursor, end + 1)
            } else if page[end] == UInt8(ascii: "/"), end + 1 < page.count, page[end + 1] == UInt8(ascii: ">") {
                cursor = max(cursor, end + 2)
            }
        }

        if flags.isStyle, let tag = located ?? locate() {
            let contentStart = tag.end + 1
            let contentEnd = rawTextEnd(named: "style", from: contentStart)
            handler.styleText(contentStart..<contentEnd, isInert: inert)
            cursor = max(cursor, contentEnd)
        }

        // In SVG, a tag with a void element's name is an ordinary (foreign) element.
        if flags.isVoid && svgDepth == 0 { return }
        stack.append(id)
        if flags.isSVG { svgDepth += 1 }
        if flags.isInert { inertDepth += 1 }
        if flags.isPlaintext { afterPlaintext = true }
    }

    private func ended(_ cName: UnsafePointer<xmlChar>) {
        let id = elementID(cName)
        // A raw-text element always ends at an explicit end tag (or the end of input), and what
        // it contained may look like tags: skip past it.
        if elementFlags[id].isRawText {
            let end = consumed
            if end >= 0 { cursor = max(cursor, min(end, page.count)) }
        }
        guard let index = stack.lastIndex(of: id) else { return }
        for popped in stack[index...] {
            if elementFlags[popped].isSVG { svgDepth -= 1 }
            if elementFlags[popped].isInert { inertDepth -= 1 }
        }
        stack.removeSubrange(index...)
    }

    private func passedComment() {
        let end = consumed
        if end >= 0 { cursor = max(cursor, min(end, page.count)) }
    }

    /// Where the element being reported may be found again later, without libxml2.
    var pendingTag: PendingTag {
        PendingTag(name: pendingName, searchStart: pendingSearchStart, end: pendingEnd)
    }

    /// Finds the raw start tag of the element being reported: the first `<name` after the
    /// previous tag whose lexed end is the `>` libxml2 stopped at.
    func locate() -> StartTag? {
        if let located { return located }
        located = locate(pendingTag)
        return located
    }

    /// Finds a tag recorded earlier with `pendingTag`; works after `run()` has returned.
    func locate(_ pending: PendingTag) -> StartTag? {
        let end = pending.end
        guard end >= 0, end < page.count else { return nil }
        var p = pending.searchStart
        let nameBytes = pending.name.utf8
        while p < end {
            guard page[p] == UInt8(ascii: "<") else {
                p += 1
                continue
            }
            if matchesName(nameBytes, at: p + 1),
               let tag = StartTagLexer.lex(at: p, in: page, limit: end + 1),
               tag.end == end || (tag.end == end + 1 && page[end] == UInt8(ascii: "/")) {
                return tag
            }
            p += 1
        }
        return nil
    }

    private func matchesName(_ name: String.UTF8View, at offset: Int) -> Bool {
        guard offset + name.count < page.count else { return false }
        for (k, byte) in name.enumerated() {
            let c = page[offset + k]
            let lower = (c >= 0x41 && c <= 0x5A) ? c | 0x20 : c
            if lower != byte { return false }
        }
        let next = page[offset + name.count]
        return next == 0x20 || next == 0x09 || next == 0x0A || next == 0x0C || next == 0x0D
            || next == UInt8(ascii: "/") || next == UInt8(ascii: ">")
    }

    /// Where a raw-text element's content ends: at `</name` followed by whitespace, `/` or `>`
    /// (case-insensitive), as the tokenizer's "appropriate end tag" rule says, or at the end.
    private func rawTextEnd(named name: String, from start: Int) -> Int {
        let nameBytes = name.utf8
        var p = start
        while p + 1 < page.count {
            if page[p] == UInt8(ascii: "<"), page[p + 1] == UInt8(ascii: "/"), matchesName(nameBytes, at: p + 2) {
                return p
            }
            p += 1
        }
        return page.count
    }
}
