/// An element libxml2 has just opened, with what is known about where it stands.
struct ElementStart {
    /// Lowercased element name, as libxml2 reports it.
    let name: String
    /// A small number standing for `name` in this scan, for per-name caches.
    let nameID: Int
    /// The enclosing element's name, if any.
    let parentName: String?
    /// True inside `<svg>`: `image` there is SVG's, not the HTML parser's alias of `img`.
    let inSVG: Bool
    /// True where a browser would see text, not markup (inside `textarea`, `title`, `iframe`,
    /// `xmp`, `noembed`, `noframes`, or after `plaintext`), although libxml2 reports elements.
    let isInert: Bool
    /// Interned ids of the attribute names libxml2 saw (see `HTMLScanner.attributeName(_:)`):
    /// enough to decide whether the raw tag is worth lexing. Valid during the callback only.
    let attributeNameIDs: ArraySlice<Int>
}

