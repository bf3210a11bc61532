/// Escapes a URL for the place in the page it replaces another one.
enum ReplacementEscaper {
    private static let hex = Array("0123456789ABCDEF".utf8)

    static func escape(_ url: String, for context: SlotContext) -> [UInt8] {
        var bytes = Array(url.utf8)
        switch context {
        case .attribute(let quote):
            bytes = percentEncodeTrailingCommas(bytes)
            return escapeForAttribute(bytes, quoted: quote != nil)
        case .cssInAttribute(let quote):
            return escapeForAttribute(escapeForCSS(bytes), quoted: quote != nil)
        case .cssInElement:
            return escapeForCSS(bytes)
        }
    }

    /// In a `srcset`, trailing commas would be read as separators.
    private static func percentEncodeTrailingCommas(_ bytes: [UInt8]) -> [UInt8] {
        var end = bytes.count
        while end > 0, bytes[end - 1] == UInt8(ascii: ",") { end -= 1 }
        guard end < bytes.count else { return bytes }
        return Array(bytes[..<end]) + Array(repeating: Array("%2C".utf8), count: bytes.count - end).flatMap { $0 }
    }

    /// Characters that end or break a CSS string or unquoted `url()` (and `<`, which could start
    /// `</style`) become percent-escapes, which mean the same to a URL parser.
    private static func escapeForCSS(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        for b in bytes {
            switch b {
            case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "\\"),
                 UInt8(ascii: "<"), UInt8(ascii: ">"), 0x20, 0x09, 0x0A, 0x0C, 0x0D:
                out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 0x0F)]]
            default:
                out.append(b)
            }
        }
        return out
    }

    /// Character references for what would end or confuse an attribute value.
    private static func escapeForAttribute(_ bytes: [UInt8], quoted: Bool) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        for b in bytes {
            switch b {
            case UInt8(ascii: "&"): out += Array("&amp;".utf8)
            case UInt8(ascii: "\""): out += Array("&quot;".utf8)
            case UInt8(ascii: "'"): out += Array("&#39;".utf8)
            case UInt8(ascii: "<"): out += Array("&lt;".utf8)
            case UInt8(ascii: ">"): out += Array("&gt;".utf8)
            case UInt8(ascii: "`") where !quoted: out += Array("&#96;".utf8)
            case UInt8(ascii: "=") where !quoted: out += Array("&#61;".utf8)
            case 0x20, 0x09, 0x0A, 0x0C, 0x0D:
                out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 0x0F)]]
            default: out.append(b)
            }
        }
        return out
    }
}
