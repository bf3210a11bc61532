/// One attribute of a start tag as it stands in the raw page: where its name and value are.
struct TagAttribute: Sendable {
    /// Byte range of the attribute name in the page.
    let nameRange: Range<Int>
    /// Byte range of the value, without its quotes; nil for an attribute written without `=`.
    let valueRange: Range<Int>?
    /// The quote byte (`"` or `'`) around the value, or nil when unquoted or absent.
    let quote: UInt8?
}

/// A start tag located in the raw page bytes, lexed the way the HTML tokenizer does.
struct StartTag: Sendable {
    /// Offset of the `<`.
    let start: Int
    /// Offset of the closing `>`.
    let end: Int
    /// Byte range of the tag name.
    let nameRange: Range<Int>
    /// Every attribute in source order, duplicates included (the first one wins, as in browsers).
    let attributes: [TagAttribute]
}

/// Enough to find a start tag again after the scan: its name, where the search for it starts,
/// and the offset of its `>` that libxml2 reported.
struct PendingTag: Sendable {
    let name: String
    let searchStart: Int
    let end: Int
}
