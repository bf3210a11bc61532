// `@inlinable`: the layers above call these per byte, from other modules, where a call that is
// not inlined (and a generic one not specialised) costs more than the work itself.
extension UInt8 {
    /// The byte with an ASCII capital letter folded to lower case, any other byte as it is: how
    /// HTML names, HTTP header names, URL schemes and hosts compare, byte by byte.
    @inlinable package var asciiLowercased: UInt8 {
        self >= 0x41 && self <= 0x5A ? self | 0x20 : self
    }

    /// Whether the byte is ASCII whitespace as HTML and URLs define it: tab, LF, FF, CR, space.
    @inlinable package var isASCIIWhitespace: Bool {
        self == 0x20 || self == 0x09 || self == 0x0A || self == 0x0C || self == 0x0D
    }

    /// Whether the byte is an ASCII letter, of either case.
    @inlinable package var isASCIILetter: Bool {
        (self | 0x20) >= 0x61 && (self | 0x20) <= 0x7A
    }
}

extension Unicode.Scalar {
    /// Whether the scalar is ASCII whitespace as HTML defines it: tab, LF, FF, CR, space.
    @inlinable package var isASCIIWhitespace: Bool {
        value < 0x80 && UInt8(truncatingIfNeeded: value).isASCIIWhitespace
    }
}

extension String {
    /// The string without ASCII whitespace at either end (an encoding label as a page wrote it).
    /// Read as bytes (an ASCII byte is never part of a longer UTF-8 sequence): through the
    /// generic scalar views, its first use in a run cost more than the prescan of a page.
    @inlinable package var trimmingASCIIWhitespace: String {
        withUTF8Bytes { bytes in
            var start = 0, end = bytes.count
            while start < end, bytes[start].isASCIIWhitespace { start += 1 }
            while end > start, bytes[end - 1].isASCIIWhitespace { end -= 1 }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }
    }
}
