import ImgCacheSupport
/// Decides, element by element, which attribute values and CSS hold image URLs, and records
/// where each URL's bytes are. Works for `HTMLScanner`, which tells it what libxml2 saw.
final class ReferenceCollector: HTMLScanHandler {
    private let page: UnsafeBufferPointer<UInt8>
    /// The sanitised copy: same offsets, ASCII structure, used for names.
    private let structure: UnsafeBufferPointer<UInt8>
    private let encoding: HTMLEncoding
    private let lazyAttributes: Set<String>
    /// Every attribute name the cases of `collect` look at: the lazy attributes and these.
    private let attributesOfInterest: Set<String>
    /// Lets through every attribute name `collect` and `urlAttributeSlots` look at or look up.
    private let namesLookedAt: AttributeNameFilter
    private static let imageAttributes: Set<String> = [
        "src", "srcset", "href", "xlink:href", "poster", "imagesrcset", "background", "style",
    ]

    /// Image URLs, and the `@import` URLs of CSS (with a nil kind), in document order.
    private(set) var urlSlots = URLSlotList()
    /// Takes the URL slots out, leaving none: their memory can then go as they are used.
    func takeURLSlots() -> URLSlotList {
        defer { urlSlots = URLSlotList() }
        return urlSlots
    }

    /// The `href`s of `<link rel=stylesheet>`, as written (decoded), in document order.
    private(set) var stylesheetHrefs: [String] = []
    /// The first `<base>` with an `href`: its value's slot.
    private(set) var baseHref: URLSlot?
    /// Elements with URL attributes, to make absolute if a `<base>` must be neutralised; lexed
    /// only then, since most pages have no `<base>`.
    private(set) var linkTags: [PendingTag] = []

    /// Each `<img>` with what a browser reads to pick its image, when asked for (devices are
    /// given): empty otherwise.
    package private(set) var responsiveImages: [ResponsiveImageSpan] = []
    /// Whether ``responsiveImages`` is wanted.
    private let collectsResponsiveImages: Bool
    /// The `<source>` elements of the `<picture>` being read, before its `<img>`.
    private var pendingSources: [(source: ResponsiveImage.Source, srcset: Range<Int>?)] = []
    /// The same sources as a lazy loader will make them, from their lazy `srcset` attribute.
    private var pendingLazySources: [(source: ResponsiveImage.Source, srcset: Range<Int>?)] = []

    private static let backgroundElements: Set<String> = ["body", "table", "thead", "tbody", "tfoot", "tr", "td", "th"]
    private static let imageElements = Set(["img", "image", "source", "input", "video", "link", "feimage", "base"])
        .union(backgroundElements)
    /// Attributes holding a URL that `<base>` affects (HTML's URL-valued attributes).
    static let urlAttributes: Set<String> = [
        "href", "src", "action", "formaction", "poster", "data", "cite", "longdesc", "background",
        "srcset", "imagesrcset", "manifest", "xlink:href", "codebase",
        // `<meta http-equiv=refresh content="5; url=next.html">`: the URL part of it.
        "content",
    ]

    /// - Parameter responsiveImages: whether to gather ``responsiveImages`` (the attributes a
    ///   browser picks an image by, which a page read without devices never needs).
    init(page: UnsafeBufferPointer<UInt8>, structure: UnsafeBufferPointer<UInt8>, encoding: HTMLEncoding, names: AttributeNames,
         responsiveImages: Bool = false) {
        self.page = page
        self.structure = structure
        self.encoding = encoding
        self.lazyAttributes = names.lazy
        attributesOfInterest = names.ofInterest
        namesLookedAt = responsiveImages ? names.lookedAt.adding(Self.selectionAttributes) : names.lookedAt
        collectsResponsiveImages = responsiveImages
    }

    /// The attributes besides image URLs that a browser picks an image by.
    private static let selectionAttributes: Set<String> = ["media", "type", "sizes", "loading", "data-sizes", "imagesizes"]

    /// The attribute names a collector looks at, made from the lazy attributes. Made once per
    /// rewriter (``ImageRewriter``), not per page: every page of a run has the same.
    struct AttributeNames: Sendable {
        let lazy: Set<String>
        let ofInterest: Set<String>
        let lookedAt: AttributeNameFilter

        init(lazyAttributes: [String]) {
            lazy = Set(lazyAttributes.map { $0.lowercased() })
            ofInterest = ReferenceCollector.imageAttributes.union(lazy)
            lookedAt = AttributeNameFilter(ofInterest.union(ReferenceCollector.urlAttributes).union(["type", "rel", "as", "http-equiv"]))
        }
    }

    // MARK: - Scanner events

    func interest(inElement name: String) -> ScanInterest {
        Self.imageElements.contains(name) || (collectsResponsiveImages && name == "picture") ? .imageElement : []
    }

    func interest(inAttribute name: String) -> ScanInterest {
        var interest: ScanInterest = []
        if name == "style" || lazyAttributes.contains(name) { interest.insert(.holdsImages) }
        if Self.urlAttributes.contains(name) { interest.insert(.urlAttribute) }
        return interest
    }

    func elementStarted(_ element: ElementStart, scanner: HTMLScanner) {
        if element.interest.contains(.urlAttribute) { linkTags.append(scanner.pendingTag) }
        guard !element.interest.isDisjoint(with: [.imageElement, .holdsImages]), let tag = scanner.locate() else { return }
        collect(from: tag, element: element)
    }

    func styleText(_ range: Range<Int>, isInert: Bool) {
        guard !range.isEmpty, Self.mayHoldCSSURL(UnsafeBufferPointer(rebasing: page[range]), characterReferences: false) else { return }
        cssURLs(in: range, characterReferences: false) { token, raw in
            urlSlots.append(slot(raw, token: token, context: .cssInElement,
                                 kind: .styleElement, element: "style", attribute: nil, inert: isInert))
        }
    }

    // MARK: - Attributes

    private func collect(from tag: StartTag, element: ElementStart) {
        let attributes = firstOccurrences(of: tag)
        let name = element.name
        func value(_ attributeName: String) -> TagAttribute? { attributes.first { $0.name == attributeName }?.attribute }
        let inert = element.isInert
        if collectsResponsiveImages, !inert { gatherResponsiveImage(element, attributes, value) }

        for (attributeName, attribute) in attributes {
            // Most attributes (alt, class, width, …) can hold no image URL: one set lookup spares
            // them the string comparisons of every case below.
            guard let valueRange = attribute.valueRange, attributesOfInterest.contains(attributeName) else { continue }
            // `style` on any element, the attribute most tags that get here carry: read before the
            // cases below, whose names would each be compared first (none of them is `style`).
            if attributeName == "style" {
                collectCSS(valueRange, quote: attribute.quote, element: name, attribute: attributeName,
                           kind: .styleAttribute, inert: inert)
                continue
            }
            var kind: ImageReference.Kind?
            var isSrcset = false
            switch (name, attributeName) {
            case ("img", "src"):
                kind = .imgSrc
            case ("img", "srcset"):
                kind = .imgSrcset; isSrcset = true
            case ("image", "src") where !element.inSVG:
                kind = .imgSrc
            case ("image", "srcset") where !element.inSVG:
                kind = .imgSrcset; isSrcset = true
            case ("image", "href") where element.inSVG, ("image", "xlink:href") where element.inSVG,
                 ("feimage", "href"), ("feimage", "xlink:href"):
                kind = .svgImage
            case ("source", "srcset") where element.parentName == "picture":
                kind = .sourceSrcset; isSrcset = true
            case ("input", "src") where attributeText(value("type")).lowercased() == "image":
                kind = .inputImage
            case ("video", "poster"):
                kind = .videoPoster
            case ("link", "href"), ("link", "imagesrcset"):
                let rel = LinkRelation(attributeText(value("rel")))
                let isImagePreload = rel.isPreload && attributeText(value("as")).lowercased() == "image"
                if attributeName == "href", rel.isIcon {
                    kind = .linkIcon
                } else if attributeName == "href", rel.isStylesheet, !inert {
                    stylesheetHrefs.append(attributeText(attribute))
                } else if isImagePreload {
                    kind = .linkPreload
                    isSrcset = attributeName == "imagesrcset"
                }
            case ("base", "href"):
                if baseHref == nil, !inert {
                    attributeSlots(valueRange, quote: attribute.quote, kind: nil, element: name,
                                   attribute: attributeName, srcset: false, inert: false) { baseHref = $0 }
                }
            case (_, "background") where Self.backgroundElements.contains(name):
                kind = .backgroundAttribute
            default:
                if lazyAttributes.contains(attributeName) {
                    kind = .lazyAttribute
                    isSrcset = attributeName.hasSuffix("srcset")
                    let trimmed = attributeText(attribute).drop(while: { $0.isASCIIWhitespace })
                    if trimmed.lowercased().hasPrefix("url(") {
                        collectCSS(valueRange, quote: attribute.quote, element: name, attribute: attributeName,
                                   kind: .lazyAttribute, inert: inert)
                        kind = nil
                    }
                }
            }
            if let kind {
                // Straight into the list: made into an array first, each slot of a srcset was
                // copied (and its text retained and released) once more.
                attributeSlots(valueRange, quote: attribute.quote, kind: kind, element: name,
                               attribute: attributeName, srcset: isSrcset, inert: inert) { urlSlots.append($0) }
            }
        }
    }

    /// Keeps what a browser picks an image by: a `<source>` of a `<picture>` until its `<img>`,
    /// which makes a ``ResponsiveImageSpan`` of them and of itself.
    ///
    /// A lazy loader's attributes (`data-srcset`, `data-src`, `data-sizes`, …) make a second one:
    /// the loader copies them into `srcset`, `src` and `sizes` when the image nears the screen,
    /// and the browser then picks among them as it does among those. Their `sizes` may be `auto`
    /// (lazysizes' `data-sizes="auto"`: the width the image is laid out at).
    private func gatherResponsiveImage(_ element: ElementStart, _ attributes: [(name: String, attribute: TagAttribute)],
                                       _ value: (String) -> TagAttribute?) {
        func text(_ name: String) -> String? { value(name).map { attributeText($0) } }
        // The element's first lazy attribute holding a srcset (or else a URL).
        func lazy(srcset: Bool) -> (name: String, attribute: TagAttribute)? {
            attributes.first { lazyAttributes.contains($0.name) && $0.name.hasSuffix("srcset") == srcset }
        }
        switch element.name {
        case "picture":
            pendingSources.removeAll()
            pendingLazySources.removeAll()
        case "source" where element.parentName == "picture":
            let source = ResponsiveImage.Source(media: text("media"), type: text("type"), srcset: text("srcset"), sizes: text("sizes"))
            pendingSources.append((source, value("srcset")?.valueRange))
            let lazySrcset = lazy(srcset: true)
            let lazySource = ResponsiveImage.Source(media: source.media, type: source.type,
                                                    srcset: lazySrcset.map { attributeText($0.attribute) },
                                                    sizes: text("data-sizes") ?? source.sizes)
            pendingLazySources.append((lazySource, lazySrcset?.attribute.valueRange))
        case "link" where value("imagesrcset") != nil:
            // A responsive preload: the browser fetches what it would pick for an `img` of that
            // `srcset`, `sizes` and `src`, and the page's own `img` then finds it.
            guard LinkRelation(text("rel") ?? "").isPreload, text("as")?.lowercased() == "image" else { return }
            let image = ResponsiveImage(srcset: text("imagesrcset"), sizes: text("imagesizes"), src: text("href"))
            responsiveImages.append(ResponsiveImageSpan(image: image, sourceSrcsets: [], srcset: value("imagesrcset")?.valueRange,
                                                        src: value("href")?.valueRange))
        case "image" where !element.inSVG, "img":
            let inPicture = element.parentName == "picture"
            let sources = inPicture ? pendingSources : [], lazySources = inPicture ? pendingLazySources : []
            pendingSources.removeAll()
            pendingLazySources.removeAll()
            let srcset = text("srcset")
            if srcset != nil || !sources.isEmpty {
                let image = ResponsiveImage(sources: sources.map(\.source), srcset: srcset, sizes: text("sizes"), src: text("src"),
                                            isLazy: text("loading")?.lowercased() == "lazy")
                responsiveImages.append(ResponsiveImageSpan(image: image, sourceSrcsets: sources.map(\.srcset),
                                                            srcset: value("srcset")?.valueRange, src: value("src")?.valueRange))
            }
            let lazySrcset = lazy(srcset: true)
            if lazySrcset != nil || lazySources.contains(where: { $0.srcset != nil }) {
                let lazySrc = lazy(srcset: false)
                let image = ResponsiveImage(sources: lazySources.map(\.source), srcset: lazySrcset.map { attributeText($0.attribute) },
                                            sizes: text("data-sizes") ?? text("sizes"), src: lazySrc.map { attributeText($0.attribute) },
                                            isLazy: true)
                responsiveImages.append(ResponsiveImageSpan(image: image, sourceSrcsets: lazySources.map(\.srcset),
                                                            srcset: lazySrcset?.attribute.valueRange,
                                                            src: lazySrc?.attribute.valueRange))
            }
        default:
            break
        }
    }

    /// Slots for the URL-valued attributes of a tag recorded in `linkTags` (srcsets per candidate).
    func urlAttributeSlots(of tag: StartTag, element: String) -> [URLSlot] {
        var slots: [URLSlot] = []
        let attributes = firstOccurrences(of: tag)
        for (attributeName, attribute) in attributes {
            guard Self.urlAttributes.contains(attributeName), let valueRange = attribute.valueRange else { continue }
            if attributeName == "content" {
                let httpEquiv = attributes.first { $0.name == "http-equiv" }?.attribute
                if element == "meta", attributeText(httpEquiv).lowercased() == "refresh",
                   let slot = refreshURLSlot(valueRange: valueRange, quote: attribute.quote) {
                    slots.append(slot)
                }
                continue
            }
            if attributeName == "data" && element != "object" { continue }
            if attributeName == "codebase" && element != "object" && element != "applet" { continue }
            let isSrcset = attributeName == "srcset" || attributeName == "imagesrcset"
            attributeSlots(valueRange, quote: attribute.quote, kind: nil, element: element,
                           attribute: attributeName, srcset: isSrcset, inert: false) { slots.append($0) }
        }
        return slots
    }

    /// The URL of a `<meta http-equiv=refresh>`'s `content`, as browsers read it (HTML's shared
    /// declarative refresh steps): a time, then `;` or `,`, then optionally `url =` and a quote.
    private func refreshURLSlot(valueRange: Range<Int>, quote: UInt8?) -> URLSlot? {
        let text = decode(valueRange, characterReferences: true)
        guard let urlRange = Self.refreshURLRange(text.scalars) else { return nil }
        let raw = text.rawRange(of: urlRange)
        let base = valueRange.lowerBound
        return URLSlot(range: base + raw.lowerBound..<base + raw.upperBound, text: string(text, urlRange, rawStart: base),
                       context: .attribute(quote: quote), kind: nil, element: "meta", attribute: "content",
                       isValidCandidate: true, isInert: false)
    }

    /// Where the URL is in a refresh's `content` (trailing spaces left out), or nil when it names
    /// none (the page refreshes itself) or is not a refresh browsers act on.
    static func refreshURLRange(_ scalars: [Unicode.Scalar]) -> Range<Int>? {
        var position = 0
        let end = scalars.count
        func skipWhitespace() { while position < end, scalars[position].isASCIIWhitespace { position += 1 } }
        func isDigit(_ scalar: Unicode.Scalar) -> Bool { scalar >= "0" && scalar <= "9" }
        skipWhitespace()
        let timeStart = position
        while position < end, isDigit(scalars[position]) { position += 1 }
        if position == timeStart, position >= end || scalars[position] != "." { return nil }
        while position < end, isDigit(scalars[position]) || scalars[position] == "." { position += 1 }
        if position < end, scalars[position] != ";", scalars[position] != ",", !scalars[position].isASCIIWhitespace { return nil }
        skipWhitespace()
        if position < end, scalars[position] == ";" || scalars[position] == "," {
            position += 1
            skipWhitespace()
        }
        guard position < end else { return nil }
        // `url =`, in any case, before the URL and its optional quote; a start of it that stops
        // short is the URL itself, read as it is (no quote).
        var urlStart = position
        var urlEnd = end
        var quotable = true
        func isLetter(_ offset: Int, _ lowercase: Unicode.Scalar) -> Bool {
            position + offset < end && (scalars[position + offset] == lowercase || scalars[position + offset].value == lowercase.value - 0x20)
        }
        if isLetter(0, "u") {
            let word = isLetter(1, "r") && isLetter(2, "l")
            var probe = position + 3
            while word, probe < end, scalars[probe].isASCIIWhitespace { probe += 1 }
            if word, probe < end, scalars[probe] == "=" {
                position = probe + 1
                skipWhitespace()
            } else {
                quotable = false
            }
        }
        if quotable {
            if position < end, scalars[position] == "'" || scalars[position] == "\"" {
                let quote = scalars[position]
                position += 1
                if let closing = scalars[position...].firstIndex(of: quote) { urlEnd = closing }
            }
            urlStart = position
        }
        while urlEnd > urlStart, scalars[urlEnd - 1].isASCIIWhitespace { urlEnd -= 1 }
        return urlStart < urlEnd ? urlStart..<urlEnd : nil
    }

    /// The first attribute of each name, as browsers keep it, in source order: of the names this
    /// collector looks at (others are left out before they are read).
    private func firstOccurrences(of tag: StartTag) -> [(name: String, attribute: TagAttribute)] {
        var result: [(name: String, attribute: TagAttribute)] = []
        result.reserveCapacity(tag.attributes.count)
        for attribute in tag.attributes where namesLookedAt.mayMatch(UnsafeBufferPointer(rebasing: structure[attribute.nameRange])) {
            let name = lowercasedName(attribute.nameRange)
            // Tags have a handful of attributes: a linear search beats hashing.
            if !result.contains(where: { $0.name == name }) { result.append((name, attribute)) }
        }
        return result
    }

    private func lowercasedName(_ range: Range<Int>) -> String {
        let bytes = UnsafeBufferPointer(rebasing: structure[range])
        if !bytes.contains(where: { $0 != $0.asciiLowercased }) {
            return String(decoding: bytes, as: UTF8.self)
        }
        return String(decoding: bytes.map(\.asciiLowercased), as: UTF8.self)
    }

    private func attributeText(_ attribute: TagAttribute?) -> String {
        guard let range = attribute?.valueRange else { return "" }
        if let plain = plainTrimmedValue(range) { return plain.text }
        let text = decode(range, characterReferences: true)
        let trimmed = trimmedRange(text.scalars, 0..<text.scalars.count)
        return string(text, trimmed, rawStart: range.lowerBound)
    }

    /// An attribute value of plain ASCII without a character reference (nearly every one), trimmed
    /// of ASCII whitespace, read off the page: its text is its bytes, and decoding would only
    /// widen them into scalars. Nil for any other value.
    private func plainTrimmedValue(_ valueRange: Range<Int>) -> (range: Range<Int>, text: String)? {
        let bytes = UnsafeBufferPointer(rebasing: page[valueRange])
        guard encoding.isASCIICompatible, DecodedText.isPlainASCII(bytes, ampersandMatters: true) else { return nil }
        var start = 0, end = bytes.count
        while start < end, bytes[start].isASCIIWhitespace { start += 1 }
        while end > start, bytes[end - 1].isASCIIWhitespace { end -= 1 }
        let base = valueRange.lowerBound
        return (base + start..<base + end, String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
    }

    /// The text of `scalarRange`; straight from the page's bytes when they are plain ASCII.
    private func string(_ text: DecodedText, _ scalarRange: Range<Int>, rawStart: Int) -> String {
        let raw = text.rawRange(of: scalarRange)
        if raw.count == scalarRange.count, text.isPlainASCII {
            return String(decoding: UnsafeBufferPointer(rebasing: page[(rawStart + raw.lowerBound)..<(rawStart + raw.upperBound)]), as: UTF8.self)
        }
        return String(scalars: text.scalars[scalarRange])
    }

    /// `range` without leading and trailing ASCII whitespace, which URL attributes may carry.
    private func trimmedRange(_ scalars: [Unicode.Scalar], _ range: Range<Int>) -> Range<Int> {
        var start = range.lowerBound, end = range.upperBound
        while start < end, scalars[start].isASCIIWhitespace { start += 1 }
        while end > start, scalars[end - 1].isASCIIWhitespace { end -= 1 }
        return start..<end
    }

    private func decode(_ range: Range<Int>, characterReferences: Bool) -> DecodedText {
        DecodedText.decode(UnsafeBufferPointer(rebasing: page[range]), encoding: encoding, characterReferences: characterReferences)
    }

    /// The URL slots of an attribute's value (one per candidate of a srcset), handed to `found`
    /// in order.
    private func attributeSlots(
        _ valueRange: Range<Int>, quote: UInt8?, kind: ImageReference.Kind?, element: String,
        attribute: String, srcset: Bool, inert: Bool, _ found: (consuming URLSlot) -> Void
    ) {
        let base = valueRange.lowerBound
        if srcset, plainSrcsetSlots(valueRange, quote: quote, kind: kind, element: element, attribute: attribute, inert: inert, found) {
            return
        }
        if !srcset, let plain = plainTrimmedValue(valueRange) {
            found(URLSlot(
                range: plain.range, text: plain.text,
                context: .attribute(quote: quote), kind: kind, element: element, attribute: attribute,
                isValidCandidate: true, isInert: inert,
                acceptsUntyped: URLSlot.attributeAcceptsUntyped(kind: kind, element: element)
            ))
            return
        }
        let text = decode(valueRange, characterReferences: true)
        if srcset {
            for candidate in SrcsetParser.parse(text.scalars) {
                let raw = text.rawRange(of: candidate.urlRange)
                found(URLSlot(
                    range: base + raw.lowerBound..<base + raw.upperBound,
                    text: string(text, candidate.urlRange, rawStart: base),
                    context: .attribute(quote: quote), kind: kind, element: element, attribute: attribute,
                    isValidCandidate: candidate.isValid, isInert: inert,
                    acceptsUntyped: URLSlot.attributeAcceptsUntyped(kind: kind, element: element)
                ))
            }
            return
        }
        // URL attributes are "potentially surrounded by spaces": browsers strip ASCII whitespace.
        let trimmed = trimmedRange(text.scalars, 0..<text.scalars.count)
        let raw = text.rawRange(of: trimmed)
        found(URLSlot(
            range: base + raw.lowerBound..<base + raw.upperBound,
            text: string(text, trimmed, rawStart: base),
            context: .attribute(quote: quote), kind: kind, element: element, attribute: attribute,
            isValidCandidate: true, isInert: inert,
            acceptsUntyped: URLSlot.attributeAcceptsUntyped(kind: kind, element: element)
        ))
    }

    /// The slots of a srcset whose bytes are plain ASCII with no character reference (nearly
    /// every srcset), read off the page and handed to `found` as they are made: its text is its
    /// bytes, and decoding it would only copy them. False (and nothing found) for any other srcset.
    private func plainSrcsetSlots(
        _ valueRange: Range<Int>, quote: UInt8?, kind: ImageReference.Kind?, element: String, attribute: String, inert: Bool,
        _ found: (consuming URLSlot) -> Void
    ) -> Bool {
        let bytes = UnsafeBufferPointer(rebasing: page[valueRange])
        guard encoding.isASCIICompatible, DecodedText.isPlainASCII(bytes, ampersandMatters: true) else { return false }
        let base = valueRange.lowerBound
        let acceptsUntyped = URLSlot.attributeAcceptsUntyped(kind: kind, element: element)
        for candidate in SrcsetParser.parse(bytes) {
            let range = base + candidate.urlRange.lowerBound..<base + candidate.urlRange.upperBound
            found(URLSlot(
                range: range, text: String(decoding: UnsafeBufferPointer(rebasing: page[range]), as: UTF8.self),
                context: .attribute(quote: quote), kind: kind, element: element, attribute: attribute,
                isValidCandidate: candidate.isValid, isInert: inert, acceptsUntyped: acceptsUntyped
            ))
        }
        return true
    }

    private func collectCSS(_ valueRange: Range<Int>, quote: UInt8?, element: String, attribute: String,
                            kind: ImageReference.Kind, inert: Bool) {
        guard Self.mayHoldCSSURL(UnsafeBufferPointer(rebasing: page[valueRange]), characterReferences: true) else { return }
        cssURLs(in: valueRange, characterReferences: true) { token, raw in
            urlSlots.append(slot(raw, token: token, context: .cssInAttribute(quote: quote),
                                 kind: kind, element: element, attribute: attribute, inert: inert))
        }
    }

    /// The CSS URLs of the page's bytes in `range`, each handed to `body` with the page range it takes.
    private func cssURLs(in range: Range<Int>, characterReferences: Bool, _ body: (consuming CSSURLToken, _ raw: Range<Int>) -> Void) {
        CSSURLScanner.scan(raw: UnsafeBufferPointer(rebasing: page[range]), at: range.lowerBound, encoding: encoding,
                           characterReferences: characterReferences, body)
    }

    /// Whether CSS in these bytes may hold a URL that ``CSSURLScanner`` finds: one comes only from
    /// `url(`, a string in `image-set(` or one after `@import`, each spelled in ASCII letters
    /// (escapes stop a name), so bytes without those words hold none. Most `style` attributes hold
    /// none, and deciding on the bytes spares decoding them. The page's working encoding is ASCII
    /// compatible: an ASCII character is always its own byte (a trail byte that looks like one only
    /// makes this say yes). In an attribute a character reference may spell any of the words,
    /// except the few that stand for quotes and markup characters (``isPunctuationReference(_:at:)``),
    /// which serialised `style` attributes are full of (`font-family: &quot;Open Sans&quot;`): no
    /// word can hold what they stand for, so the words stay literal bytes around them.
    static func mayHoldCSSURL(_ bytes: UnsafeBufferPointer<UInt8>, characterReferences: Bool) -> Bool {
        func endsWith(_ word: StaticString, before end: Int) -> Bool {
            let count = word.utf8CodeUnitCount
            guard end >= count else { return false }
            return word.withUTF8Buffer { word in
                (0..<count).allSatisfy { offset in
                    let byte = bytes[end - count + offset]
                    return (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) == word[offset]
                }
            }
        }
        guard let base = bytes.baseAddress else { return false }
        let raw = UnsafeRawPointer(base)
        var index = 0
        while index < bytes.count {
            // Eight bytes per step past those that cannot end a word: style sheets run long.
            if index + 8 <= bytes.count {
                let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                if !word.containsByte(UInt8(ascii: "(")), !word.containsByte(UInt8(ascii: "@")), !word.containsByte(UInt8(ascii: "&")) {
                    index += 8
                    continue
                }
            }
            defer { index += 1 }
            switch bytes[index] {
            case UInt8(ascii: "("):
                if endsWith("url", before: index) || endsWith("image-set", before: index) { return true }
            case UInt8(ascii: "@"):
                if index + 7 <= bytes.count, endsWith("@import", before: index + 7) { return true }
            case UInt8(ascii: "&"):
                if characterReferences, !isPunctuationReference(bytes, at: index) { return true }
            default:
                continue
            }
        }
        return false
    }

    /// Whether the `&` at `index` starts `&quot;`, `&apos;`, `&amp;`, `&lt;`, `&gt;`, `&#34;`,
    /// `&#39;`, `&#x22;` or `&#x27;` (the `x` in either case; named references are case-sensitive):
    /// references that stand for a character no CSS word of ``mayHoldCSSURL(_:characterReferences:)``
    /// holds.
    static func isPunctuationReference(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Bool {
        // A loop of its own: `contains` with `elementsEqual(_:by:)` over a rebased buffer cost more
        // on the inline-style pages, where every style holds these.
        for reference in Self.punctuationReferences where index + reference.count <= bytes.count {
            var matches = true
            for (k, byte) in reference.enumerated() {
                let actual = bytes[index + k]
                if actual != byte, !(byte == UInt8(ascii: "x") && actual == UInt8(ascii: "X")) {
                    matches = false
                    break
                }
            }
            if matches { return true }
        }
        return false
    }

    private static let punctuationReferences: [[UInt8]] = [
        "&quot;", "&apos;", "&amp;", "&lt;", "&gt;", "&#34;", "&#39;", "&#x22;", "&#x27;",
    ].map { Array($0.utf8) }

    private func slot(_ range: Range<Int>, token: CSSURLToken, context: SlotContext,
                      kind: ImageReference.Kind, element: String, attribute: String?, inert: Bool) -> URLSlot {
        URLSlot(
            range: range,
            text: token.value,
            context: context, kind: token.isNeverImage ? nil : kind, element: element, attribute: attribute,
            isValidCandidate: true, isInert: inert, acceptsUntyped: URLSlot.cssAcceptsUntyped(token)
        )
    }
}

private extension Character {
    var isASCIIWhitespace: Bool { self == " " || self == "\t" || self == "\n" || self == "\r" || self == "\u{0C}" }
}

/// The kinds of link a `<link>`'s `rel` names that matter here, read token by token off its text
/// in any ASCII case, without splitting it into strings.
private struct LinkRelation {
    /// A token that contains `icon` (`icon`, `shortcut icon`, `apple-touch-icon`, `mask-icon`, …).
    private(set) var isIcon = false
    private(set) var isPreload = false
    private(set) var isStylesheet = false

    init(_ rel: String) {
        rel.withUTF8Bytes { bytes in
            var start = 0
            while start < bytes.count {
                while start < bytes.count, bytes[start].isASCIIWhitespace { start += 1 }
                var end = start
                while end < bytes.count, !bytes[end].isASCIIWhitespace { end += 1 }
                guard end > start else { break }
                let token = UnsafeBufferPointer(rebasing: bytes[start..<end])
                if Self.token(token, is: "preload") { isPreload = true }
                if Self.token(token, is: "stylesheet") { isStylesheet = true }
                if Self.token(token, contains: "icon") { isIcon = true }
                start = end
            }
        }
    }

    private static func token(_ token: UnsafeBufferPointer<UInt8>, is word: StaticString) -> Bool {
        token.count == word.utf8CodeUnitCount && self.token(token, contains: word)
    }

    private static func token(_ token: UnsafeBufferPointer<UInt8>, contains word: StaticString) -> Bool {
        let length = word.utf8CodeUnitCount
        guard token.count >= length else { return false }
        return word.withUTF8Buffer { word in
            (0...(token.count - length)).contains { start in
                (0..<length).allSatisfy { token[start + $0].asciiLowercased == word[$0] }
            }
        }
    }
}
