import ImgCacheURLs
/// The image a browser shows for an `<img>`: which element's candidates it took (a `<source>` of
/// its `<picture>`, or the `<img>` itself) and which candidate, so that a rewriter can keep the
/// candidates some device shows and drop the rest.
struct ImageChoice: Hashable, Sendable {
    /// The element whose attributes supplied the image.
    enum Element: Hashable, Sendable {
        /// The `<source>` at this index of ``ResponsiveImage/sources``.
        case source(Int)
        /// The `<img>`.
        case img
    }

    /// The attribute the URL came from.
    package enum Origin: Hashable, Sendable {
        /// A candidate of the element's `srcset`; the URL's scalars in that attribute.
        case srcset(urlRange: Range<Int>)
        /// The `<img>`'s `src`, taken as a `1x` candidate.
        case src
    }

    var element: Element
    /// The URL as written, not resolved.
    var url: String
    var origin: Origin
    /// The candidate's density once `sizes` turned widths into densities, in image pixels per CSS
    /// pixel, rounded to a `Float` as browsers hold it.
    var density: Double
}
