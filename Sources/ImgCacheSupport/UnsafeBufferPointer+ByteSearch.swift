// `@inlinable`: the layers above call these in their scanning loops, from other modules, where a call that is
// not inlined (and a generic one not specialised) costs more than the work itself.
extension UnsafeBufferPointer<UInt8> {
    /// The offset of the first `byte` in `start..<end`, or `end` when there is none: eight bytes
    /// per step, since the text between tags, style sheets and attribute values (inline images,
    /// long `style`s and `srcset`s) run to megabytes.
    @inlinable package func firstOffset(of byte: UInt8, from start: Int, before end: Int) -> Int {
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

    /// The offset of the first `byte` or `other` in `start..<end`, or `end` when there is neither:
    /// as ``firstOffset(of:from:before:)``, for where a URL's path ends (`?` or `#`).
    @inlinable package func firstOffset(of byte: UInt8, or other: UInt8, from start: Int, before end: Int) -> Int {
        guard let base = baseAddress else { return end }
        let raw = UnsafeRawPointer(base)
        var p = start
        while p + 8 <= end {
            let word = raw.loadUnaligned(fromByteOffset: p, as: UInt64.self)
            if word.containsByte(byte) || word.containsByte(other) { break }
            p += 8
        }
        while p < end, base[p] != byte, base[p] != other { p += 1 }
        return p
    }

    /// Whether every byte is ASCII (below 0x80), eight at a time.
    @inlinable package var isASCII: Bool {
        guard let base = baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var p = 0
        while p + 8 <= count {
            guard raw.loadUnaligned(fromByteOffset: p, as: UInt64.self).isASCII else { return false }
            p += 8
        }
        return self[p...].allSatisfy { $0 < 0x80 }
    }
}
