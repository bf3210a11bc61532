// The properties the fuzz targets check, shared by the libFuzzer executables (`Fuzz/`, through a
// symbolic link to this file) and the regression test that replays every input under
// `fixtures/fuzz/<target>/`: a finding, once fixed, stays fixed.
//
// Each check looks at behaviour from the outside (what a page becomes, what a parser hands back)
// against a statement of what must hold, never against the code's own idea of it.
@_spi(Fuzzing) import ImgCache

/// A property that did not hold, and the evidence.
public struct PropertyViolation: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// The fuzz targets: what each one feeds its input to.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// Whole pages through ``ImageRewriter``, with and without a page URL, in several encodings.
    case rewriter
    /// `srcset` values through the srcset parser.
    case srcset
    /// CSS through the URL scanner, and whole stylesheets through the stylesheet rewriter.
    case cssurls
    /// URL strings through ``BrowserURL``, alone and against several bases.
    case url
    /// The first bytes of a page through the `<meta charset>` prescan.
    case metacharset
    /// Lines of a cache folder's index through the index reader.
    case indexline

    /// Checks every property of the target on one input.
    public func check(_ input: [UInt8]) throws(PropertyViolation) {
        switch self {
        case .rewriter: try RewriterProperties.check(input)
        case .srcset: try SrcsetProperties.check(input)
        case .cssurls: try CSSProperties.check(input)
        case .url: try URLProperties.check(input)
        case .metacharset: try MetaCharsetProperties.check(input)
        case .indexline: try IndexLineProperties.check(input)
        }
    }
}

// MARK: - Shared

/// Shows bytes for a message: as text, with control bytes escaped, cut to a readable length.
func show(_ bytes: some Collection<UInt8>, limit: Int = 200) -> String {
    var text = ""
    for byte in bytes.prefix(limit) {
        switch byte {
        case 0x20..<0x7F where byte != UInt8(ascii: "\\"): text.unicodeScalars.append(Unicode.Scalar(byte))
        default: text += "\\x" + String(byte, radix: 16)
        }
    }
    return bytes.count > limit ? text + "…(\(bytes.count) bytes)" : text
}

/// The names the cache can write, stated on their own terms: `<64 lowercase hex digits>.<extension>`,
/// optionally inside the fan-out folder named by the first two digits, the extension 1 to 32
/// characters of `a-z 0-9 - _ +`. Anything else (a `..`, a slash elsewhere, an absolute path)
/// could make eviction or `prune` delete a file outside the cache.
func isNameTheCacheWrites(_ name: String) -> Bool {
    let parts = name.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
    guard let file = parts.last, parts.count <= 2 else { return false }
    if parts.count == 2 {
        guard parts[0].count == 2, file.starts(with: parts[0]) else { return false }
    }
    let pieces = file.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
    guard pieces.count == 2, pieces[0].count == 64, (1...32).contains(pieces[1].count) else { return false }
    let hex = Array("0123456789abcdef".utf8)
    let extensionBytes = Array("abcdefghijklmnopqrstuvwxyz0123456789-_+".utf8)
    return pieces[0].allSatisfy(hex.contains) && pieces[1].allSatisfy(extensionBytes.contains)
}

/// Bytes that stay inert wherever a local reference lands: an attribute value with any quoting,
/// CSS strings and `url()`, `srcset`. The rewriter promises to write nothing else.
func isInertReferenceByte(_ byte: UInt8) -> Bool {
    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
        || Array("-._~/:@!$+;=?#%".utf8).contains(byte)
}

// MARK: - Rewriter

enum RewriterProperties {
    static let pageURLs: [String] = ["https://example.com/dir/page.html", "http://xn--r8jz45g.jp/a/b/?q=1#top"]
    static let transportLabels: [String?] = [nil, nil, "utf-8", "windows-1252", "shift_jis", "utf-16le", "euc-kr", "iso-2022-jp"]
    /// An untyped image URL that "was downloaded before": references to it are rewritten.
    static let knownUntypedName = String(repeating: "ab", count: 32) + ".jpg"

    /// The rewriter an input is rewritten with: its options and naming chosen by its length, so
    /// that every seed page runs with several and mutations move between them.
    static func rewriter(for input: [UInt8]) -> ImageRewriter {
        let variant = input.count
        let options = RewriteOptions(
            referenceStyle: variant / 8 % 2 == 0 ? .relativePath("images") : .urlPrefix("imgcache://cache/"),
            transportEncodingLabel: transportLabels[variant % transportLabels.count]
        )
        return ImageRewriter(options: options, naming: LocalImageNaming(extensions: LocalImageNaming.defaultExtensions.union(["svg", "webp"]),
                                                                        fanOut: variant / 16 % 2 == 1))
    }

    /// Scans and renders as a pipeline would, with the images whose URL names no format and
    /// contains "photo" known to the cache.
    static func rewrite(_ input: [UInt8], pageURL: BrowserURL?, with rewriter: ImageRewriter) -> RewriteResult {
        let scan = rewriter.scan(input, url: pageURL, transportCharset: rewriter.options.transportEncodingLabel)
        let known = scan.untypedImageURLs.filter { $0.contains("photo") }.map { ($0, knownUntypedName) }
        return rewriter.render(scan, availability: .everyTypedImage(untypedNames: Dictionary(known, uniquingKeysWith: { first, _ in first })))
    }

    static func check(_ input: [UInt8]) throws(PropertyViolation) {
        let rewriter = rewriter(for: input)
        let options = rewriter.options
        for pageURL in [nil] + pageURLs.map({ BrowserURL($0) }) {
            let result = rewrite(input, pageURL: pageURL, with: rewriter)
            if pageURL != nil {
                let listed = rewriter.references(in: input, pageURL: pageURL)
                guard listed.references.map(\.byteRange) == result.references.map(\.byteRange) else {
                    throw PropertyViolation("references(in:) and rewrite(_:) found different references")
                }
            }
            try checkSplice(input: input, result: result, prefix: options.referenceStyle.prefix)
            if pageURL == nil { try checkDeterministic(result, rewrite(input, pageURL: pageURL, with: rewriter)) }

            // A browser finds the rewritten page's <meta charset> where it found the original's.
            if result.encodingSource != .byteOrderMark, result.encodingSource != .transport {
                let before = input.withUnsafeBufferPointer { MetaCharsetPrescan.prescan($0) }
                let after = result.bytes.withUnsafeBufferPointer { MetaCharsetPrescan.prescan($0) }
                guard before == after else {
                    throw PropertyViolation("the page's prescan finds \(before?.name ?? "no declaration"), the rewritten page's \(after?.name ?? "none")")
                }
            }

            // Local references must not create new image URLs: a second pass, where local
            // references cannot resolve to http(s), rewrites nothing.
            let localReferencesStayLocal = pageURL == nil || options.referenceStyle != .relativePath("images")
            if localReferencesStayLocal, !result.rewrittenReferences.isEmpty {
                let again = rewrite(result.bytes, pageURL: pageURL, with: rewriter)
                // (Read in another encoding, as when URLs held the page's only non-ASCII bytes and it
                // no longer looks like UTF-8, the page can hold other URLs.)
                // A URL that resolved against no base before (`http:\u{FFFD}//…` against an https
                // base) cannot be kept from resolving against the page's URL once the base is
                // emptied: making it absolute is impossible, changing it would be meddling.
                let unresolvable = Set(result.references.filter { $0.skipReason == .invalidURL }.map(\.original))
                let more = again.rewrittenReferences.filter { !unresolvable.contains($0.original) }
                if again.encoding == result.encoding, let first = more.first {
                    throw PropertyViolation("a second pass over the rewritten page rewrote \(more.count) more reference(s), the first \(first.original) at \(first.byteRange)")
                }
            }
        }
    }

    static func checkDeterministic(_ first: RewriteResult, _ second: RewriteResult) throws(PropertyViolation) {
        guard first.bytes == second.bytes, first.references == second.references, first.warnings == second.warnings,
              first.encoding == second.encoding else {
            throw PropertyViolation("the same input gave two different results")
        }
    }

    /// The output is the input with the reported spans replaced and nothing else: each rewritten
    /// reference's byte range by its local path, and the `<base>` edits by theirs; a page with
    /// nothing rewritten comes back byte-identical.
    /// - Parameter editsWithoutImages: whether URLs that are not images may change with no image
    ///   rewritten (``OtherURLs/absolute``).
    static func checkSplice(input: [UInt8], result: RewriteResult, prefix: String,
                            editsWithoutImages: Bool = false) throws(PropertyViolation) {
        let rewritten = result.rewrittenReferences
        if rewritten.isEmpty, !editsWithoutImages || result.otherEdits.isEmpty {
            guard result.bytes == input else { throw PropertyViolation("nothing was rewritten, yet the bytes changed") }
            guard result.otherEdits.isEmpty else { throw PropertyViolation("nothing was rewritten, yet edits were reported") }
        }
        // Spans are in the bytes the rewriter worked on: UTF-8 for pages that are not ASCII-compatible.
        var working = input
        var output = result.bytes
        if !result.encoding.isASCIICompatible {
            let inputUTF8 = input.withUnsafeBufferPointer { TextCodec.transcodeToUTF8Exactly($0, from: result.encoding) }
            if let inputUTF8 {
                working = inputUTF8
                if rewritten.isEmpty, result.otherEdits.isEmpty {
                    output = inputUTF8
                } else {
                    guard let outputUTF8 = result.bytes.withUnsafeBufferPointer({ TextCodec.transcodeToUTF8Exactly($0, from: result.encoding) })
                    else { throw PropertyViolation("a \(result.encoding) page was rewritten into bytes that do not convert to UTF-8 exactly") }
                    output = outputUTF8
                }
            } else if !result.references.isEmpty {
                throw PropertyViolation("a \(result.encoding) page that does not convert to UTF-8 exactly has references")
            }
        }

        for reference in result.references {
            let range = reference.byteRange
            guard range.lowerBound >= 0, range.upperBound <= working.count else {
                throw PropertyViolation("reference \(reference.original) has range \(range) outside the \(working.count) bytes")
            }
            // Where the page spells the URL plainly, the span is exactly the URL.
            let raw = working[range]
            if raw.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "&") && $0 != UInt8(ascii: "\\") }),
               String(decoding: raw, as: UTF8.self) != reference.original {
                throw PropertyViolation("the span \(range) spells \(show(raw)) but the reference says \(reference.original)")
            }
        }

        var edits: [(range: Range<Int>, replacement: [UInt8], what: String)] = []
        for reference in rewritten {
            guard let name = reference.localName, let path = reference.localPath else {
                throw PropertyViolation("rewritten reference \(reference.original) has no local name or path")
            }
            guard isNameTheCacheWrites(name) || name == knownUntypedName else {
                throw PropertyViolation("rewritten to \(name), a name the cache never writes")
            }
            guard path == prefix + name, path.utf8.allSatisfy(isInertReferenceByte) else {
                throw PropertyViolation("local path \(path) is not the inert prefix \(prefix) and the name")
            }
            edits.append((reference.byteRange, Array(path.utf8), "reference \(reference.original)"))
        }
        for edit in result.otherEdits {
            guard edit.range.lowerBound >= 0, edit.range.upperBound <= working.count else {
                throw PropertyViolation("edit at \(edit.range) lies outside the \(working.count) bytes")
            }
            edits.append((edit.range, edit.replacement, "<base> edit of \(show(working[edit.range]))"))
        }
        edits.sort { $0.range.lowerBound < $1.range.lowerBound }

        var expected: [UInt8] = []
        var position = 0
        for edit in edits {
            guard edit.range.lowerBound >= position else {
                throw PropertyViolation("\(edit.what) at \(edit.range) overlaps the edit before it (which ends at \(position))")
            }
            // A replacement must not end the value it stands in: no quote the value opened with.
            if edit.range.lowerBound > 0 {
                let opener = working[edit.range.lowerBound - 1]
                if opener == UInt8(ascii: "\"") || opener == UInt8(ascii: "'"), edit.replacement.contains(opener) {
                    throw PropertyViolation("\(edit.what) is replaced by \(show(edit.replacement)), which closes its quote")
                }
            }
            expected += working[position..<edit.range.lowerBound]
            expected += edit.replacement
            position = edit.range.upperBound
        }
        expected += working[position...]
        guard expected == output else {
            let offset = zip(expected, output).prefix { $0 == $1 }.count
            throw PropertyViolation("the output differs from the input with the reported edits applied, first at byte \(offset): \(show(output[offset...], limit: 60)) instead of \(show(expected[offset...], limit: 60))")
        }
    }
}

// MARK: - srcset

enum SrcsetProperties {
    static func isWhitespace(_ s: Unicode.Scalar) -> Bool {
        s == " " || s == "\t" || s == "\n" || s == "\u{0C}" || s == "\r"
    }

    static func check(_ input: [UInt8]) throws(PropertyViolation) {
        let text = Array(String(decoding: input, as: UTF8.self).unicodeScalars)
        let candidates = FuzzingEntryPoints.srcsetCandidates(text)
        guard candidates == FuzzingEntryPoints.srcsetCandidates(text) else {
            throw PropertyViolation("the same srcset parsed two ways")
        }
        var position = 0
        for candidate in candidates {
            let range = candidate.urlRange
            guard range.lowerBound >= position, range.upperBound <= text.count, !range.isEmpty else {
                throw PropertyViolation("candidate URL range \(range) is empty, out of order or out of bounds")
            }
            let url = text[range]
            guard !url.contains(where: isWhitespace), url.first != ",", url.last != "," else {
                throw PropertyViolation("candidate URL \(String(String.UnicodeScalarView(url))) holds whitespace or starts or ends with a comma")
            }
            position = range.upperBound
        }

        // The rewriter replaces each URL by a local path: the srcset must still mean the same
        // candidates, each as valid as before.
        let local = Array("images/0123456789abcdef.png".unicodeScalars)
        var replaced: [Unicode.Scalar] = []
        var from = 0
        for candidate in candidates {
            replaced += text[from..<candidate.urlRange.lowerBound]
            replaced += local
            from = candidate.urlRange.upperBound
        }
        replaced += text[from...]
        let after = FuzzingEntryPoints.srcsetCandidates(replaced)
        guard after.map(\.isValid) == candidates.map(\.isValid),
              after.allSatisfy({ Array(replaced[$0.urlRange]) == local }) else {
            throw PropertyViolation("replacing the URLs changed the candidates: \(candidates.map(\.isValid)) became \(after.map(\.isValid))")
        }
    }
}

// MARK: - CSS

enum CSSProperties {
    static func check(_ input: [UInt8]) throws(PropertyViolation) {
        let text = Array(String(decoding: input, as: UTF8.self).unicodeScalars)
        let urls = FuzzingEntryPoints.cssURLs(text)
        guard urls == FuzzingEntryPoints.cssURLs(text) else { throw PropertyViolation("the same CSS scanned two ways") }
        var position = 0
        for url in urls {
            guard url.range.lowerBound >= position, url.range.upperBound <= text.count else {
                throw PropertyViolation("URL range \(url.range) is out of order or out of bounds")
            }
            let raw = String(String.UnicodeScalarView(text[url.range]))
            if !raw.contains("\\"), !raw.contains("\n"), raw != url.value {
                throw PropertyViolation("the URL spelled \(raw) without escapes reads as \(url.value)")
            }
            position = url.range.upperBound
        }

        // The rewriter replaces each URL by a local path: the CSS must still hold the same URLs
        // in the same roles, now reading as that path.
        let local = "images/0123456789abcdef.png"
        var replaced: [Unicode.Scalar] = []
        var from = 0
        for url in urls {
            replaced += text[from..<url.range.lowerBound]
            replaced += local.unicodeScalars
            from = url.range.upperBound
        }
        replaced += text[from...]
        let after = FuzzingEntryPoints.cssURLs(replaced)
        guard after.count == urls.count,
              zip(after, urls).allSatisfy({ $0.value == local && $0.isNeverImage == $1.isNeverImage && $0.property == $1.property }) else {
            throw PropertyViolation("replacing the URLs changed what the scanner finds: \(urls.map(\.value)) became \(after.map(\.value))")
        }

        // Whole stylesheets, with and without their own URL.
        let rewriter = RewriterProperties.rewriter(for: input)
        let options = rewriter.options
        for url in [nil, BrowserURL("https://example.com/css/site.css")] {
            let result = rewriter.rewriteStylesheet(input, url: url)
            let second = rewriter.rewriteStylesheet(input, url: url)
            try RewriterProperties.checkDeterministic(result, second)
            try RewriterProperties.checkSplice(input: input, result: result, prefix: options.referenceStyle.prefix)
        }
    }
}

// MARK: - URL

enum URLProperties {
    static let bases: [BrowserURL] = [
        "https://user:pw@example.com:8080/a/b/c?q=1#f", "file:///C:/dir/file.txt", "non-special://host/x/y",
        "data:text/plain,opaque", "http://[::1]/", "sc:/path-only",
    ].compactMap { BrowserURL($0) }

    static func check(_ input: [UInt8]) throws(PropertyViolation) {
        let text = String(decoding: input, as: UTF8.self)
        let windows1252: @Sendable (String) -> [UInt8] = { TextCodec.encode($0, to: .windows1252) }
        try checkRoundTrip(BrowserURL(text), of: text)
        try checkRoundTrip(BrowserURL(text, queryEncoding: windows1252), of: text)
        for base in bases {
            try checkRoundTrip(BrowserURL(text, relativeTo: base), of: text)
        }
        // A base of a scheme that is not special never takes part in parsing an absolute URL.
        let nonSpecialBase = bases.first { !$0.isSpecial }!
        if let absolute = BrowserURL(text), BrowserURL(text, relativeTo: nonSpecialBase)?.serialized != absolute.serialized {
            throw PropertyViolation("the absolute URL \(absolute.serialized) parses otherwise against \(nonSpecialBase.serialized)")
        }
    }

    /// Parse, serialise, parse: the second parse gives the same URL, and the serialisation is
    /// printable ASCII or spaces (everything else percent-encoded or punycoded).
    static func checkRoundTrip(_ url: BrowserURL?, of text: String) throws(PropertyViolation) {
        guard let url else { return }
        let serialized = url.serialized
        guard serialized.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
            throw PropertyViolation("\(show(Array(text.utf8))) serialises to \(show(Array(serialized.utf8))), not printable ASCII")
        }
        guard let again = BrowserURL(serialized) else {
            throw PropertyViolation("\(show(Array(text.utf8))) serialises to \(serialized), which does not parse")
        }
        guard again.serialized == serialized, again.scheme == url.scheme, again.host == url.host, again.port == url.port,
              again.path == url.path, again.query == url.query, again.fragment == url.fragment,
              again.username == url.username, again.password == url.password else {
            throw PropertyViolation("\(show(Array(text.utf8))) serialises to \(serialized), which parses as \(again.serialized)")
        }
    }
}

// MARK: - meta charset

enum MetaCharsetProperties {
    static func check(_ input: [UInt8]) throws(PropertyViolation) {
        let found = input.withUnsafeBufferPointer { MetaCharsetPrescan.prescan($0) }
        let again = input.withUnsafeBufferPointer { MetaCharsetPrescan.prescan($0) }
        guard found == again else { throw PropertyViolation("the same bytes prescanned two ways") }
        // Browsers look at the first 1024 bytes only: what comes after never matters.
        let window = Array(input.prefix(MetaCharsetPrescan.byteLimit))
        if input.count > window.count, window.withUnsafeBufferPointer({ MetaCharsetPrescan.prescan($0) }) != found {
            throw PropertyViolation("bytes after the first \(MetaCharsetPrescan.byteLimit) changed the answer")
        }
        if let found, found.name == "x-user-defined" {
            throw PropertyViolation("the prescan answered x-user-defined, which browsers read as windows-1252")
        }
        // A page that can be read as ASCII to find its declaration is not UTF-16: only a UTF-16
        // "<?x" at the very start says UTF-16.
        let utf16Starts: [HTMLEncoding: [UInt8]] = [.utf16LE: [0x3C, 0, 0x3F, 0, 0x78, 0], .utf16BE: [0, 0x3C, 0, 0x3F, 0, 0x78]]
        if let found, let start = utf16Starts[found], !input.starts(with: start) {
            throw PropertyViolation("the prescan answered \(found) for \(show(input, limit: 60))")
        }
    }
}

// MARK: - Cache index

enum IndexLineProperties {
    static func check(_ input: [UInt8]) throws(PropertyViolation) {
        for line in input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            let read = FuzzingEntryPoints.readIndexLine(Array(line))
            guard !read.readersDisagree else {
                throw PropertyViolation("the fast line reader and the JSON reader read \(show(line)) differently")
            }
            guard let name = read.acceptedLocalName else { continue }
            guard isNameTheCacheWrites(name) else {
                throw PropertyViolation("the index reader accepted a record for \(show(Array(name.utf8))), a name the cache never writes")
            }
            guard read.roundTrips else {
                throw PropertyViolation("the record read from \(show(line)) does not read back the same once written: \(show(read.reencoded ?? []))")
            }
        }
    }
}
