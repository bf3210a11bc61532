import ImgCacheSupport
/// The copy of a page that libxml2 parses: same length and same ASCII structure as the page,
/// valid UTF-8 without NULs.
///
/// libxml2 is told the input is UTF-8 so that it never converts: converting a GBK page while
/// asking `xmlByteConsumed` for offsets is quadratic, and conversion errors would move offsets.
/// Bytes that are not valid UTF-8 (every non-ASCII byte of a legacy-encoded page) and NULs are
/// replaced by an ASCII byte that the tokenizer treats the same way: a name or text character.
/// Offsets in this buffer are offsets in the page.
final class ParseBuffer {
    /// The bytes libxml2 and the tag lexer read: the page itself when it is already valid,
    /// NUL-free UTF-8 (no copy), else a sanitised copy.
    let view: UnsafeBufferPointer<UInt8>
    private let copy: UnsafeMutableBufferPointer<UInt8>?

    var count: Int { view.count }

    /// - Parameter page: must stay valid for the life of this buffer.
    init(page: UnsafeBufferPointer<UInt8>, pageIsUTF8: Bool) {
        if pageIsUTF8, UTF8Validation.isValidWithoutNUL(page) {
            view = page
            copy = nil
            return
        }
        let bytes = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, page.count))
        if let base = page.baseAddress, page.count > 0 {
            bytes.baseAddress!.initialize(from: base, count: page.count)
        }
        if pageIsUTF8 {
            Self.replaceInvalidUTF8(bytes, count: page.count)
        } else {
            Self.replaceNonASCII(bytes, count: page.count)
        }
        copy = bytes
        view = UnsafeBufferPointer(rebasing: UnsafeBufferPointer(bytes)[0..<page.count])
    }

    deinit {
        copy?.deallocate()
    }

    // After `<` or `</` a letter would open a tag that a browser never sees, so use a space there.
    private static func stand(in buffer: UnsafeMutableBufferPointer<UInt8>, at i: Int) -> UInt8 {
        if i > 0, buffer[i - 1] == UInt8(ascii: "<") { return UInt8(ascii: " ") }
        if i > 1, buffer[i - 1] == UInt8(ascii: "/"), buffer[i - 2] == UInt8(ascii: "<") { return UInt8(ascii: " ") }
        return UInt8(ascii: "x")
    }

    private static func replaceNonASCII(_ buffer: UnsafeMutableBufferPointer<UInt8>, count: Int) {
        let raw = UnsafeRawPointer(buffer.baseAddress!)
        var i = 0
        while i < count {
            // Eight bytes at a time: a word of ASCII without a NUL (the markup of a legacy page)
            // is passed over whole; any other is replaced byte by byte, in order.
            let end = min(i + 8, count)
            if end - i == 8 {
                let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                if word.isASCIIWithoutNUL {
                    i = end
                    continue
                }
            }
            while i < end {
                let byte = buffer[i]
                if byte >= 0x80 || byte == 0 {
                    buffer[i] = stand(in: buffer, at: i)
                }
                i += 1
            }
        }
    }

    private static func replaceInvalidUTF8(_ buffer: UnsafeMutableBufferPointer<UInt8>, count: Int) {
        var i = 0
        while i < count {
            let byte = buffer[i]
            if byte >= 0x01 && byte < 0x80 {
                i += 1
                continue
            }
            if byte == 0 {
                buffer[i] = stand(in: buffer, at: i)
                i += 1
                continue
            }
            let length = validSequenceLength(buffer, at: i, count: count)
            if length > 0 {
                i += length
            } else {
                buffer[i] = stand(in: buffer, at: i)
                i += 1
            }
        }
    }

    /// Length of the well-formed UTF-8 sequence at `i`, or 0 (Unicode Table 3-7).
    private static func validSequenceLength(_ b: UnsafeMutableBufferPointer<UInt8>, at i: Int, count: Int) -> Int {
        let lead = b[i]
        func trail(_ k: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
            i + k < count && b[i + k] >= low && b[i + k] <= high
        }
        switch lead {
        case 0xC2...0xDF:
            return trail(1) ? 2 : 0
        case 0xE0:
            return trail(1, 0xA0) && trail(2) ? 3 : 0
        case 0xE1...0xEC, 0xEE...0xEF:
            return trail(1) && trail(2) ? 3 : 0
        case 0xED:
            return trail(1, 0x80, 0x9F) && trail(2) ? 3 : 0
        case 0xF0:
            return trail(1, 0x90) && trail(2) && trail(3) ? 4 : 0
        case 0xF1...0xF3:
            return trail(1) && trail(2) && trail(3) ? 4 : 0
        case 0xF4:
            return trail(1, 0x80, 0x8F) && trail(2) && trail(3) ? 4 : 0
        default:
            return 0
        }
    }
}
