/// An element libxml2 has just opened, with what is known about where it stands.
struct ElementStart {
    /// Lowercased element name, as libxml2 reports it.
    let name: String
    /// The enclosing element's name, if any.
    let parentName: String?
    /// True inside `<svg>`: `image` there is SVG's, not the HTML parser's alias of `img`.
    let inSVG: Bool
    /// True where a browser would see text, not markup (inside `textarea`, `title`, `iframe`,
    /// `xmp`, `noembed`, `noframes`, or after `plaintext`), although libxml2 reports elements.
    let isInert: Bool
    /// What the element's name and the attribute names libxml2 saw mean to the handler (never
    /// empty): enough to decide whether the raw tag is worth lexing.
    let interest: ScanInterest
}
