/// How a rewritten page refers to a cached image.
public enum LocalReferenceStyle: Sendable, Hashable {
    /// A path relative to the page's folder: the cache folder as seen from the page (for example
    /// `images` or `../cache`), then the image's local name.
    case relativePath(String)
    /// A fixed prefix followed by the local name: an app's custom scheme (`imgcache://`) or an
    /// absolute `file://` folder URL ending in `/`.
    case urlPrefix(String)

    /// The text written into the page for `localName`, percent-encoded so it is inert in every
    /// context it can land in (attribute values, unquoted attributes, CSS strings and `url()`,
    /// `srcset`): no whitespace, quotes, parentheses, backslashes, commas, `&`, `<` or `>`.
    package func reference(to localName: String) -> String {
        prefix + Self.inert(localName)
    }

    /// What goes before a local name: the folder and a slash, or the URL prefix, made inert.
    package var prefix: String {
        switch self {
        case .relativePath(let folder):
            let trimmed = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
            if trimmed.isEmpty || trimmed == "." { return "" }
            return Self.inert(trimmed) + "/"
        case .urlPrefix(let prefix):
            return Self.inert(prefix)
        }
    }

    /// Percent-encodes everything outside a conservative URL alphabet; keeps existing `%XX`.
    static func inert(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        let hex = Array("0123456789ABCDEF".utf8)
        func isHex(_ b: UInt8) -> Bool {
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66)
        }
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            let isAlphaNumeric = (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
            let isSafe = isAlphaNumeric || "-._~/:@!$+;=?#".utf8.contains(b)
            if isSafe {
                out.append(b)
            } else if b == UInt8(ascii: "%"), i + 2 < bytes.count, isHex(bytes[i + 1]), isHex(bytes[i + 2]) {
                out.append(b)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 0x0F)]]
            }
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
