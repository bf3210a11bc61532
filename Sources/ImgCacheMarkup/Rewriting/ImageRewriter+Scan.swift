import ImgCacheURLs
/// The first phase: reading a document and deciding what the markup alone decides.
extension ImageRewriter {
    func scanPage(_ page: [UInt8], pageURL: BrowserURL?, transportCharset: String?, site: SiteTree?, absoluteLinks: Bool) -> DocumentScan {
        let sniffed = page.withUnsafeBufferPointer { EncodingSniffer.sniff($0, transportLabel: transportCharset) }
        var warnings: [RewriteWarning] = sniffed.notices.isEmpty ? [] : [.encoding(sniffed.notices)]
        let encoding = sniffed.encoding

        // Pages in encodings whose bytes can look like markup (UTF-16, ISO-2022-JP) are rewritten
        // as UTF-8 and converted back, but only when that conversion is exactly reversible.
        var working = page
        var workingEncoding = encoding
        if !encoding.isASCIICompatible {
            guard let utf8 = page.withUnsafeBufferPointer({ TextCodec.transcodeToUTF8Exactly($0, from: encoding) }) else {
                warnings.append(.notReversible(.page, encoding: encoding))
                return DocumentScan(input: page, working: page, encoding: encoding, encodingSource: sniffed.source, references: [],
                                    referencePrefix: options.referenceStyle.prefix, linkedStylesheets: [], warnings: warnings, base: nil,
                                    leavesUnchanged: true, isPage: true)
            }
            working = utf8
            workingEncoding = .utf8
        }
        let analysis = working.withUnsafeBufferPointer { analyse($0, encoding: workingEncoding, pageURL: pageURL, site: site, absoluteLinks: absoluteLinks) }
        return DocumentScan(input: page, working: working, encoding: encoding, encodingSource: sniffed.source,
                            references: analysis.references, referencePrefix: options.referenceStyle.prefix,
                            linkedStylesheets: analysis.linkedStylesheets,
                            warnings: warnings + analysis.warnings, base: analysis.base, leavesUnchanged: false, isPage: true,
                            responsiveImages: analysis.responsiveImages)
    }

    private struct Analysis {
        var references: [ImageReference] = []
        var warnings: [RewriteWarning] = []
        var linkedStylesheets: [String] = []
        var base: BaseNeutralization?
        var responsiveImages: [ResponsiveImageSpan] = []
    }

    private func analyse(_ page: UnsafeBufferPointer<UInt8>, encoding: HTMLEncoding, pageURL: BrowserURL?, site: SiteTree?,
                         absoluteLinks: Bool) -> Analysis {
        let buffer = ParseBuffer(page: page, pageIsUTF8: encoding == .utf8)
        let collector = ReferenceCollector(page: page, structure: buffer.view, encoding: encoding,
                                           names: attributeNames, responsiveImages: !options.devices.isEmpty)
        let scanner = HTMLScanner(buffer: buffer, handler: collector)
        scanner.run()

        var analysis = Analysis()
        let queryEncoding: (@Sendable (String) -> [UInt8])? = encoding == .utf8 ? nil : { @Sendable text in TextCodec.encode(text, to: encoding) }
        let resolver = URLResolver(pageURL: pageURL, baseHref: collector.baseHref?.text, queryEncoding: queryEncoding)
        if resolver.baseHrefFailed, let baseText = collector.baseHref?.text {
            analysis.warnings.append(.unresolvableBase(href: baseText, pageURLKnown: pageURL != nil))
        }

        analysis.linkedStylesheets = collector.stylesheetHrefs.compactMap { href in
            switch resolver.resolve(href) {
            case .resolvedHTTP(let url), .verbatim(let url): url
            case .resolved(let url): url.serializedWithoutFragment
            case .relativeWithoutBase, .invalid: nil
            }
        }
        var unresolvedRelative = 0
        let prefix = options.referenceStyle.prefix
        // Pages often repeat an image (a srcset and its fallback src, a sprite): resolve each text
        // once. The index points at the first reference that shows the text's resolution (an
        // index, not a copy: a page can hold 100,000 of them). URLs that name no format are
        // resolved each time: what they mean depends on the place, and they are few.
        // The slots are given back as they become references; with a `<base>` to neutralise or
        // links to make absolute, the image slots with some text are kept, for rendering to make
        // those left absolute.
        let neutralizesBase = (collector.baseHref != nil || absoluteLinks) && resolver.documentBase != nil
        var slotRanges: [Range<Int>] = []
        var imageSlots: [URLSlot] = []
        let slots = collector.takeURLSlots()
        analysis.references.reserveCapacity(slots.count)
        var resolved = URLTextIndex(count: slots.count)
        if neutralizesBase { slotRanges.reserveCapacity(slots.count) }
        slots.drain { slot in
            if neutralizesBase {
                slotRanges.append(slot.range)
                if !slot.text.isEmpty { imageSlots.append(slot) }
            }
            guard let kind = slot.kind else { return }
            let resolution: Resolution
            if VerbatimDataURL.matches(slot.text) {
                // Inline images are often hundreds of KB, and each is its own: hashing them into
                // `resolved` would cost more than deciding again. What `resolve` makes of one, said
                // here: it would read all of it again to find that it is verbatim.
                resolution = Resolution(url: slot.text, skip: .notHTTP)
            } else if slot.isValidCandidate, !slot.isInert {
                // One hash for a text not seen before (most of them: every candidate of a srcset):
                // its index goes in at once, and comes out again in the rare case that it names no
                // format. A text seen before gets its first index back.
                let index = analysis.references.count
                let hash = URLTextIndex.hash(slot.text)
                if let earlier = resolved.earlierIndex(of: slot.text, hash: hash, placing: index, textOf: { analysis.references[$0].original }) {
                    resolution = Resolution(analysis.references[earlier])
                } else {
                    resolution = resolve(slot.text, resolver: resolver, site: site)
                    if resolution.untyped { resolved.remove(index, hash: hash) }
                }
            } else if let index = resolved.index(of: slot.text, hash: URLTextIndex.hash(slot.text), textOf: { analysis.references[$0].original }) {
                resolution = Resolution(analysis.references[index])
            } else {
                resolution = resolve(slot.text, resolver: resolver, site: site)
            }
            // Handed on, not copied: each copy of a slot or a resolution retains and releases its
            // texts, much of the reference counting on pages of long srcsets.
            let reference = decide(consume slot, kind: kind, resolution: consume resolution, prefix: prefix)
            if reference.skipReason == .relativeWithoutBase { unresolvedRelative += 1 }
            analysis.references.append(reference)
        }
        if unresolvedRelative > 0 {
            analysis.warnings.append(.relativeURLsWithoutBase(count: unresolvedRelative, .page))
        }
        analysis.responsiveImages = collector.responsiveImages

        if neutralizesBase, let originalBase = resolver.documentBase {
            // The page's other URL attributes (links, scripts, …), found now while the scanner
            // still holds the page: those that hold no image URL.
            let sortedRanges = slotRanges.sorted { $0.lowerBound < $1.lowerBound }
            var linkSlots: [URLSlot] = []
            for pending in collector.linkTags where pending.name != "base" {
                guard let tag = scanner.locate(pending) else { continue }
                for slot in collector.urlAttributeSlots(of: tag, element: pending.name) where !Self.holdsSlot(slot.range, sortedRanges) {
                    linkSlots.append(slot)
                }
            }
            analysis.base = BaseNeutralization(href: collector.baseHref, originalBase: originalBase, queryEncoding: queryEncoding,
                                               imageSlots: imageSlots, linkSlots: linkSlots, absoluteLinks: absoluteLinks)
        }
        return analysis
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

    func scanStylesheet(_ stylesheet: [UInt8], url: BrowserURL?, referringEncoding: HTMLEncoding?, site: SiteTree?) -> DocumentScan {
        let sniffed = stylesheet.withUnsafeBufferPointer { StylesheetEncoding.determine($0, referringDocument: referringEncoding) }
        var warnings: [RewriteWarning] = sniffed.notices.isEmpty ? [] : [.encoding(sniffed.notices)]
        let encoding = sniffed.encoding
        func scanned(working: [UInt8], references: [ImageReference], leavesUnchanged: Bool) -> DocumentScan {
            DocumentScan(input: stylesheet, working: working, encoding: encoding, encodingSource: sniffed.source, references: references,
                         referencePrefix: options.referenceStyle.prefix, linkedStylesheets: [], warnings: warnings, base: nil,
                         leavesUnchanged: leavesUnchanged, isPage: false)
        }

        // Only a UTF-16 byte order mark gets here with bytes that are not ASCII-compatible: work in
        // UTF-8 and convert back, when that is exactly reversible (as for pages).
        var working = stylesheet
        var workingEncoding = encoding
        if !encoding.isASCIICompatible {
            guard let utf8 = stylesheet.withUnsafeBufferPointer({ TextCodec.transcodeToUTF8Exactly($0, from: encoding) }) else {
                warnings.append(.notReversible(.stylesheet, encoding: encoding))
                return scanned(working: stylesheet, references: [], leavesUnchanged: true)
            }
            working = utf8
            workingEncoding = .utf8
        }

        var references: [ImageReference] = []
        var unresolvedRelative = 0
        working.withUnsafeBufferPointer { bytes in
            // The byte order mark is neither text nor syntax.
            let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
            // CSS parses URLs as UTF-8 whatever the stylesheet's encoding.
            let resolver = URLResolver(pageURL: url, baseHref: nil, queryEncoding: nil)
            let prefix = options.referenceStyle.prefix
            var resolved: [String: Resolution] = [:]
            CSSURLScanner.scan(raw: UnsafeBufferPointer(rebasing: bytes[start...]), at: start,
                               encoding: workingEncoding, characterReferences: false) { token, raw in
                guard !token.isNeverImage else { return }
                let slot = URLSlot(range: raw, text: token.value,
                                   context: .cssInElement, kind: .stylesheet, element: "", attribute: nil,
                                   isValidCandidate: true, isInert: false, acceptsUntyped: URLSlot.cssAcceptsUntyped(token))
                let resolution = resolved[token.value] ?? resolve(token.value, resolver: resolver, site: site)
                resolved[token.value] = resolution
                let reference = decide(slot, kind: .stylesheet, resolution: resolution, prefix: prefix)
                if reference.skipReason == .relativeWithoutBase { unresolvedRelative += 1 }
                references.append(reference)
            }
        }
        if unresolvedRelative > 0 {
            warnings.append(.relativeURLsWithoutBase(count: unresolvedRelative, .stylesheet))
        }
        return scanned(working: working, references: references, leavesUnchanged: false)
    }

    // MARK: - Deciding

    /// What a URL text resolves to and the cache name it would get: the same for every slot with that text.
    struct Resolution {
        var url: String?
        var name: LocalName?
        var skip: ImageReference.SkipReason?
        /// The URL names no image format: an image only where the markup says so beyond doubt.
        var untyped = false

        /// The resolution a reference was made from (one that is not a dropped candidate, inert,
        /// or of a URL that names no format).
        init(_ reference: ImageReference) {
            self.init(url: reference.url, name: reference.localNameValue, skip: reference.skipReason)
        }

        init(url: String? = nil, name: LocalName? = nil, skip: ImageReference.SkipReason? = nil, untyped: Bool = false) {
            self.url = url
            self.name = name
            self.skip = skip
            self.untyped = untyped
        }
    }

    func resolve(_ text: String, resolver: URLResolver, site: SiteTree?) -> Resolution {
        guard !text.isEmpty else { return Resolution(skip: .empty) }
        let serialized: String
        switch resolver.resolve(text) {
        case .resolvedHTTP(let http):
            serialized = http
        case .verbatim(let url):
            return Resolution(url: url, skip: .notHTTP)
        case .resolved(let url):
            guard url.isHTTP else { return Resolution(url: url.serialized, skip: .notHTTP) }
            serialized = url.serialized
        case .relativeWithoutBase:
            return Resolution(skip: .relativeWithoutBase)
        case .invalid:
            return Resolution(skip: .invalidURL)
        }
        // The path is read once for both questions: an image extension, and if none, whether it names any kind of file.
        let pathKind = naming.pathKind(ofHTTPURL: serialized)
        guard case .image(let ext) = pathKind else { return resolveUntyped(serialized, pathKind: pathKind, site: site) }
        // Not `if let site`: that copies the tree (and retains its arrays) once per URL.
        if site?.relativePath(servingURL: serialized) != nil { return Resolution(url: serialized, skip: .siteFile) }
        return Resolution(url: serialized, name: naming.name(forHTTPURL: serialized, extension: ext))
    }

    /// An http(s) URL without an enabled image extension: nothing, unless its path names no kind
    /// of file and such URLs are taken; then its bytes (or the cache) will name it.
    private func resolveUntyped(_ serialized: String, pathKind: LocalImageNaming.PathKind, site: SiteTree?) -> Resolution {
        guard options.untypedImages, pathKind == .untyped else {
            return Resolution(url: serialized, skip: .unsupportedExtension)
        }
        if site?.relativePath(servingURL: serialized) != nil { return Resolution(url: serialized, skip: .siteFile) }
        return Resolution(url: serialized, untyped: true)
    }

    /// The reference a slot makes: skipped for good, or (until rendered) rewritten when named by
    /// its URL and awaiting its type when its bytes are to name it.
    func decide(_ slot: consuming URLSlot, kind: ImageReference.Kind, resolution: consuming Resolution, prefix: String) -> ImageReference {
        if resolution.untyped, !slot.acceptsUntyped {
            // Not a place where the markup says "image" beyond doubt: the extension rule decides.
            resolution = Resolution(url: resolution.url, skip: .unsupportedExtension)
        }
        let source: ImageReference.NameSource = resolution.untyped ? .bytes : resolution.name != nil ? .url : .none
        var disposition: ImageReference.Disposition
        if let skip = resolution.skip {
            disposition = .skipped(skip)
        } else {
            disposition = source == .bytes ? .awaitingType : .rewritten
            // Markup browsers never use is reported as such, whatever the cache holds.
            if !slot.isValidCandidate {
                disposition = .skipped(.invalidCandidate)
            } else if slot.isInert {
                disposition = .skipped(.inertMarkup)
            }
        }
        return ImageReference(kind: kind, element: slot.element, attribute: slot.attribute, original: slot.text,
                              url: resolution.url, name: resolution.name, nameSource: source, disposition: disposition,
                              byteRange: slot.range, localPathPrefix: prefix)
    }
}
