import Foundation

/// Decides, element by element, which attribute values and CSS hold image URLs, and records
/// where each URL's bytes are. Works for `HTMLScanner`, which tells it what libxml2 saw.
final class ReferenceCollector: HTMLScanHandler {
    private let page: UnsafeBufferPointer<UInt8>
    /// The sanitised copy: same offsets, ASCII structure, used for names.
    private let structure: UnsafeBufferPointer<UInt8>
    private let encoding: HTMLEncoding
    private let lazyAttributes: Set<String>
    private let lazyAttributeBytes: [[UInt8]]

    /// Image URLs, and the `@import` URLs of CSS (with a nil kind), in document order.
    private(set) var urlSlots: [URLSlot] = []
    /// The first `<base>` with an `href`: its value's slot.
    private(set) var baseHref: URLSlot?
    /// Elements with URL attributes, to make absolute if a `<base>` must be neutralised.
    private(set) var linkTags: [StartTag] = []
    private(set) var linkTagNames: [String] = []

    private static let backgroundElements: Set<String> = ["body", "table", "thead", "tbody", "tfoot", "tr", "td", "th"]
    private static let imageElements = Set(["img", "image", "source", "input", "video", "link", "feimage", "base"])
        .union(backgroundElements)
    /// Attributes holding a URL that `<base>` affects (HTML's URL-valued attributes).
    static let urlAttributes: Set<String> = [
        "href", "src", "action", "formaction", "poster", "data", "cite", "longdesc", "background",
        "srcset", "imagesrcset", "manifest", "xlink:href", "codebase",
    ]
    private static let urlAttributeBytes: [[UInt8]] = urlAttributes.map { Array($0.utf8) }
    private static let styleBytes = Array("style".utf8)

    init(page: UnsafeBufferPointer<UInt8>, structure: UnsafeBufferPointer<UInt8>, encoding: HTMLEncoding, lazyAttributes: [String]) {
        self.page = page
        self.structure = structure
        self.encoding = encoding
        self.lazyAttributes = Set(lazyAttributes.map { $0.lowercased() })
        self.lazyAttributeBytes = self.lazyAttributes.map { Array($0.utf8) }
    }

    // MARK: - Scanner events

    func elementStarted(_ element: ElementStart, scanner: HTMLScanner) {
        let name = element.name
        let isImageElement = Self.imageElements.contains(name)
        let hasStyleOrLazy = element.attributes.containsName { candidate in
            candidate.elementsEqual(Self.styleBytes) || lazyAttributeBytes.contains { candidate.elementsEqual($0) }
        }
        let hasURLAttribute = element.attributes.containsName { candidate in
            Self.urlAttributeBytes.contains { candidate.elementsEqual($0) }
        }
        guard isImageElement || hasStyleOrLazy || hasURLAttribute, !element.attributes.isEmpty,
              let tag = scanner.locate() else { return }
        if hasURLAttribute {
            linkTags.append(tag)
            linkTagNames.append(name)
        }
        guard isImageElement || hasStyleOrLazy else { return }
        collect(from: tag, element: element)
    }

    func styleText(_ range: Range<Int>, isInert: Bool) {
        guard !range.isEmpty else { return }
        let text = decode(range, characterReferences: false)
        for token in CSSURLScanner.scan(text.scalars) {
            urlSlots.append(slot(in: text, rawStart: range.lowerBound, token: token, context: .cssInElement,
                                   kind: .styleElement, element: "style", attribute: nil, inert: isInert))
        }
    }

    // MARK: - Attributes

    private func collect(from tag: StartTag, element: ElementStart) {
        let attributes = firstOccurrences(of: tag)
        let name = element.name
        func value(_ attributeName: String) -> TagAttribute? { attributes.first { $0.name == attributeName }?.attribute }
        let inert = element.isInert

        for (attributeName, attribute) in attributes {
            guard let valueRange = attribute.valueRange else { continue }
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
                let rel = attributeText(value("rel")).lowercased().split(whereSeparator: { $0.isASCIIWhitespace })
                let isIcon = rel.contains { $0.contains("icon") }
                let isImagePreload = rel.contains("preload") && attributeText(value("as")).lowercased() == "image"
                if attributeName == "href", isIcon {
                    kind = .linkIcon
                } else if isImagePreload {
                    kind = .linkPreload
                    isSrcset = attributeName == "imagesrcset"
                }
            case ("base", "href"):
                if baseHref == nil, !inert {
                    baseHref = attributeSlots(valueRange, quote: attribute.quote, kind: nil, element: name,
                                              attribute: attributeName, srcset: false, inert: false).first
                }
            case (_, "background") where Self.backgroundElements.contains(name):
                kind = .backgroundAttribute
            case (_, "style"):
                collectCSS(valueRange, quote: attribute.quote, element: name, attribute: attributeName,
                           kind: .styleAttribute, inert: inert)
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
                urlSlots += attributeSlots(valueRange, quote: attribute.quote, kind: kind, element: name,
                                             attribute: attributeName, srcset: isSrcset, inert: inert)
            }
        }
    }

    /// Slots for the URL-valued attributes of a tag recorded in `linkTags` (srcsets per candidate).
    func urlAttributeSlots(of tag: StartTag, element: String) -> [URLSlot] {
        var slots: [URLSlot] = []
        for (attributeName, attribute) in firstOccurrences(of: tag) {
            guard Self.urlAttributes.contains(attributeName), let valueRange = attribute.valueRange else { continue }
            if attributeName == "data" && element != "object" { continue }
            if attributeName == "codebase" && element != "object" && element != "applet" { continue }
            let isSrcset = attributeName == "srcset" || attributeName == "imagesrcset"
            slots += attributeSlots(valueRange, quote: attribute.quote, kind: nil, element: element,
                                    attribute: attributeName, srcset: isSrcset, inert: false)
        }
        return slots
    }

    /// The first attribute of each name, as browsers keep it, in source order.
    private func firstOccurrences(of tag: StartTag) -> [(name: String, attribute: TagAttribute)] {
        var seen: Set<String> = []
        var result: [(name: String, attribute: TagAttribute)] = []
        for attribute in tag.attributes {
            let name = lowercasedName(attribute.nameRange)
            if seen.insert(name).inserted { result.append((name, attribute)) }
        }
        return result
    }

    private func lowercasedName(_ range: Range<Int>) -> String {
        String(decoding: structure[range].map { ($0 >= 0x41 && $0 <= 0x5A) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    private func attributeText(_ attribute: TagAttribute?) -> String {
        guard let range = attribute?.valueRange else { return "" }
        return decode(range, characterReferences: true).string
            .trimmingCharacters(in: .init(charactersIn: " \t\n\r\u{0C}"))
    }

    private func decode(_ range: Range<Int>, characterReferences: Bool) -> DecodedText {
        DecodedText.decode(UnsafeBufferPointer(rebasing: page[range]), encoding: encoding, characterReferences: characterReferences)
    }

    private func attributeSlots(
        _ valueRange: Range<Int>, quote: UInt8?, kind: ImageReference.Kind?, element: String,
        attribute: String, srcset: Bool, inert: Bool
    ) -> [URLSlot] {
        let text = decode(valueRange, characterReferences: true)
        let base = valueRange.lowerBound
        if srcset {
            return SrcsetParser.parse(text.scalars).map { candidate in
                URLSlot(
                    range: base + text.rawOffsets[candidate.urlRange.lowerBound]..<base + text.rawOffsets[candidate.urlRange.upperBound],
                    text: String(String.UnicodeScalarView(text.scalars[candidate.urlRange])),
                    context: .attribute(quote: quote), kind: kind, element: element, attribute: attribute,
                    isValidCandidate: candidate.isValid, isInert: inert
                )
            }
        }
        // URL attributes are "potentially surrounded by spaces": browsers strip ASCII whitespace.
        var start = 0, end = text.scalars.count
        while start < end, isASCIIWhitespace(text.scalars[start]) { start += 1 }
        while end > start, isASCIIWhitespace(text.scalars[end - 1]) { end -= 1 }
        return [URLSlot(
            range: base + text.rawOffsets[start]..<base + text.rawOffsets[end],
            text: String(String.UnicodeScalarView(text.scalars[start..<end])),
            context: .attribute(quote: quote), kind: kind, element: element, attribute: attribute,
            isValidCandidate: true, isInert: inert
        )]
    }

    private func collectCSS(_ valueRange: Range<Int>, quote: UInt8?, element: String, attribute: String,
                            kind: ImageReference.Kind, inert: Bool) {
        let text = decode(valueRange, characterReferences: true)
        for token in CSSURLScanner.scan(text.scalars) {
            urlSlots.append(slot(in: text, rawStart: valueRange.lowerBound, token: token, context: .cssInAttribute(quote: quote),
                                   kind: kind, element: element, attribute: attribute, inert: inert))
        }
    }

    private func slot(in text: DecodedText, rawStart: Int, token: CSSURLToken, context: SlotContext,
                      kind: ImageReference.Kind, element: String, attribute: String?, inert: Bool) -> URLSlot {
        URLSlot(
            range: rawStart + text.rawOffsets[token.range.lowerBound]..<rawStart + text.rawOffsets[token.range.upperBound],
            text: token.value.trimmingCharacters(in: .init(charactersIn: " \t\n\r\u{0C}")),
            context: context, kind: token.isImport ? nil : kind, element: element, attribute: attribute,
            isValidCandidate: true, isInert: inert
        )
    }
}

private extension Character {
    var isASCIIWhitespace: Bool { self == " " || self == "\t" || self == "\n" || self == "\r" || self == "\u{0C}" }
}

private func isASCIIWhitespace(_ scalar: Unicode.Scalar) -> Bool {
    scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == "\u{0C}"
}
