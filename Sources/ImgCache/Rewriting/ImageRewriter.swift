internal import CLibXML2

/// Finds every image reference in an HTML page and replaces its URL with a local path,
/// leaving every other byte of the page as it was.
///
/// Pure and synchronous: no I/O, no shared state, safe to call from any thread at once.
public struct ImageRewriter: Sendable {
    /// What to look for and how to write local references.
    public var options: RewriteOptions

    /// Creates a rewriter.
    public init(options: RewriteOptions = RewriteOptions()) {
        self.options = options
    }

    /// Rewrites the page's image URLs to local paths.
    /// - Parameters:
    ///   - page: the page's bytes, in whatever encoding it uses.
    ///   - pageURL: the URL the page was (or will be) served from; relative URLs resolve against it
    ///     and against the page's `<base href>`. Without it, relative image URLs are left alone.
    /// - Returns: the rewritten bytes (the input itself when nothing was rewritable) and every reference.
    public func rewrite(_ page: [UInt8], pageURL: WebURL?) -> RewriteResult {
        process(page, pageURL: pageURL, splice: true)
    }

    /// Lists the page's image references without rewriting anything. `rewritten` on each reference
    /// says whether `rewrite(_:pageURL:)` would replace it; `bytes` is the input.
    public func references(in page: [UInt8], pageURL: WebURL?) -> RewriteResult {
        process(page, pageURL: pageURL, splice: false)
    }

    // MARK: - Pipeline

    private func process(_ page: [UInt8], pageURL: WebURL?, splice: Bool) -> RewriteResult {
        let sniffed = page.withUnsafeBufferPointer { EncodingSniffer.sniff($0, transportLabel: options.transportEncodingLabel) }
        var warnings: [String] = sniffed.warning.map { [$0] } ?? []
        let encoding = sniffed.encoding

        // Pages in encodings whose bytes can look like markup (UTF-16, ISO-2022-JP) are rewritten
        // as UTF-8 and converted back, but only when that conversion is exactly reversible.
        var working = page
        var workingEncoding = encoding
        if !encoding.isASCIICompatible {
            guard let utf8 = page.withUnsafeBufferPointer({ TextCodec.transcodeToUTF8Exactly($0, from: encoding) }) else {
                warnings.append("The page's \(encoding) bytes do not convert to Unicode and back exactly; it was left unchanged.")
                return RewriteResult(bytes: page, references: [], encoding: encoding, encodingSource: sniffed.source, warnings: warnings)
            }
            working = utf8
            workingEncoding = .utf8
        }

        let analysis = working.withUnsafeBufferPointer { analyse($0, encoding: workingEncoding, pageURL: pageURL) }
        warnings += analysis.warnings
        releaseFreedMemory(afterPageOf: working.count)
        guard splice, analysis.rewrittenCount > 0 else {
            return RewriteResult(bytes: page, references: analysis.references, encoding: encoding,
                                 encodingSource: sniffed.source, linkedStylesheets: analysis.linkedStylesheets,
                                 warnings: warnings)
        }
        var references = analysis.references
        func unchangedToKeepDeclaration() -> RewriteResult {
            warnings.append("Rewriting would move the page's <meta charset> into or out of the first \(EncodingDeclarationWindow.size) bytes, where browsers look for it, and change how the page reads; it was left unchanged.")
            return RewriteResult(bytes: page, references: references.map(\.notRewritten), encoding: encoding,
                                 encodingSource: sniffed.source, linkedStylesheets: analysis.linkedStylesheets, warnings: warnings)
        }
        let prefix = options.referenceStyle.prefix
        var spliced = PageSplice(source: working, references: references, prefix: prefix, edits: analysis.edits)
        var output = RewriteResult.Output.spliced(spliced)
        if workingEncoding == encoding, EncodingDeclarationWindow.applies(to: sniffed.source),
           !EncodingDeclarationWindow.keepsDeclaration(of: page, in: spliced.prefix(EncodingDeclarationWindow.size)) {
            // Leave the start of the page as it was. Not possible with `<base>` edits: the base
            // is emptied for the local paths, and the URLs left relative would then point elsewhere.
            let window = EncodingDeclarationWindow.size
            let kept = references.filter { $0.rewritten && $0.byteRange.lowerBound >= window }.count
            guard analysis.edits.isEmpty, kept > 0 else {
                return unchangedToKeepDeclaration()
            }
            let left = analysis.rewrittenCount - kept
            warnings.append("\(left) image URL\(left == 1 ? " was" : "s were") left as \(left == 1 ? "it was" : "they were") in the page's first \(window) bytes: rewriting \(left == 1 ? "it" : "them") would move the page's <meta charset> into or out of the part where browsers look for it.")
            references = references.map { $0.rewritten && $0.byteRange.lowerBound < window ? $0.notRewritten : $0 }
            spliced = PageSplice(source: working, references: references, prefix: prefix, edits: [])
            output = .spliced(spliced)
        } else if workingEncoding != encoding {
            // Converted back whole: such pages (UTF-16, ISO-2022-JP) are rare and the conversion
            // must see all of it to know that it is exact.
            guard let back = TextCodec.transcodeFromUTF8(spliced.bytes, to: encoding) else {
                warnings.append("The rewritten page could not be converted back to \(encoding); it was left unchanged.")
                return RewriteResult(bytes: page, references: analysis.references.map(\.notRewritten), encoding: encoding,
                                     encodingSource: sniffed.source, linkedStylesheets: analysis.linkedStylesheets,
                                     warnings: warnings)
            }
            if EncodingDeclarationWindow.applies(to: sniffed.source), !EncodingDeclarationWindow.keepsDeclaration(of: page, in: back) {
                return unchangedToKeepDeclaration()
            }
            output = .whole(back)
        }
        var result = RewriteResult(output: output, references: references, encoding: encoding,
                                   encodingSource: sniffed.source, linkedStylesheets: analysis.linkedStylesheets, warnings: warnings)
        result.otherEdits = analysis.edits.map { ($0.range, $0.replacement) }
        return result
    }

    /// Hands the memory the scan used (libxml2's copy of the page, the slots) back to the system
    /// before the references are decided and the output written, so that a large page's peak
    /// stays near the input plus its references.
    private func releaseFreedMemory(afterPageOf size: Int) {
        #if os(Linux)
        if size >= 4 << 20 { _ = malloc_trim(0) }
        #endif
    }

    private struct Analysis {
        var references: [ImageReference] = []
        /// Edits besides the rewritten references themselves (`<base>` handling).
        var edits: [ByteEdit] = []
        var rewrittenCount = 0
        var warnings: [String] = []
        var linkedStylesheets: [String] = []
    }

    private func analyse(_ page: UnsafeBufferPointer<UInt8>, encoding: HTMLEncoding, pageURL: WebURL?) -> Analysis {
        let buffer = ParseBuffer(page: page, pageIsUTF8: encoding == .utf8)
        let collector = ReferenceCollector(page: page, structure: buffer.view, encoding: encoding,
                                           lazyAttributes: options.lazyAttributes)
        let scanner = HTMLScanner(buffer: buffer, handler: collector)
        scanner.run()

        var analysis = Analysis()
        let queryEncoding: (@Sendable (String) -> [UInt8])? = encoding == .utf8 ? nil : { @Sendable text in TextCodec.encode(text, to: encoding) }
        let resolver = URLResolver(pageURL: pageURL, baseHref: collector.baseHref?.text, queryEncoding: queryEncoding)
        if resolver.baseHrefFailed, let baseText = collector.baseHref?.text {
            analysis.warnings.append("The page's <base href=\"\(baseText)\"> could not be resolved\(pageURL == nil ? " without a page URL" : "").")
        }

        analysis.linkedStylesheets = collector.stylesheetHrefs.compactMap { href in
            switch resolver.resolve(href) {
            case .resolvedHTTP(let url), .verbatim(let url): url
            case .resolved(let url): url.serializedWithoutFragment
            case .relativeWithoutBase, .invalid: nil
            }
        }
        var unresolvedRelative = 0
        var rewrittenStarts: Set<Int> = []
        let prefix = options.referenceStyle.prefix
        // Pages often repeat an image (a srcset and its fallback src, a sprite): resolve each text
        // once. The dictionary points at the first reference that shows the text's resolution
        // (an index, not a copy: a page can hold 100,000 of them). URLs that name no format are
        // resolved each time: what they mean depends on the place, and they are few.
        var resolved: [String: Int] = [:]
        // The slots are given back as they become references; with a `<base>` to neutralise,
        // the few it needs are kept (every URL's range, and the URLs not rewritten).
        let neutralizesBase = collector.baseHref != nil
        var slotRanges: [Range<Int>] = []
        var slotsForBase: [URLSlot] = []
        var slots = collector.takeURLSlots()
        analysis.references.reserveCapacity(slots.count)
        if neutralizesBase { slotRanges.reserveCapacity(slots.count) }
        slots.drain { slot in
            if neutralizesBase {
                slotRanges.append(slot.range)
                if !slot.text.isEmpty { slotsForBase.append(slot) }
            }
            guard let kind = slot.kind else { return }
            let resolution: Resolution
            if VerbatimDataURL.matches(slot.text) {
                // Inline images are often hundreds of KB, and each is its own: hashing them into
                // `resolved` would cost more than deciding again.
                resolution = resolve(slot.text, resolver: resolver)
            } else if let index = resolved[slot.text] {
                resolution = Resolution(analysis.references[index])
            } else {
                resolution = resolve(slot.text, resolver: resolver)
                if slot.isValidCandidate, !slot.isInert, !resolution.untyped { resolved[slot.text] = analysis.references.count }
            }
            let reference = decide(slot, kind: kind, resolution: resolution, prefix: prefix)
            if reference.skipReason == .relativeWithoutBase { unresolvedRelative += 1 }
            if reference.rewritten {
                analysis.rewrittenCount += 1
                if neutralizesBase {
                    rewrittenStarts.insert(slot.range.lowerBound)
                    slotsForBase.removeLast()
                }
            }
            analysis.references.append(reference)
        }
        if unresolvedRelative > 0 {
            analysis.warnings.append("\(unresolvedRelative) relative image URL\(unresolvedRelative == 1 ? " was" : "s were") left as they were: the page's URL is not known (give a base URL).")
        }

        if let baseSlot = collector.baseHref, analysis.rewrittenCount > 0, let originalBase = resolver.documentBase {
            analysis.edits += BaseElementNeutralizer(collector: collector, scanner: scanner, originalBase: originalBase,
                                                     queryEncoding: queryEncoding)
                .edits(baseHref: baseSlot, slots: slotsForBase.filter { !rewrittenStarts.contains($0.range.lowerBound) },
                       slotRanges: slotRanges)
            analysis.warnings.append("The page's <base href> was emptied so that local image paths resolve next to the page; other relative URLs were made absolute against \(originalBase).")
        }
        return analysis
    }

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

    func resolve(_ text: String, resolver: URLResolver) -> Resolution {
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
        guard let name = options.naming.name(forHTTPURL: serialized) else { return resolveUntyped(serialized) }
        if let isSiteFile = options.isSiteFile, isSiteFile(serialized) { return Resolution(url: serialized, skip: .siteFile) }
        if let shouldRewrite = options.shouldRewrite, let url = WebURL(serialized), !shouldRewrite(url, name.string) {
            return Resolution(url: serialized, name: name, skip: .declined)
        }
        return Resolution(url: serialized, name: name)
    }

    /// An http(s) URL without an enabled image extension: nothing, unless its path names no kind
    /// of file and such URLs are taken; then it is rewritten once its name is known
    /// (``RewriteOptions/untypedName``), and until then waits for its bytes.
    private func resolveUntyped(_ serialized: String) -> Resolution {
        guard options.untypedImages, options.naming.pathKind(ofHTTPURL: serialized) == .untyped else {
            return Resolution(url: serialized, skip: .unsupportedExtension)
        }
        if let isSiteFile = options.isSiteFile, isSiteFile(serialized) { return Resolution(url: serialized, skip: .siteFile) }
        guard let known = options.untypedName?(serialized), let name = LocalName(known) else {
            return Resolution(url: serialized, skip: .awaitingType, untyped: true)
        }
        if let shouldRewrite = options.shouldRewrite, let url = WebURL(serialized), !shouldRewrite(url, name.string) {
            return Resolution(url: serialized, name: name, skip: .declined, untyped: true)
        }
        return Resolution(url: serialized, name: name, untyped: true)
    }

    func decide(_ slot: URLSlot, kind: ImageReference.Kind, resolution: Resolution, prefix: String) -> ImageReference {
        var resolution = resolution
        if resolution.untyped, !slot.acceptsUntyped {
            // Not a place where the markup says "image" beyond doubt: the extension rule decides.
            resolution = Resolution(url: resolution.url, skip: .unsupportedExtension)
        }
        var skip = resolution.skip
        if resolution.name != nil || resolution.untyped, skip == nil || skip == .declined || skip == .awaitingType {
            // Markup browsers never use is reported as such, whatever the caller would decide.
            if !slot.isValidCandidate {
                skip = .invalidCandidate
            } else if slot.isInert {
                skip = .inertMarkup
            }
        }
        return ImageReference(kind: kind, element: slot.element, attribute: slot.attribute, original: slot.text,
                              url: resolution.url, name: resolution.name, localPathPrefix: prefix,
                              rewritten: skip == nil, skipReason: skip, byteRange: slot.range)
    }
}
