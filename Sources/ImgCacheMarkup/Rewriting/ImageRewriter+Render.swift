/// The second phase: deciding each image by what is in the cache, and splicing local paths in.
extension ImageRewriter {
    /// Rewrites what `scan` found: each image that `availability` says is available points into
    /// the cache, spelled as the scanning rewriter's ``RewriteOptions/referenceStyle`` says;
    /// every other byte stays as it was. Makes no decision the markup made, reads nothing.
    ///
    /// A page whose rewriting would move its `<meta charset>` into or out of the first 1024 bytes
    /// keeps the references there as they were (or all of them, when its `<base>` is emptied); one
    /// whose rewritten form does not convert back to its encoding is left unchanged. Both say so
    /// in the warnings.
    package func render(_ scan: consuming DocumentScan, availability: ImageAvailability = .everyTypedImage()) -> RewriteResult {
        render(scan, availability: availability, splicing: true)
    }

    func render(_ scan: consuming DocumentScan, availability: ImageAvailability, splicing: Bool) -> RewriteResult {
        var scan = scan
        var warnings = scan.warnings
        guard !scan.leavesUnchanged else {
            return RewriteResult(bytes: scan.input, references: [], encoding: scan.encoding, encodingSource: scan.encodingSource,
                                 warnings: warnings)
        }
        // Taken out of the scan so that deciding changes them in place, not in a copy.
        var references = scan.references
        scan.references = []
        var rewrittenCount = 0
        for index in references.indices {
            let reference = references[index]
            switch reference.nameSource {
            case .none:
                continue
            case .url:
                guard case .rewritten = reference.disposition else { continue }
                if let url = reference.url, !availability.isCached(url) {
                    references[index].disposition = .notCached
                    continue
                }
            case .bytes:
                // Named, even where the markup alone skips it, as the listing has always shown.
                let name = reference.url.flatMap { availability.untypedNames[$0] }.flatMap(LocalName.init)
                guard let name else {
                    // Known to have failed, it awaits nothing more (and a device reads for another).
                    if case .awaitingType = reference.disposition, let url = reference.url, availability.hasFailed(url) {
                        references[index].disposition = .notCached
                    }
                    continue
                }
                references[index].name = name
                guard case .awaitingType = reference.disposition else { continue }
                references[index].disposition = reference.url.map(availability.isCached) == true ? .rewritten : .notCached
                guard references[index].disposition == .rewritten else { continue }
            }
            rewrittenCount += 1
        }

        var edits: [ByteEdit] = []
        if !scan.responsiveImages.isEmpty {
            // Chosen now that it is known which images are there: a device whose image failed
            // takes the one it would pick without it.
            let pending = availability.cachedURLs == nil
            Self.markChoices(of: scan.responsiveImages, for: options.devices, in: &references) {
                Self.isThereOffline($0, pending: pending)
            }
            let kept = Self.keepingShownCandidates(of: scan.responsiveImages, in: &references, page: scan.working,
                                                   prefix: scan.referencePrefix)
            edits = kept.edits
            rewrittenCount = references.lazy.filter(\.rewritten).count + (kept.spellsLocalPaths ? 1 : 0)
        }
        // Whether the page's `<base href>` is emptied: the URLs it steered must then all change together.
        var emptiesBase = false
        if let base = scan.base, rewrittenCount > 0 || base.absoluteLinks {
            // Those dropped or replaced for devices are edited already.
            let rewrittenStarts = Set(references.lazy.filter { $0.rewritten || $0.disposition == .notShown }.map(\.byteRange.lowerBound))
            let left = base.imageSlots.filter { !rewrittenStarts.contains($0.range.lowerBound) }
            // A `<base>` is emptied once local paths must resolve against the page's own folder,
            // or when the page is written away from its origin (a relative base would point into
            // the local folder); without one there is nothing to empty.
            let baseHref = rewrittenCount > 0 || base.absoluteLinks ? base.href : nil
            emptiesBase = baseHref != nil
            edits += BaseElementNeutralizer(originalBase: base.originalBase, queryEncoding: base.queryEncoding)
                .edits(baseHref: baseHref, slots: left + base.linkSlots)
            if emptiesBase { warnings.append(.baseEmptied(originalBase: base.originalBase)) }
        }
        let page = scan.input
        let encoding = scan.encoding
        let source = scan.encodingSource
        guard splicing, rewrittenCount > 0 || !edits.isEmpty else {
            return RewriteResult(bytes: page, references: references, encoding: encoding, encodingSource: source,
                                 linkedStylesheets: scan.linkedStylesheets, warnings: warnings)
        }
        let kind: DocumentKind = scan.isPage ? .page : .stylesheet
        func unchanged(_ references: [ImageReference]) -> RewriteResult {
            RewriteResult(bytes: page, references: references.map(\.notRewritten), encoding: encoding, encodingSource: source,
                          linkedStylesheets: scan.linkedStylesheets, warnings: warnings)
        }
        let prefix = scan.referencePrefix
        // A document read in an encoding that is not ASCII-compatible was scanned in UTF-8.
        let converts = !encoding.isASCIICompatible
        var spliced = PageSplice(source: scan.working, references: references, prefix: prefix, edits: edits)
        var output = RewriteResult.Output.spliced(spliced)
        if scan.isPage, !converts, EncodingDeclarationWindow.applies(to: source),
           !EncodingDeclarationWindow.keepsDeclaration(of: page, in: spliced.prefix(EncodingDeclarationWindow.size)) {
            // Leave the start of the page as it was. Not possible with `<base>` edits: the base
            // is emptied for the local paths, and the URLs left relative would then point elsewhere.
            // Links made absolute with no base emptied may stay relative there, as references do.
            let window = EncodingDeclarationWindow.size
            let kept = references.filter { $0.rewritten && $0.byteRange.lowerBound >= window }.count
            let keptEdits = edits.filter { $0.range.lowerBound >= window }
            guard !emptiesBase, kept > 0 || !keptEdits.isEmpty else {
                warnings.append(.metaCharsetWouldMove(window: window))
                return unchanged(references)
            }
            let left = rewrittenCount - kept
            if left > 0 { warnings.append(.referencesKeptForMetaCharset(count: left, window: window)) }
            references = references.map { $0.rewritten && $0.byteRange.lowerBound < window ? $0.notRewritten : $0 }
            edits = keptEdits
            spliced = PageSplice(source: scan.working, references: references, prefix: prefix, edits: edits)
            output = .spliced(spliced)
        } else if converts {
            // Converted back whole: such documents (UTF-16, ISO-2022-JP) are rare and the conversion
            // must see all of it to know that it is exact.
            guard let back = TextCodec.transcodeFromUTF8(spliced.bytes, to: encoding) else {
                warnings.append(.notConvertibleBack(kind, encoding: encoding))
                return unchanged(references)
            }
            if scan.isPage, EncodingDeclarationWindow.applies(to: source), !EncodingDeclarationWindow.keepsDeclaration(of: page, in: back) {
                warnings.append(.metaCharsetWouldMove(window: EncodingDeclarationWindow.size))
                return unchanged(references)
            }
            output = .whole(back)
        }
        var result = RewriteResult(output: output, references: references, encoding: encoding, encodingSource: source,
                                   linkedStylesheets: scan.linkedStylesheets, warnings: warnings)
        result.otherEdits = edits.map { ($0.range, $0.replacement) }
        return result
    }
}
