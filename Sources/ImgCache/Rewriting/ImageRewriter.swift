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

        var analysis = working.withUnsafeBufferPointer { analyse($0, encoding: workingEncoding, pageURL: pageURL) }
        warnings += analysis.warnings
        guard splice, !analysis.edits.isEmpty else {
            return RewriteResult(bytes: page, references: analysis.references, encoding: encoding,
                                 encodingSource: sniffed.source, warnings: warnings)
        }
        var output = working.withUnsafeBufferPointer { ByteEdit.apply(analysis.edits, to: $0) }
        analysis.edits = []
        if workingEncoding != encoding {
            guard let back = TextCodec.transcodeFromUTF8(output, to: encoding) else {
                warnings.append("The rewritten page could not be converted back to \(encoding); it was left unchanged.")
                return RewriteResult(bytes: page, references: analysis.references.map(\.notRewritten), encoding: encoding,
                                     encodingSource: sniffed.source, warnings: warnings)
            }
            output = back
        }
        return RewriteResult(bytes: output, references: analysis.references, encoding: encoding,
                             encodingSource: sniffed.source, warnings: warnings)
    }

    private struct Analysis {
        var references: [ImageReference] = []
        var edits: [ByteEdit] = []
        var warnings: [String] = []
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
        if let baseText = collector.baseHref?.text, resolver.documentBase == nil || resolver.documentBase == pageURL,
           !baseText.isEmpty, WebURL(baseText, relativeTo: pageURL, queryEncoding: queryEncoding) == nil {
            analysis.warnings.append("The page's <base href=\"\(baseText)\"> could not be resolved\(pageURL == nil ? " without a page URL" : "").")
        }

        var unresolvedRelative = 0
        var rewrittenRanges: [Range<Int>] = []
        for slot in collector.urlSlots {
            guard let kind = slot.kind else { continue }
            let reference = decide(slot, kind: kind, resolver: resolver)
            if reference.skipReason == .relativeWithoutBase { unresolvedRelative += 1 }
            if reference.rewritten, let localPath = reference.localPath {
                analysis.edits.append(ByteEdit(range: slot.range, replacement: ReplacementEscaper.escape(localPath, for: slot.context)))
                rewrittenRanges.append(slot.range)
            }
            analysis.references.append(reference)
        }
        if unresolvedRelative > 0 {
            analysis.warnings.append("\(unresolvedRelative) relative image URL\(unresolvedRelative == 1 ? " was" : "s were") left as they were: the page's URL is not known (give a base URL).")
        }

        if let baseSlot = collector.baseHref, !rewrittenRanges.isEmpty, let originalBase = resolver.documentBase {
            analysis.edits += BaseElementNeutralizer(collector: collector, originalBase: originalBase, queryEncoding: queryEncoding)
                .edits(baseHref: baseSlot, skipping: rewrittenRanges)
            analysis.warnings.append("The page's <base href> was emptied so that local image paths resolve next to the page; other relative URLs were made absolute against \(originalBase).")
        }
        return analysis
    }

    private func decide(_ slot: URLSlot, kind: ImageReference.Kind, resolver: URLResolver) -> ImageReference {
        func reference(url: WebURL? = nil, localName: String? = nil, localPath: String? = nil,
                       skip: ImageReference.SkipReason?) -> ImageReference {
            ImageReference(kind: kind, element: slot.element, attribute: slot.attribute, original: slot.text,
                           url: url?.serialized, localName: localName, localPath: localPath,
                           rewritten: skip == nil, skipReason: skip, byteRange: slot.range)
        }
        guard !slot.text.isEmpty else { return reference(skip: .empty) }
        let resolution = resolver.resolve(slot.text)
        guard case .resolved(let url) = resolution else {
            return reference(skip: resolution == .relativeWithoutBase ? .relativeWithoutBase : .invalidURL)
        }
        guard url.isHTTP else { return reference(url: url, skip: .notHTTP) }
        guard let localName = options.naming.localName(for: url) else { return reference(url: url, skip: .unsupportedExtension) }
        if !slot.isValidCandidate { return reference(url: url, localName: localName, skip: .invalidCandidate) }
        if slot.isInert { return reference(url: url, localName: localName, skip: .inertMarkup) }
        if let shouldRewrite = options.shouldRewrite, !shouldRewrite(url, localName) {
            return reference(url: url, localName: localName, skip: .declined)
        }
        return reference(url: url, localName: localName, localPath: options.referenceStyle.reference(to: localName), skip: nil)
    }
}

extension ImageReference {
    /// The same reference, reported as not rewritten.
    var notRewritten: ImageReference {
        ImageReference(kind: kind, element: element, attribute: attribute, original: original, url: url,
                       localName: localName, localPath: nil, rewritten: false, skipReason: skipReason, byteRange: byteRange)
    }
}
