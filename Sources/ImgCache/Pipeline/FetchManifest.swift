public import Foundation
import ImgCacheSupport
import ImgCacheMarkup

/// What `imgcache fetch` did, written beside the pages as JSON (`imgcache-manifest.json`).
///
/// An app that ships a site the command localised reads it back with `JSONDecoder` (dates
/// `.iso8601`) for its ``images`` map: which image is in ``cacheDirectory``, under what name. The
/// per-page records are the command's report; an app that localises pages itself has the same in
/// each ``FileLocalization``.
public struct FetchManifest: Sendable, Codable {
    /// One page or stylesheet that was processed.
    package struct Page: Sendable, Codable {
        /// The input: a file path or a URL.
        package var input: String
        /// `page` or `stylesheet`.
        package var kind: SiteFileKind
        /// Where the rewritten file was written.
        package var output: String
        /// The URL relative references were resolved against, if any (a stylesheet's own URL).
        package var pageURL: String?
        /// One entry per image reference in the file, in document order.
        package var references: [Entry]
        /// The absolute URLs of the stylesheets a page links (`<link rel=stylesheet>`), when it
        /// links any; their images are listed under their own records.
        package var stylesheets: [String]?
        /// For a page, whether its URLs that are not images were made absolute (``OtherURLs``)
        /// or left as written; nil for a stylesheet.
        package var absoluteLinks: Bool?

        /// Creates a record.
        init(input: String, kind: SiteFileKind = .page, output: String, pageURL: String?,
             references: [Entry], stylesheets: [String]? = nil, absoluteLinks: Bool? = nil) {
            self.input = input
            self.kind = kind
            self.output = output
            self.pageURL = pageURL
            self.references = references
            self.stylesheets = stylesheets
            self.absoluteLinks = absoluteLinks
        }
    }

    /// One image reference and what became of its image.
    package struct Entry: Sendable, Codable {
        /// The reference's kind (`img-src`, `style-attribute`, …).
        package var kind: String
        /// The URL as the page wrote it.
        package var original: String
        /// The absolute URL.
        package var url: String?
        /// The path the page now uses, when rewritten.
        package var localPath: String?
        /// `cached`, `downloaded`, `revalidated`, `failed` or `skipped`.
        package var status: DownloadStatus
        /// Size of the cached image.
        package var bytes: Int
        /// The server's `Content-Type`.
        package var contentType: String?
        /// Why it failed or was skipped.
        package var error: String?
        /// The image's file name inside the cache folder, when it is there.
        package var localName: String?
        /// For a candidate of a responsive image, when pages are read for devices: the devices
        /// that show it (``ImageReference/shownOn``); empty when none does (it is then not fetched
        /// for this reference, and the page no longer offers it).
        package var shownOn: [String]?

        /// Creates an entry.
        init(kind: String, original: String, url: String?, localPath: String?, status: DownloadStatus, bytes: Int,
             contentType: String?, error: String?, localName: String? = nil, shownOn: [String]? = nil) {
            self.kind = kind
            self.original = original
            self.url = url
            self.localPath = localPath
            self.status = status
            self.bytes = bytes
            self.contentType = contentType
            self.error = error
            self.localName = localName
            self.shownOn = shownOn
        }
    }

    /// When the run finished.
    public var generatedAt: Date
    /// The cache folder.
    public var cacheDirectory: String
    /// The pages and stylesheets, in the order given (a site folder's files by path): what the
    /// command line reports of each, and what ``FileLocalization`` gives an app that localises them itself.
    package var pages: [Page]
    /// The site-wide map: every image that is in the cache, by absolute URL, to its file name
    /// inside ``cacheDirectory`` (a path, with `--fan-out`). An app can load it to serve the
    /// images through a custom URL scheme or to check what is cached.
    public var images: [String: String]

    /// Creates a manifest; `images` is gathered from the pages' references when not given.
    package init(generatedAt: Date = Date(), cacheDirectory: String, pages: [Page] = [], images: [String: String]? = nil) {
        self.generatedAt = generatedAt
        self.cacheDirectory = cacheDirectory
        self.pages = pages
        self.images = images ?? Self.imageMap(of: pages)
    }

    /// Every cached image the pages refer to, by absolute URL, to its name in the cache folder.
    static func imageMap(of pages: [Page]) -> [String: String] {
        var map: [String: String] = [:]
        // References read in place, as in `entries(for:outcomes:)`.
        for page in pages {
            let references = page.references
            for index in references.indices where references[index].status != .failed && references[index].status != .skipped {
                guard let url = references[index].url, let name = references[index].localName else { continue }
                map[url] = name
            }
        }
        return map
    }

    /// Pretty, key-sorted JSON with ISO-8601 dates: what `JSONEncoder` with `.prettyPrinted`,
    /// `.sortedKeys`, `.withoutEscapingSlashes` and `.iso8601` writes, and what `JSONDecoder` with
    /// `.iso8601` reads back. Written by hand: for a page with thousands of images `JSONEncoder`
    /// was a large part of a warm `fetch`.
    package func encoded() throws -> [UInt8] {
        var bytes: [UInt8] = []
        try encode { bytes += $0 }
        return bytes
    }

    /// Writes the manifest to `path` as a whole file or not at all, in pieces.
    /// - Throws: `FileError` naming the path.
    package func write(toFile path: String) throws {
        try AtomicFile.write(to: path) { emit in try encode(into: emit) }
    }

    /// ``encoded()`` handed to `emit` in pieces of about 64 KB, in order, as ``AtomicFile/write(to:by:)``
    /// takes them. A manifest of thousands of images runs to megabytes, and made whole (with the
    /// copies of its growing buffer) it was a good part of a cold run's peak memory.
    package func encode(into emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        var out = JSONText(capacity: Self.pieceSize + 4_096)
        func flushIfFull() throws {
            guard out.count >= Self.pieceSize else { return }
            try out.withUnsafeBytes(emit)
            out.removeAll()
        }
        out.open()
        out.field("cacheDirectory", string: cacheDirectory)
        out.field("generatedAt", string: Self.iso8601(generatedAt))
        out.key("images")
        out.open()
        for (url, name) in Self.keyOrdered(images) {
            out.key(escaping: url)
            out.string(name)
            try flushIfFull()
        }
        out.close()
        out.key("pages")
        out.openArray()
        for page in pages {
            out.element()
            out.open()
            if let absoluteLinks = page.absoluteLinks { out.field("absoluteLinks", number: absoluteLinks ? "true" : "false") }
            out.field("input", string: page.input)
            out.field("kind", string: page.kind.rawValue)
            out.field("output", string: page.output)
            if let pageURL = page.pageURL { out.field("pageURL", string: pageURL) }
            out.key("references")
            out.openArray()
            // Entries read in place: a copy of each (as `for in` makes) retained and released
            // its strings.
            let references = page.references
            for index in references.indices {
                out.element()
                out.open()
                out.field("bytes", integer: references[index].bytes)
                if let contentType = references[index].contentType { out.field("contentType", string: contentType) }
                if let error = references[index].error { out.field("error", string: error) }
                out.field("kind", string: references[index].kind)
                if let localName = references[index].localName { out.field("localName", string: localName) }
                if let localPath = references[index].localPath { out.field("localPath", string: localPath) }
                out.field("original", string: references[index].original)
                if let shownOn = references[index].shownOn {
                    out.key("shownOn")
                    out.openArray()
                    for device in shownOn {
                        out.element()
                        out.string(device)
                    }
                    out.closeArray()
                }
                out.field("status", string: references[index].status.rawValue)
                if let url = references[index].url { out.field("url", string: url) }
                out.close()
                try flushIfFull()
            }
            out.closeArray()
            if let stylesheets = page.stylesheets {
                out.key("stylesheets")
                out.openArray()
                for stylesheet in stylesheets {
                    out.element()
                    out.string(stylesheet)
                }
                out.closeArray()
            }
            out.close()
        }
        out.closeArray()
        out.close()
        out.append(0x0A)
        try out.withUnsafeBytes(emit)
    }

    private static let pieceSize = 1 << 16

    /// The map's pairs in the order `String`'s `<` gives their keys. URLs are ASCII, whose order is
    /// their bytes' order: compared with `memcmp` in one buffer of them all, they take far fewer
    /// instructions than a sort by `<` and a look-up of each value. A map with any other key
    /// is sorted with `<`.
    static func keyOrdered(_ map: [String: String]) -> [(key: String, value: String)] {
        let pairs = Array(map)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(pairs.count * 64)
        var spans: [(start: Int, count: Int)] = []
        spans.reserveCapacity(pairs.count)
        for pair in pairs {
            let start = bytes.count
            bytes.append(contentsOf: pair.key.utf8)
            spans.append((start, bytes.count - start))
        }
        guard !bytes.isEmpty, bytes.withUnsafeBufferPointer(\.isASCII) else { return pairs.sorted { $0.key < $1.key } }
        let order = bytes.withUnsafeBufferPointer { buffer in
            spans.withUnsafeBufferPointer { spans in
                let base = buffer.baseAddress!
                return spans.indices.sorted { a, b in
                    let first = spans[a], second = spans[b]
                    let order = memcmp(base + first.start, base + second.start, min(first.count, second.count))
                    return order != 0 ? order < 0 : first.count < second.count
                }
            }
        }
        return order.map { pairs[$0] }
    }

    /// `date` as `Date.ISO8601FormatStyle` writes it by default (`2026-11-29T14:30:05Z`: UTC, whole
    /// seconds), without making that style: making one costs many times what formatting the date
    /// by hand does (figures in the commit that brought this).
    static func iso8601(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        var days = seconds / 86_400
        var second = seconds % 86_400
        if second < 0 {
            second += 86_400
            days -= 1
        }
        // Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's `civil_from_days`).
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func digits(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(digits(year, 4))-\(digits(month, 2))-\(digits(day, 2))T"
            + "\(digits(second / 3_600, 2)):\(digits(second / 60 % 60, 2)):\(digits(second % 60, 2))Z"
    }

    /// Entries for a page's references, given what the downloader reported for each URL.
    static func entries(for references: [ImageReference], outcomes: [String: DownloadOutcome]) -> [Entry] {
        var entries: [Entry] = []
        entries.reserveCapacity(references.count)
        // Each reference read in place: a copy of it (as `map` hands it) retained and released
        // its strings, once per reference of every page.
        for index in references.indices {
            let kind = references[index].kind.rawValue, original = references[index].original, url = references[index].url
            let shownOn = references[index].shownOn
            guard let outcome = url.flatMap({ outcomes[$0] }) else {
                entries.append(Entry(kind: kind, original: original, url: url, localPath: references[index].localPath,
                                     status: .skipped, bytes: 0, contentType: nil,
                                     error: references[index].disposition.code ?? "not downloaded", shownOn: shownOn))
                continue
            }
            entries.append(Entry(kind: kind, original: original, url: url, localPath: references[index].localPath,
                                 status: outcome.status, bytes: outcome.byteCount, contentType: outcome.contentType,
                                 error: outcome.failure?.description, localName: outcome.isCached ? outcome.localName : nil,
                                 shownOn: shownOn))
        }
        return entries
    }
}
