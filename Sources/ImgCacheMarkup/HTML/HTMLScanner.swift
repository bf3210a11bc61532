import ImgCacheSupport
#if canImport(Darwin)
internal import libxml2  // the SDK's own module (Xcode 12+): headers in $SDKROOT/usr/include/libxml2
#else
internal import CLibXML2  // pkg-config's libxml-2.0
#endif

/// What an element or attribute name means to a scan handler, asked once per name: the scanner
/// calls the handler only for elements whose name or attributes mean something.
struct ScanInterest: OptionSet, Sendable {
    let rawValue: UInt8

    /// An element that may hold image URLs in its attributes (`img`, `link`, `source`, …).
    static let imageElement = ScanInterest(rawValue: 1 << 0)
    /// An attribute that holds image URLs on any element (`style`, a lazy-loading attribute).
    static let holdsImages = ScanInterest(rawValue: 1 << 1)
    /// A URL-valued attribute that a `<base>` affects.
    static let urlAttribute = ScanInterest(rawValue: 1 << 2)
}

/// Receives what the scanner finds, in document order.
protocol HTMLScanHandler: AnyObject {
    /// What elements of this (lowercase) name mean to the handler; asked once per name and scan.
    func interest(inElement name: String) -> ScanInterest
    /// What attributes of this (lowercase) name mean to the handler; asked once per name and scan.
    func interest(inAttribute name: String) -> ScanInterest
    /// Called for every element libxml2 opens whose name or attributes are of interest. Call
    /// `scanner.locate()` to find its raw tag.
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
///
/// libxml2 calls back for every element, end tag and comment of the page (hundreds of thousands
/// in a large one), so that path touches no String, no Dictionary and no class property: the
/// state it updates lives in one `ScanState` behind a pointer, which Swift's dynamic
/// exclusivity checks (one per class property access) do not cover.
final class HTMLScanner {
    private let state: UnsafeMutablePointer<ScanState>

    /// - Parameter takesInputShortcuts: whether libxml2 is moved past the content of scripts and
    ///   style sheets (``RawTextContentSkip``), text and long attribute values (``UnreadInputCut``);
    ///   what is reported is the same either way.
    init(buffer: ParseBuffer, handler: any HTMLScanHandler, takesInputShortcuts: Bool = LibXML2Runtime.allowsInputShortcuts) {
        state = .allocate(capacity: 1)
        state.initialize(to: ScanState(buffer: buffer, handler: handler, takesInputShortcuts: takesInputShortcuts))
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    private static let initialized: Bool = {
        xmlInitParser()
        return true
    }()

    /// Parses the whole page, calling the handler as elements open.
    func run() {
        _ = Self.initialized
        let page = state.pointee.page
        // libxml2 copies the bytes: its static (no-copy) input buffers read past the end of
        // large documents in 2.9.
        guard page.count > 0, page.count <= Int(Int32.max),
              let ctxt = htmlCreateMemoryParserCtxt(
                  UnsafeRawPointer(page.baseAddress!).assumingMemoryBound(to: CChar.self), Int32(page.count))
        else { return }
        state.pointee.context = ctxt
        state.pointee.scanner = Unmanaged.passUnretained(self)
        defer {
            htmlFreeParserCtxt(ctxt)
            state.pointee.context = nil
        }
        // Pin the encoding: a <meta charset> must not make libxml2 start converting mid-document.
        xmlSwitchEncoding(ctxt, XML_CHAR_ENCODING_UTF8)
        ctxt.pointee.input.pointee.encoding = UnsafePointer(xmlStrdup("UTF-8"))

        var sax = htmlSAXHandler()
        sax.startElement = { userData, name, attributes in
            guard let userData, let name else { return }
            userData.assumingMemoryBound(to: ScanState.self).pointee.started(name, attributes)
        }
        sax.endElement = { userData, name in
            guard let userData, let name else { return }
            userData.assumingMemoryBound(to: ScanState.self).pointee.ended(name)
        }
        sax.comment = { userData, _ in
            guard let userData else { return }
            userData.assumingMemoryBound(to: ScanState.self).pointee.passedComment()
        }
        ctxt.pointee.sax.pointee = sax
        ctxt.pointee.userData = UnsafeMutableRawPointer(state)
        // HUGE lifts the 10 MB limits on a single text node or comment.
        let options = Int32(HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
            | HTML_PARSE_NONET.rawValue | HTML_PARSE_NOIMPLIED.rawValue | XML_PARSE_HUGE.rawValue)
        htmlCtxtUseOptions(ctxt, options)
        _ = htmlParseDocument(ctxt)
    }

    /// How many bytes of script and style content libxml2 was moved past.
    var skippedRawTextBytes: Int { state.pointee.skippedRawTextBytes }

    /// How many bytes of text and attribute values libxml2 was moved past.
    var cutInputBytes: Int { state.pointee.unreadInputCut.cutBytes }

    /// Where the element being reported may be found again later, without libxml2.
    var pendingTag: PendingTag { state.pointee.pendingTag }

    /// Finds the raw start tag of the element being reported: the first `<name` after the
    /// previous tag whose lexed end is the `>` libxml2 stopped at.
    func locate() -> StartTag? { state.pointee.locatePending() }

    /// Finds a tag recorded earlier with `pendingTag`; works after `run()` has returned.
    func locate(_ pending: PendingTag) -> StartTag? { state.pointee.locate(pending) }
}

/// Everything the scan's callbacks read and update.
private struct ScanState {
    let buffer: ParseBuffer
    let page: UnsafeBufferPointer<UInt8>
    let handler: any HTMLScanHandler
    var context: htmlParserCtxtPtr?
    var scanner: Unmanaged<HTMLScanner>?
    let takesInputShortcuts: Bool
    var skippedRawTextBytes = 0
    var unreadInputCut = UnreadInputCut()

    /// Every offset before this belongs to markup libxml2 has already reported.
    var cursor = 0
    var pendingEnd = -1
    var pendingSearchStart = 0
    /// The name id of the element being reported (its name is spelled out only when asked for).
    var pendingID = 0
    var located: StartTag?
    /// Open elements, as name ids.
    var stack: [Int32] = []
    var elementIDs = InternedNameIDs()
    var elementNames: [String] = []
    var elementFlags: [ElementFlags] = []
    var attributeIDs = InternedNameIDs()
    var attributeInterests: [ScanInterest] = []
    var svgDepth = 0
    var inertDepth = 0
    var afterPlaintext = false

    struct ElementFlags {
        var interest: ScanInterest
        var isSVG = false
        var isInert = false
        var isRawText = false
        var isStyle = false
        var isPlaintext = false
        var isVoid = false
        /// Whether libxml2's own table gives the element no content (it ends it at once).
        var isEmptyInLibXML2 = false
    }

    static let inertElements: Set<String> = ["textarea", "title", "iframe", "xmp", "noembed", "noframes"]
    static let rawTextElements: Set<String> = ["script", "style"]
    /// HTML's void elements: they have no content, so they never become a parent. libxml2's HTML4
    /// table does not know all of them (`source`, `track`, `wbr`, …) and keeps those open, which
    /// would make a `picture`'s second `source` a child of its first.
    static let voidElements: Set<String> = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "link", "meta", "param", "source", "track", "wbr",
    ]

    init(buffer: ParseBuffer, handler: any HTMLScanHandler, takesInputShortcuts: Bool) {
        self.buffer = buffer
        self.page = buffer.view
        self.handler = handler
        self.takesInputShortcuts = takesInputShortcuts
    }

    private var consumed: Int {
        guard let context else { return 0 }
        return unreadInputCut.originalOffset(Int(xmlByteConsumed(context)))
    }

    private mutating func elementID(_ cName: UnsafePointer<xmlChar>) -> Int {
        if let id = elementIDs.id(of: cName) { return id }
        let name = String(cString: cName)
        let id = elementNames.firstIndex(of: name) ?? elementNames.count
        if id == elementNames.count {
            elementNames.append(name)
            elementFlags.append(ElementFlags(
                interest: handler.interest(inElement: name),
                isSVG: name == "svg", isInert: Self.inertElements.contains(name), isRawText: Self.rawTextElements.contains(name),
                isStyle: name == "style", isPlaintext: name == "plaintext", isVoid: Self.voidElements.contains(name),
                isEmptyInLibXML2: htmlTagLookup(cName).map { $0.pointee.empty != 0 } ?? false))
        }
        elementIDs.insert(cName, id: id)
        return id
    }

    private mutating func attributeInterest(_ cName: UnsafePointer<xmlChar>) -> ScanInterest {
        if let id = attributeIDs.id(of: cName) { return attributeInterests[id] }
        let interest = handler.interest(inAttribute: String(cString: cName))
        attributeIDs.insert(cName, id: attributeInterests.count)
        attributeInterests.append(interest)
        return interest
    }

    mutating func started(_ cName: UnsafePointer<xmlChar>, _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) {
        let id = elementID(cName)
        let flags = elementFlags[id]
        let end = consumed
        // An element without attributes holds no URL, whatever its name.
        var interest: ScanInterest = []
        if let attributes, attributes[0] != nil {
            interest = flags.interest
            var i = 0
            while let attributeName = attributes[i] {
                interest.formUnion(attributeInterest(attributeName))
                i += 2
            }
        }
        pendingEnd = end
        pendingSearchStart = cursor
        pendingID = id
        located = nil
        let inert = inertDepth > 0 || afterPlaintext

        if !interest.isEmpty, let scanner {
            let element = ElementStart(
                name: elementNames[id],
                parentName: stack.last.map { elementNames[Int($0)] },
                inSVG: svgDepth > 0,
                isInert: inert,
                interest: interest
            )
            handler.elementStarted(element, scanner: scanner.takeUnretainedValue())
        }

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

        // Where libxml2 will take a style element's content to end, found by the same search as
        // its real end: the skip below then need not search the content again.
        var styleEndTag: Int?
        if flags.isStyle, let tag = located ?? locatePending() {
            let contentStart = tag.end + 1
            let (contentEnd, firstEndTag) = rawTextEnd(named: "style", from: contentStart)
            handler.styleText(contentStart..<contentEnd, isInert: inert)
            cursor = max(cursor, contentEnd)
            styleEndTag = firstEndTag.map { $0 - contentStart }
        }

        if takesInputShortcuts, let context {
            if flags.isRawText {
                skippedRawTextBytes += RawTextContentSkip.skipContent(of: cName, in: context, endTagOffset: styleEndTag)
            } else {
                unreadInputCut.prepareAfterStartTag(in: context, isEmpty: flags.isEmptyInLibXML2)
            }
        }

        // In SVG, a tag with a void element's name is an ordinary (foreign) element.
        if flags.isVoid && svgDepth == 0 { return }
        stack.append(Int32(id))
        if flags.isSVG { svgDepth += 1 }
        if flags.isInert { inertDepth += 1 }
        if flags.isPlaintext { afterPlaintext = true }
    }

    mutating func ended(_ cName: UnsafePointer<xmlChar>) {
        defer { if takesInputShortcuts, let context { unreadInputCut.prepareAfterEndTag(in: context) } }
        let id = elementID(cName)
        // A raw-text element always ends at an explicit end tag (or the end of input), and what
        // it contained may look like tags: skip past it.
        if elementFlags[id].isRawText {
            let end = consumed
            if end >= 0 { cursor = max(cursor, min(end, page.count)) }
        }
        guard let index = stack.lastIndex(of: Int32(id)) else { return }
        for position in index..<stack.count {
            let popped = elementFlags[Int(stack[position])]
            if popped.isSVG { svgDepth -= 1 }
            if popped.isInert { inertDepth -= 1 }
        }
        stack.removeLast(stack.count - index)
    }

    mutating func passedComment() {
        let end = consumed
        if end >= 0 { cursor = max(cursor, min(end, page.count)) }
        if takesInputShortcuts, let context { unreadInputCut.prepareAfterComment(in: context) }
    }

    var pendingTag: PendingTag {
        PendingTag(name: elementNames.indices.contains(pendingID) ? elementNames[pendingID] : "",
                   searchStart: pendingSearchStart, end: pendingEnd)
    }

    mutating func locatePending() -> StartTag? {
        if let located { return located }
        located = locate(pendingTag)
        return located
    }

    func locate(_ pending: PendingTag) -> StartTag? {
        let end = pending.end
        guard end >= 0, end < page.count else { return nil }
        var p = pending.searchStart
        let nameBytes = pending.name.utf8
        while p < end {
            p = nextOpeningBracket(from: p, before: end)
            guard p < end else { break }
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
        startsWithName(name, at: offset) && endsName(name, at: offset)
    }

    /// Where a raw-text element's content ends: at `</name` followed by whitespace, `/` or `>`
    /// (case-insensitive), as the tokenizer's "appropriate end tag" rule says, or at the end. And
    /// the first `</name` whatever follows it, where libxml2 ends it (``RawTextContentSkip``): the
    /// same place but for a longer name first (`</styles`), nil when there is none.
    private func rawTextEnd(named name: String, from start: Int) -> (end: Int, firstEndTag: Int?) {
        let nameBytes = name.utf8
        var firstEndTag: Int?
        var p = start
        while p + 1 < page.count {
            p = nextOpeningBracket(from: p, before: page.count - 1)
            guard p + 1 < page.count else { break }
            if page[p + 1] == UInt8(ascii: "/"), startsWithName(nameBytes, at: p + 2) {
                if firstEndTag == nil { firstEndTag = p }
                if endsName(nameBytes, at: p + 2) { return (p, firstEndTag) }
            }
            p += 1
        }
        return (page.count, firstEndTag)
    }

    /// Whether the page holds `name` at `offset`, ASCII letters in any case.
    private func startsWithName(_ name: String.UTF8View, at offset: Int) -> Bool {
        guard offset + name.count <= page.count else { return false }
        for (k, byte) in name.enumerated() where page[offset + k].asciiLowercased != byte { return false }
        return true
    }

    /// Whether the name of `name.count` bytes at `offset` ends there, as an end tag's name does.
    private func endsName(_ name: String.UTF8View, at offset: Int) -> Bool {
        guard offset + name.count < page.count else { return false }
        let next = page[offset + name.count]
        return next == 0x20 || next == 0x09 || next == 0x0A || next == 0x0C || next == 0x0D
            || next == UInt8(ascii: "/") || next == UInt8(ascii: ">")
    }

    private func nextOpeningBracket(from start: Int, before end: Int) -> Int {
        page.firstOffset(of: UInt8(ascii: "<"), from: start, before: end)
    }
}

/// Small ids for the names libxml2 reports. libxml2 interns names in its dictionary, so the
/// address stands for the name: a lookup hashes a pointer instead of building and hashing a String.
/// (A name that reaches us under two addresses gets two entries with the same id.)
private struct InternedNameIDs {
    private var keys: [UnsafeRawPointer?] = Array(repeating: nil, count: 64)
    private var ids: [Int32] = Array(repeating: 0, count: 64)
    private var count = 0

    private func slot(of key: UnsafeRawPointer) -> Int {
        let mask = keys.count - 1
        // Fibonacci hashing of the address; dictionary entries are at least 8-byte aligned.
        var slot = Int(truncatingIfNeeded: (UInt(bitPattern: key) >> 3) &* 0x9E37_79B9_7F4A_7C15 >> 40) & mask
        while let existing = keys[slot], existing != key { slot = (slot + 1) & mask }
        return slot
    }

    func id(of name: UnsafePointer<xmlChar>) -> Int? {
        let slot = slot(of: UnsafeRawPointer(name))
        return keys[slot] == nil ? nil : Int(ids[slot])
    }

    mutating func insert(_ name: UnsafePointer<xmlChar>, id: Int) {
        if (count + 1) * 2 > keys.count { grow() }
        let key = UnsafeRawPointer(name)
        let slot = slot(of: key)
        if keys[slot] == nil { count += 1 }
        keys[slot] = key
        ids[slot] = Int32(id)
    }

    private mutating func grow() {
        let oldKeys = keys, oldIDs = ids
        keys = Array(repeating: nil, count: oldKeys.count * 2)
        ids = Array(repeating: 0, count: oldKeys.count * 2)
        for (key, id) in zip(oldKeys, oldIDs) {
            guard let key else { continue }
            let slot = slot(of: key)
            keys[slot] = key
            ids[slot] = id
        }
    }
}
