internal import CLibXML2

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
    /// The attributes as libxml2 decoded them: enough to decide whether the raw tag is worth lexing.
    let attributes: LibXMLAttributes
}

/// A borrowed view of libxml2's `name, value, name, value, …, NULL` attribute array.
struct LibXMLAttributes {
    fileprivate let pointer: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?

    init(_ pointer: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) {
        self.pointer = pointer
    }

    var isEmpty: Bool { pointer?[0] == nil }

    /// Whether any attribute name satisfies `predicate`; names are lowercase, NUL-free byte views.
    func containsName(where predicate: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        guard let pointer else { return false }
        var i = 0
        while let name = pointer[i] {
            let buffer = UnsafeBufferPointer(start: name, count: strlen(name))
            if predicate(buffer) { return true }
            i += 2
        }
        return false
    }
}

private func strlen(_ pointer: UnsafePointer<xmlChar>) -> Int {
    var n = 0
    while pointer[n] != 0 { n += 1 }
    return n
}
