/// How the page's encoding was determined.
public enum EncodingSource: String, Sendable {
    /// A UTF-8 or UTF-16 byte order mark at the start of the page.
    case byteOrderMark
    /// The caller's label, typically the charset parameter of the HTTP Content-Type.
    case transport
    /// A declaration inside the page found by the prescan: a meta tag (or, failing that, an XML
    /// declaration or a UTF-16 "<?x" prefix).
    case metaDeclaration
    /// The bytes are valid UTF-8 with non-ASCII characters, and nothing (trustworthy) said otherwise.
    case utf8Detection
    /// Nothing declared the encoding and the bytes are not UTF-8 with non-ASCII: windows-1252.
    case defaultEncoding
    /// A stylesheet's `@charset "…";` rule at its very start.
    case charsetRule
    /// A stylesheet without BOM or `@charset`: the encoding of the page that links it.
    case referringDocument
    /// A stylesheet without BOM, `@charset` or linking page: UTF-8, as CSS says.
    case cssDefault
}
