/// A declaration of a document's encoding that was ignored or overruled.
public enum EncodingNotice: Sendable, Hashable, CustomStringConvertible {
    /// The transport declares UTF-16, but the page has no byte order mark and no zero bytes.
    case impossibleUTF16(label: String)
    /// The transport's label names no encoding.
    case unknownTransportLabel(String)
    /// The document's own declaration names no encoding.
    case unknownDeclaredLabel(String, DocumentKind)
    /// The declared encoding is contradicted by bytes that are valid UTF-8 with multi-byte
    /// characters: the document was read as UTF-8. `declared` is the label as written, with the
    /// encoding's name when they differ.
    case contradictedByUTF8(declared: String, byTransport: Bool)

    /// The sentence to show.
    public var description: String {
        switch self {
        case .impossibleUTF16(let label):
            "The transport declares \(label), but the page has no byte order mark and no zero bytes, so it cannot be UTF-16; the declaration was ignored."
        case .unknownTransportLabel(let label):
            "The transport declares the unknown encoding label \"\(label)\"; it was ignored."
        case .unknownDeclaredLabel(let label, let document):
            "The \(document.rawValue) declares the unknown encoding label \"\(label)\"; it was ignored."
        case .contradictedByUTF8(let declared, let byTransport):
            "\(byTransport ? "The transport declares" : "The page declares") \(declared), but its bytes are valid UTF-8 with multi-byte characters; it was read as UTF-8."
        }
    }
}
