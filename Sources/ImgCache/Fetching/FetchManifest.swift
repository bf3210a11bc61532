public import Foundation

/// What `imgcache fetch` did, written beside the pages as JSON.
public struct FetchManifest: Sendable, Codable {
    /// One page that was processed.
    public struct Page: Sendable, Codable {
        /// The input: a file path or a URL.
        public var input: String
        /// Where the rewritten page was written.
        public var output: String
        /// The URL relative references were resolved against, if any.
        public var pageURL: String?
        /// One entry per image reference in the page, in document order.
        public var references: [Entry]

        /// Creates a page record.
        public init(input: String, output: String, pageURL: String?, references: [Entry]) {
            self.input = input
            self.output = output
            self.pageURL = pageURL
            self.references = references
        }
    }

    /// One image reference and what became of its image.
    public struct Entry: Sendable, Codable {
        /// The reference's kind (`img-src`, `style-attribute`, …).
        public var kind: String
        /// The URL as the page wrote it.
        public var original: String
        /// The absolute URL.
        public var url: String?
        /// The path the page now uses, when rewritten.
        public var localPath: String?
        /// `cached`, `downloaded`, `revalidated`, `failed` or `skipped`.
        public var status: DownloadStatus
        /// Size of the cached image.
        public var bytes: Int
        /// The server's `Content-Type`.
        public var contentType: String?
        /// Why it failed or was skipped.
        public var error: String?
    }

    /// When the run finished.
    public var generatedAt: Date
    /// The cache folder.
    public var cacheDirectory: String
    /// The pages, in the order given.
    public var pages: [Page]

    /// Creates a manifest.
    public init(generatedAt: Date = Date(), cacheDirectory: String, pages: [Page] = []) {
        self.generatedAt = generatedAt
        self.cacheDirectory = cacheDirectory
        self.pages = pages
    }

    /// Pretty, key-sorted JSON with ISO-8601 dates: what `JSONEncoder` with `.prettyPrinted`,
    /// `.sortedKeys`, `.withoutEscapingSlashes` and `.iso8601` writes, and what `JSONDecoder` with
    /// `.iso8601` reads back. Written by hand: a page with thousands of images made `JSONEncoder`
    /// a sixth of a warm `fetch`.
    public func encoded() throws -> [UInt8] {
        var out = JSONText()
        out.open()
        out.field("cacheDirectory", string: cacheDirectory)
        out.field("generatedAt", string: generatedAt.formatted(.iso8601))
        out.key("pages")
        out.openArray()
        for page in pages {
            out.element()
            out.open()
            out.field("input", string: page.input)
            out.field("output", string: page.output)
            if let pageURL = page.pageURL { out.field("pageURL", string: pageURL) }
            out.key("references")
            out.openArray()
            for entry in page.references {
                out.element()
                out.open()
                out.field("bytes", number: String(entry.bytes))
                if let contentType = entry.contentType { out.field("contentType", string: contentType) }
                if let error = entry.error { out.field("error", string: error) }
                out.field("kind", string: entry.kind)
                if let localPath = entry.localPath { out.field("localPath", string: localPath) }
                out.field("original", string: entry.original)
                out.field("status", string: entry.status.rawValue)
                if let url = entry.url { out.field("url", string: url) }
                out.close()
            }
            out.closeArray()
            out.close()
        }
        out.closeArray()
        out.close()
        return out.bytes + [0x0A]
    }

    /// Entries for a page's references, given what the downloader reported for each URL.
    public static func entries(for references: [ImageReference], outcomes: [String: DownloadOutcome]) -> [Entry] {
        references.map { reference in
            let outcome = reference.url.flatMap { outcomes[$0] }
            let status: DownloadStatus = outcome?.status ?? .skipped
            var error = outcome?.error
            if outcome == nil { error = reference.skipReason?.rawValue ?? "not downloaded" }
            return Entry(kind: reference.kind.rawValue, original: reference.original, url: reference.url,
                         localPath: reference.localPath, status: status, bytes: outcome?.byteCount ?? 0,
                         contentType: outcome?.contentType, error: error)
        }
    }
}
