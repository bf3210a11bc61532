/// Stylesheet files (`.css`): the same references as a `<style>` element's, found and rewritten
/// with the same rules, every other byte kept.
extension ImageRewriter {
    /// Rewrites the image URLs of a stylesheet: every `url()` and the URLs of `image-set()`, resolved
    /// against the stylesheet's own URL. `@import` URLs and URLs without an enabled image extension
    /// (fonts) are left alone.
    /// - Parameters:
    ///   - stylesheet: the file's bytes.
    ///   - url: where the stylesheet is served from; relative URLs resolve against it. Without it,
    ///     relative URLs are left alone.
    ///   - referringEncoding: the encoding of the page that links the stylesheet, used when the
    ///     file has neither a byte order mark nor an `@charset` rule (UTF-8 when nil).
    public func rewriteStylesheet(_ stylesheet: [UInt8], url: WebURL?, referringEncoding: HTMLEncoding? = nil) -> RewriteResult {
        processStylesheet(stylesheet, url: url, referringEncoding: referringEncoding, splice: true)
    }

    /// Lists a stylesheet's image references without rewriting anything (see
    /// ``rewriteStylesheet(_:url:referringEncoding:)``).
    public func references(inStylesheet stylesheet: [UInt8], url: WebURL?, referringEncoding: HTMLEncoding? = nil) -> RewriteResult {
        processStylesheet(stylesheet, url: url, referringEncoding: referringEncoding, splice: false)
    }

    private func processStylesheet(_ stylesheet: [UInt8], url: WebURL?, referringEncoding: HTMLEncoding?, splice: Bool) -> RewriteResult {
        let sniffed = stylesheet.withUnsafeBufferPointer { StylesheetEncoding.determine($0, referringDocument: referringEncoding) }
        var warnings: [String] = sniffed.warning.map { [$0] } ?? []
        let encoding = sniffed.encoding
        func unchanged(_ references: [ImageReference]) -> RewriteResult {
            RewriteResult(bytes: stylesheet, references: references, encoding: encoding, encodingSource: sniffed.source, warnings: warnings)
        }

        // Only a UTF-16 byte order mark gets here with bytes that are not ASCII-compatible: work in
        // UTF-8 and convert back, when that is exactly reversible (as for pages).
        var working = stylesheet
        var workingEncoding = encoding
        if !encoding.isASCIICompatible {
            guard let utf8 = stylesheet.withUnsafeBufferPointer({ TextCodec.transcodeToUTF8Exactly($0, from: encoding) }) else {
                warnings.append("The stylesheet's \(encoding) bytes do not convert to Unicode and back exactly; it was left unchanged.")
                return unchanged([])
            }
            working = utf8
            workingEncoding = .utf8
        }

        var references: [ImageReference] = []
        var unresolvedRelative = 0
        var rewrittenCount = 0
        working.withUnsafeBufferPointer { bytes in
            // The byte order mark is neither text nor syntax.
            let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
            let text = DecodedText.decode(UnsafeBufferPointer(rebasing: bytes[start...]), encoding: workingEncoding,
                                          characterReferences: false)
            // CSS parses URLs as UTF-8 whatever the stylesheet's encoding.
            let resolver = URLResolver(pageURL: url, baseHref: nil, queryEncoding: nil)
            let prefix = options.referenceStyle.prefix
            var resolved: [String: Resolution] = [:]
            for token in CSSURLScanner.scan(text.scalars) where !token.isNeverImage {
                let raw = text.rawRange(of: token.range)
                let slot = URLSlot(range: start + raw.lowerBound..<start + raw.upperBound, text: token.value,
                                   context: .cssInElement, kind: .stylesheet, element: "", attribute: nil,
                                   isValidCandidate: true, isInert: false, acceptsUntyped: URLSlot.cssAcceptsUntyped(token))
                let resolution = resolved[token.value] ?? resolve(token.value, resolver: resolver)
                resolved[token.value] = resolution
                let reference = decide(slot, kind: .stylesheet, resolution: resolution, prefix: prefix)
                if reference.skipReason == .relativeWithoutBase { unresolvedRelative += 1 }
                if reference.rewritten { rewrittenCount += 1 }
                references.append(reference)
            }
        }
        if unresolvedRelative > 0 {
            warnings.append("\(unresolvedRelative) relative image URL\(unresolvedRelative == 1 ? " was" : "s were") left as they were: the stylesheet's URL is not known (give a base URL).")
        }
        guard splice, rewrittenCount > 0 else { return unchanged(references) }
        let splice = PageSplice(source: working, references: references, prefix: options.referenceStyle.prefix, edits: [])
        var output = RewriteResult.Output.spliced(splice)
        if workingEncoding != encoding {
            guard let back = TextCodec.transcodeFromUTF8(splice.bytes, to: encoding) else {
                warnings.append("The rewritten stylesheet could not be converted back to \(encoding); it was left unchanged.")
                return unchanged(references.map(\.notRewritten))
            }
            output = .whole(back)
        }
        return RewriteResult(output: output, references: references, encoding: encoding, encodingSource: sniffed.source, warnings: warnings)
    }
}
