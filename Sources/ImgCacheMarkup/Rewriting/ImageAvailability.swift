/// Which images a render points into the cache: the input of ``ImageRewriter/render(_:availability:)``.
package struct ImageAvailability: Sendable {
    /// The cache names of images whose URL names no format, by absolute URL (as the cache or
    /// their bytes named them). Those missing here stay ``ImageReference/Disposition/awaitingType``.
    package var untypedNames: [String: String]
    /// When set, only the images whose absolute URL (without its fragment) is in it are rewritten;
    /// the others keep their remote URL (``ImageReference/Disposition/notCached``). Nil rewrites
    /// every image, whose names follow from their URLs.
    package var cachedURLs: Set<String>?
    /// Images whose download failed, by absolute URL: never rewritten, whatever the rest says.
    /// A page read for devices then has each device choose among the others.
    package var failedURLs: Set<String>

    /// Creates an availability.
    package init(untypedNames: [String: String] = [:], cachedURLs: Set<String>? = nil, failedURLs: Set<String> = []) {
        self.untypedNames = untypedNames
        self.cachedURLs = cachedURLs
        self.failedURLs = failedURLs
    }

    /// Every image whose URL names a format but those that failed (live mode: pages point into
    /// the cache before the images are in), and those whose URL names none as `untypedNames` says.
    package static func everyTypedImage(untypedNames: [String: String] = [:], failedURLs: Set<String> = []) -> ImageAvailability {
        ImageAvailability(untypedNames: untypedNames, failedURLs: failedURLs)
    }

    /// Only the images in the cache, by URL, with their cache names (build mode: the output always works).
    package static func onlyCached(_ names: [String: String]) -> ImageAvailability {
        ImageAvailability(untypedNames: names, cachedURLs: Set(names.keys))
    }

    /// Whether the image at `url` (serialised, perhaps with a fragment) is to be rewritten.
    func isCached(_ url: String) -> Bool {
        guard cachedURLs != nil || !failedURLs.isEmpty else { return true }
        let key = Self.withoutFragment(url)
        return !failedURLs.contains(key) && cachedURLs?.contains(key) != false
    }

    /// Whether the image at `url` (serialised, perhaps with a fragment) is known to have failed.
    func hasFailed(_ url: String) -> Bool {
        !failedURLs.isEmpty && failedURLs.contains(Self.withoutFragment(url))
    }

    /// Downloads are by URL without its fragment; a URL without one is returned as it is, uncopied.
    private static func withoutFragment(_ url: String) -> String {
        guard let hash = url.utf8.firstIndex(of: UInt8(ascii: "#")) else { return url }
        return String(url[..<hash])
    }
}
