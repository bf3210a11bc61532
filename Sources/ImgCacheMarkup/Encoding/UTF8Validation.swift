import ImgCacheSupport
import ImgCacheURLs
/// Strict UTF-8 validation as the Encoding Standard's UTF-8 decoder sees it: overlong forms,
/// surrogates (ED A0–ED BF), code points above U+10FFFF and truncated sequences are all invalid.
///
/// Built to run over whole pages (100 MB and more): one pass, eight ASCII bytes per step.
enum UTF8Validation {
    /// Offset of the first byte of the first invalid or truncated sequence, or nil when `bytes`
    /// is entirely valid UTF-8.
    static func firstInvalidOffset(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        scan(bytes).firstInvalidOffset
    }

    /// True when `bytes` is entirely valid UTF-8 (the empty buffer and pure ASCII are valid).
    package static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        firstInvalidOffset(in: bytes) == nil
    }

    /// True when `bytes` is valid UTF-8 without a NUL: what libxml2 can parse as it stands. One
    /// pass, where a NUL search and a validation were two over every page.
    static func isValidWithoutNUL(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        let raw = UnsafeRawPointer(base)
        var i = 0
        while i < count {
            while i + 8 <= count {
                let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                guard word.isASCIIWithoutNUL else { break }
                i += 8
            }
            guard i < count else { break }
            let lead = base[i]
            if lead == 0 { return false }
            if lead < 0x80 {
                i += 1
                continue
            }
            let length = validSequenceLength(lead: lead, at: i, base: base, count: count)
            if length == 0 { return false }
            i += length
        }
        return true
    }

    /// What one pass over a buffer found; the sniffer needs more than validity to judge a page.
    struct Summary: Sendable {
        /// Offset of the first invalid sequence; the counts below cover only the bytes before it.
        var firstInvalidOffset: Int?
        /// Number of valid two-byte sequences.
        var twoByteSequences = 0
        /// Number of valid three- and four-byte sequences (U+0800 and up: CJK, kana, hangul, emoji).
        var longSequences = 0

        var hasMultiByteSequence: Bool { twoByteSequences + longSequences > 0 }
    }

    /// Validates `bytes`, stopping at the first invalid sequence.
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> Summary {
        var summary = Summary()
        guard let base = bytes.baseAddress else { return summary }
        let count = bytes.count
        let raw = UnsafeRawPointer(base)
        var i = 0
        while i < count {
            while i + 8 <= count, raw.loadUnaligned(fromByteOffset: i, as: UInt64.self).isASCII {
                i += 8
            }
            guard i < count else { break }
            let lead = base[i]
            if lead < 0x80 {
                i += 1
                continue
            }
            let length = validSequenceLength(lead: lead, at: i, base: base, count: count)
            switch length {
            case 0:
                summary.firstInvalidOffset = i
                return summary
            case 2:
                summary.twoByteSequences += 1
            default:
                summary.longSequences += 1
            }
            i += length
        }
        return summary
    }

    /// Length of the valid sequence starting with the non-ASCII `lead` at `i`, or 0 when invalid.
    @inline(__always)
    private static func validSequenceLength(lead: UInt8, at i: Int, base: UnsafePointer<UInt8>, count: Int) -> Int {
        let (length, low, high) = leadInfo(lead)
        guard length > 0, i + length <= count else { return 0 }
        let b1 = base[i + 1]
        guard b1 >= low, b1 <= high else { return 0 }
        if length >= 3, base[i + 2] & 0xC0 != 0x80 { return 0 }
        if length == 4, base[i + 3] & 0xC0 != 0x80 { return 0 }
        return length
    }

    /// Sequence length for a lead byte and the allowed range of the byte after it (the second byte
    /// is where overlongs, surrogates and values above U+10FFFF show); length 0 marks a byte that
    /// cannot start a sequence.
    @inline(__always)
    private static func leadInfo(_ lead: UInt8) -> (length: Int, low: UInt8, high: UInt8) {
        switch lead {
        case 0xC2...0xDF: (2, 0x80, 0xBF)
        case 0xE0: (3, 0xA0, 0xBF)
        case 0xED: (3, 0x80, 0x9F)
        case 0xE1...0xEF: (3, 0x80, 0xBF)
        case 0xF0: (4, 0x90, 0xBF)
        case 0xF1...0xF3: (4, 0x80, 0xBF)
        case 0xF4: (4, 0x80, 0x8F)
        default: (0, 0, 0)
        }
    }

    /// Decodes the character at `i`. An invalid sequence yields nil and the length of its
    /// "maximal subpart" (at least 1), which is how much one U+FFFD replaces in the Encoding Standard.
    static func decodeScalar(at i: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (scalar: Unicode.Scalar?, length: Int) {
        let count = bytes.count
        guard i >= 0, i < count else { return (nil, 1) }
        let lead = bytes[i]
        if lead < 0x80 { return (Unicode.Scalar(lead), 1) }
        let (length, low, high) = leadInfo(lead)
        guard length > 0 else { return (nil, 1) }
        var value = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
        for k in 1..<length {
            guard i + k < count else { return (nil, k) }
            let byte = bytes[i + k]
            let inRange = k == 1 ? (byte >= low && byte <= high) : (byte & 0xC0 == 0x80)
            guard inRange else { return (nil, k) }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        return (Unicode.Scalar(value), length)
    }

    /// Length of the valid sequence at `i`, or of its maximal invalid subpart; never 0.
    static func sequenceLength(at i: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        decodeScalar(at: i, in: bytes).length
    }
}
