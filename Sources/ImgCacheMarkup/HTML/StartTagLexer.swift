import ImgCacheSupport
/// Lexes a start tag from raw bytes following the HTML Standard's tokenizer states
/// (tag name, attribute name, before/after attribute value, quoted and unquoted values, self-closing).
///
/// libxml2 tells us that a tag exists and where its `>` is; only the raw bytes say where each
/// attribute value starts and ends, which is what splicing needs.
enum StartTagLexer {
    /// Lexes the tag whose `<` is at `start`.
    /// - Parameter limit: the lexer gives up once it passes this offset, which bounds the work per candidate.
    /// - Returns: the tag, or nil when `start` does not open a start tag or the tag does not end by `limit`.
    static func lex(at start: Int, in bytes: UnsafeBufferPointer<UInt8>, limit: Int) -> StartTag? {
        let end = min(bytes.count, limit + 1)
        guard start + 1 < end, bytes[start] == UInt8(ascii: "<"), bytes[start + 1].isASCIILetter else { return nil }
        var i = start + 1
        let nameStart = i
        while i < end {
            let byte = bytes[i]
            if byte.isASCIIWhitespace || byte == UInt8(ascii: "/") || byte == UInt8(ascii: ">") { break }
            i += 1
        }
        guard i < end else { return nil }
        let nameRange = nameStart..<i
        var attributes: [TagAttribute] = []
        // Tags that are lexed hold attributes (that is why they are looked at): one allocation
        // for most, where growing from empty took four.
        attributes.reserveCapacity(8)

        // State: before attribute name (also reached after `/` that is not followed by `>`).
        while i < end {
            let byte = bytes[i]
            if byte.isASCIIWhitespace || byte == UInt8(ascii: "/") {
                i += 1
                continue
            }
            if byte == UInt8(ascii: ">") {
                return StartTag(start: start, end: i, nameRange: nameRange, attributes: attributes)
            }
            // Attribute name: a leading `=` belongs to the name.
            let attributeNameStart = i
            i += 1
            while i < end {
                let c = bytes[i]
                if c.isASCIIWhitespace || c == UInt8(ascii: "/") || c == UInt8(ascii: ">") || c == UInt8(ascii: "=") { break }
                i += 1
            }
            let attributeNameRange = attributeNameStart..<i
            // After attribute name.
            while i < end, bytes[i].isASCIIWhitespace { i += 1 }
            guard i < end else { return nil }
            guard bytes[i] == UInt8(ascii: "=") else {
                attributes.append(TagAttribute(nameRange: attributeNameRange, valueRange: nil, quote: nil))
                continue
            }
            i += 1
            // Before attribute value.
            while i < end, bytes[i].isASCIIWhitespace { i += 1 }
            guard i < end else { return nil }
            let first = bytes[i]
            if first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") {
                let valueStart = i + 1
                let j = bytes.firstOffset(of: first, from: valueStart, before: end)
                guard j < end else { return nil }
                attributes.append(TagAttribute(nameRange: attributeNameRange, valueRange: valueStart..<j, quote: first))
                i = j + 1
                // After a quoted value anything but whitespace, `/` or `>` starts the next attribute.
            } else if first == UInt8(ascii: ">") {
                attributes.append(TagAttribute(nameRange: attributeNameRange, valueRange: i..<i, quote: nil))
            } else {
                let valueStart = i
                while i < end {
                    let c = bytes[i]
                    if c.isASCIIWhitespace || c == UInt8(ascii: ">") { break }
                    i += 1
                }
                attributes.append(TagAttribute(nameRange: attributeNameRange, valueRange: valueStart..<i, quote: nil))
            }
        }
        return nil
    }
}
