package import ImgCacheURLs
/// An image a page asks for, with the cache name its URL gives it when the page's rewriter has
/// already made that name: ``ImageDownloader/fetchAll(_:)`` then neither hashes the URL again to
/// look it up nor to store it.
package struct ImageToFetch: Sendable {
    package let url: BrowserURL
    /// The store's naming of `url` (its `LocalImageNaming/localName(for:)`), made with that same
    /// naming; nil when not known, and for a URL named by its bytes.
    package let urlName: String?

    package init(_ url: BrowserURL, urlName: String? = nil) {
        self.url = url
        self.urlName = urlName
    }
}
