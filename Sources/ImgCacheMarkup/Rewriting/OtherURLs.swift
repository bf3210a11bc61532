/// What becomes of a page's URLs that are not images: stylesheets, scripts, links, forms, frames,
/// media, a `<meta http-equiv=refresh>`'s URL, and the fonts and imports of its `<style>` blocks
/// and `style` attributes.
///
/// A page written away from where it was loaded from (fetched from `https://example.com/blog/p.html`
/// and opened from disk) would resolve `css/site.css` or `/js/app.js` against its new folder and
/// load with no styles or scripts, its links dead. Made absolute against the page's base, as
/// `wget -k` does, they still reach the server; image URLs become local paths either way. A link
/// to a place in the page itself (`post.html#comments` in post.html) becomes its fragment alone
/// (`#comments`), so that it stays in the copy.
public enum OtherURLs: Sendable, Hashable {
    /// Absolute for a page written away from its origin: one loaded from its URL, or given to a
    /// ``LocalizationSession`` or an ``OfflinePageLoader`` with its URL. As written for files read
    /// from disk (a site folder's assets are copied beside its pages) and for ``ImageRewriter``
    /// used on its own.
    case automatic
    /// Every relative URL that is not an image made absolute against the page's base. References
    /// within the page (`#section`, an empty `href`) stay as they are.
    case absolute
    /// Left as the page wrote them. A page's `<base href>` is still emptied when images are
    /// rewritten, and the URLs it steered are still made absolute, so that they keep pointing
    /// where they pointed.
    case asWritten

    /// Whether URLs become absolute for a page that `isAwayFromOrigin`.
    package func makesAbsolute(awayFromOrigin isAwayFromOrigin: Bool) -> Bool {
        switch self {
        case .automatic: isAwayFromOrigin
        case .absolute: true
        case .asWritten: false
        }
    }
}
