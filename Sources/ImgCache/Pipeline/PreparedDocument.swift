/// A page or stylesheet between its first rewrite and its final one: what the first rewrite
/// found, and how to rewrite it again once the downloads are settled.
struct PreparedDocument: Sendable {
    let bytes: [UInt8]
    let url: WebURL?
    let document: LocalizedDocument
    let options: RewriteOptions
    /// Every image pointing into the cache, but those whose URL names no format and whose bytes
    /// the cache has not seen. One parse serves when every image ends up cached (always so in live
    /// mode): the file rewritten in full also lists the references.
    let firstRewrite: RewriteResult
    /// The distinct images to fetch, in document order.
    let imageURLs: [WebURL]
    /// Whether some image is to be named by its bytes once they are in.
    let awaitsTypes: Bool

    init(bytes: [UInt8], url: WebURL?, document: LocalizedDocument, options: RewriteOptions) {
        self.bytes = bytes
        self.url = url
        self.document = document
        self.options = options
        firstRewrite = Self.rewrite(bytes, url: url, document: document, options: options)
        var seen: Set<String> = []
        imageURLs = firstRewrite.references.compactMap { reference -> WebURL? in
            guard reference.wantsImage, let url = reference.url, seen.insert(url).inserted else { return nil }
            return WebURL(url)
        }
        awaitsTypes = firstRewrite.references.contains { $0.skipReason == .awaitingType }
    }

    /// Live mode's second rewrite: the images named by their bytes now point into the cache too.
    /// Nil when none of them could be named (the first rewrite stands).
    func namingTypedImages(from results: [DownloadOutcome]) -> RewriteResult? {
        guard awaitsTypes else { return nil }
        let named = Self.names(of: results)
        guard firstRewrite.references.contains(where: { $0.skipReason == .awaitingType && $0.url.flatMap { named[$0] } != nil }) else {
            return nil
        }
        var options = options
        options.untypedName = { named[$0] }
        return Self.rewrite(bytes, url: url, document: document, options: options)
    }

    /// Build mode's rewrite: only the images now in the cache point into it; failed ones keep
    /// their remote URL. The first rewrite itself when every image is in.
    func keepingFailuresRemote(_ results: [DownloadOutcome]) -> RewriteResult {
        if !awaitsTypes, results.allSatisfy(\.isCached) { return firstRewrite }
        let named = Self.names(of: results)
        var options = options
        options.untypedName = { named[$0] }
        let previous = options.shouldRewrite
        options.shouldRewrite = { url, name in
            named[url.serializedWithoutFragment] != nil && (previous?(url, name) ?? true)
        }
        return Self.rewrite(bytes, url: url, document: document, options: options)
    }

    /// The cache name of every image that is in the cache, by URL.
    private static func names(of results: [DownloadOutcome]) -> [String: String] {
        Dictionary(results.filter(\.isCached).map { ($0.url, $0.localName) }, uniquingKeysWith: { first, _ in first })
    }

    private static func rewrite(_ bytes: [UInt8], url: WebURL?, document: LocalizedDocument, options: RewriteOptions) -> RewriteResult {
        let rewriter = ImageRewriter(options: options)
        switch document {
        case .page: return rewriter.rewrite(bytes, pageURL: url)
        case .stylesheet(let referringEncoding): return rewriter.rewriteStylesheet(bytes, url: url, referringEncoding: referringEncoding)
        }
    }
}
