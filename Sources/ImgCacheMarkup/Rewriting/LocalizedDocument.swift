/// What kind of file the rewriter reads.
package enum LocalizedDocument: Sendable, Equatable {
    /// An HTML page.
    case page
    /// A stylesheet (`.css`); `referringEncoding` is the encoding of a page that links it, for a
    /// file with neither a byte order mark nor `@charset`.
    case stylesheet(referringEncoding: HTMLEncoding?)
}
