import ImgCacheSupport
import ImgCacheURLs
/// Recognises the `data:` URLs that the URL parser would give back unchanged, without running it.
///
/// Pages inline images as `data:` URLs of up to hundreds of KB, which are never localised but
/// are reported with their serialised URL. For `data:` followed by anything but `/`, the parser
/// keeps an opaque path, which only percent-encodes C0 controls and non-ASCII; the check below
/// also leaves out space (trimmed or encoded by place), `?` and `#` (a query and a fragment have
/// their own encode sets), so for what it accepts the serialisation is the text itself.
enum VerbatimDataURL {
    /// True when `text` is `data:` (lowercase) and an opaque path of printable ASCII other than
    /// `?` and `#`, starting with something other than `/`.
    static func matches(_ text: String) -> Bool {
        // Asked of every URL of a page, nearly all of which start otherwise: they stop at their
        // first byte, before their bytes are taken.
        guard text.utf8.first == UInt8(ascii: "d") else { return false }
        return text.withUTF8Bytes { bytes in
            // `data:` compared in place: a static array of it cost a `swift_once` and a retain for
            // every URL of a page, which shows on pages dense in `srcset`.
            guard bytes.count > 5, bytes[0] == UInt8(ascii: "d"), bytes[1] == UInt8(ascii: "a"),
                  bytes[2] == UInt8(ascii: "t"), bytes[3] == UInt8(ascii: "a"), bytes[4] == UInt8(ascii: ":"),
                  bytes[5] != UInt8(ascii: "/") else { return false }
            // Eight bytes per step: inline images run to hundreds of KB.
            var i = 5
            let raw = UnsafeRawPointer(bytes.baseAddress!)
            while i + 8 <= bytes.count {
                let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                if !word.isASCII || word.containsByte(below: 0x21) || word.containsByte(0x7F)
                    || word.containsByte(UInt8(ascii: "?")) || word.containsByte(UInt8(ascii: "#")) { return false }
                i += 8
            }
            while i < bytes.count {
                if !isOpaquePathByte(bytes[i]) { return false }
                i += 1
            }
            return true
        }
    }

    private static func isOpaquePathByte(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "?") && byte != UInt8(ascii: "#")
    }
}
