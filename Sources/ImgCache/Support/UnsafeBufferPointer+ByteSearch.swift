extension UnsafeBufferPointer<UInt8> {
    /// The offset of the first `byte` in `start..<end`, or `end` when there is none: eight bytes
    /// per step, since the text between tags, style sheets and attribute values (inline images,
    /// long `style`s and `srcset`s) run to megabytes.
    func firstOffset(of byte: UInt8, from start: Int, before end: Int) -> Int {
        guard let base = baseAddress else { return end }
        let raw = UnsafeRawPointer(base)
        var p = start
        while p + 8 <= end {
            if raw.loadUnaligned(fromByteOffset: p, as: UInt64.self).containsByte(byte) { break }
            p += 8
        }
        while p < end, base[p] != byte { p += 1 }
        return p
    }
}
