import ImgCacheURLs
import ImgCacheMarkup
import ImgCacheStore
/// A page or stylesheet between its scan and its final rendering: what the scan found, its first
/// rendering, and how to render it again once the downloads are settled. It is parsed once,
/// whatever the mode.
struct PreparedDocument: Sendable {
    let rewriter: ImageRewriter
    let scan: DocumentScan
    /// Every image pointing into the cache but those whose URL names no format and whose bytes
    /// the cache has not seen: final in live mode, and in build mode when every image comes in.
    let firstRewrite: RewriteResult
    /// Whether some image is to be named by its bytes once they are in.
    let awaitsTypes: Bool
    /// The cache names the scan's images whose URL names no format had before the downloads.
    let knownNames: [String: String]

    /// - Parameter knownNames: the cache names of the scan's images whose URL names no format,
    ///   for those the cache has seen before.
    init(rewriter: ImageRewriter, scan: DocumentScan, knownNames: [String: String]) {
        self.rewriter = rewriter
        self.scan = scan
        self.knownNames = knownNames
        firstRewrite = rewriter.render(scan, availability: .everyTypedImage(untypedNames: knownNames))
        awaitsTypes = firstRewrite.references.contains { $0.disposition == .awaitingType }
    }

    /// The distinct images to fetch, in document order, with the names their URLs gave them (the
    /// session's rewriter names them as its store does). Made when asked, not kept: for a page of
    /// thousands of images they are megabytes that need not outlive the downloads.
    func imagesToFetch() -> [ImageToFetch] {
        Self.images(of: firstRewrite)
    }

    /// Whether devices choose among the candidates of some image: a failed download then has
    /// them choose another (``imagesInstead(of:)``).
    var choosesPerDevice: Bool { !scan.responsiveImages.isEmpty }

    /// Whether live mode may write the page a second time once downloads settle (images named by
    /// their bytes, or a device's pick replaced after a failure): the refresh must wait for it.
    var mayBeWrittenAgain: Bool { awaitsTypes || choosesPerDevice }

    /// The URLs of the images that failed among `results`.
    static func failedURLs(in results: [DownloadOutcome]) -> Set<String> {
        Set(results.lazy.filter { !$0.isCached }.map(\.url))
    }

    /// The images the devices show once those at `failedURLs` are known to have failed: each
    /// device whose image failed takes the one it would pick without it. Empty for a page not
    /// read for devices.
    func imagesInstead(of failedURLs: Set<String>) -> [ImageToFetch] {
        guard choosesPerDevice, !failedURLs.isEmpty else { return [] }
        let rendering = rewriter.render(scan, availability: .everyTypedImage(untypedNames: knownNames, failedURLs: failedURLs))
        return Self.images(of: rendering)
    }

    private static func images(of rendering: RewriteResult) -> [ImageToFetch] {
        // Room for every reference at once: grown as it filled, the set hashed its URLs again at
        // each doubling, on the way from the page to its first image request.
        var seen = Set<String>(minimumCapacity: rendering.references.count)
        return rendering.references.compactMap { reference -> ImageToFetch? in
            guard reference.rewritten || reference.disposition == .awaitingType, let url = reference.url,
                  seen.insert(url).inserted, let parsed = BrowserURL(url) else { return nil }
            return ImageToFetch(parsed, urlName: reference.nameSource == .url ? reference.localName : nil)
        }
    }

    /// Live mode's second rendering: the images named by their bytes now point into the cache too.
    /// Nil when none of them could be named (the first rendering stands).
    func namingTypedImages(from results: [DownloadOutcome]) -> RewriteResult? {
        if choosesPerDevice, case let failed = Self.failedURLs(in: results), !failed.isEmpty {
            // Devices whose image failed show another: the page changes whatever else does.
            return rewriter.render(scan, availability: .everyTypedImage(untypedNames: Self.names(of: results), failedURLs: failed))
        }
        guard awaitsTypes else { return nil }
        let named = Self.names(of: results)
        guard firstRewrite.references.contains(where: { $0.disposition == .awaitingType && $0.url.flatMap { named[$0] } != nil }) else {
            return nil
        }
        return rewriter.render(scan, availability: .everyTypedImage(untypedNames: named))
    }

    /// Build mode's rendering: only the images now in the cache point into it; failed ones keep
    /// their remote URL. The first rendering itself when every image is in.
    func keepingFailuresRemote(_ results: [DownloadOutcome]) -> RewriteResult {
        if !awaitsTypes, results.allSatisfy(\.isCached) { return firstRewrite }
        return rewriter.render(scan, availability: .onlyCached(Self.names(of: results)))
    }

    /// The cache name of every image that is in the cache, by URL.
    private static func names(of results: [DownloadOutcome]) -> [String: String] {
        Dictionary(results.compactMap { outcome in outcome.isCached ? outcome.localName.map { (outcome.url, $0) } : nil },
                   uniquingKeysWith: { first, _ in first })
    }
}
