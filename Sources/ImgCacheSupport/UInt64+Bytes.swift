// `@inlinable`: the layers above call these eight bytes at a time in their scanning loops, from other modules, where a call that is
// not inlined (and a generic one not specialised) costs more than the work itself.
/// Eight bytes of text looked at at once: how the scans over whole pages and style sheets skip
/// what they are not looking for.
extension UInt64 {
    /// Whether some byte of the word is `byte`. (Subtracting 1 from each byte borrows into its top
    /// bit exactly where the byte was zero; `& ~word` drops the bytes whose top bit was set anyway.)
    @inlinable @inline(__always)
    package func containsByte(_ byte: UInt8) -> Bool {
        let matched = self ^ (0x0101_0101_0101_0101 &* UInt64(byte))
        return (matched &- 0x0101_0101_0101_0101) & ~matched & 0x8080_8080_8080_8080 != 0
    }

    /// Whether some byte of the word is below `bound`, which is at most 128. (The same borrow as
    /// ``containsByte(_:)``, from subtracting `bound` from each byte.)
    @inlinable @inline(__always)
    package func containsByte(below bound: UInt8) -> Bool {
        (self &- 0x0101_0101_0101_0101 &* UInt64(bound)) & ~self & 0x8080_8080_8080_8080 != 0
    }

    /// Whether every byte of the word is ASCII (below 0x80).
    @inlinable @inline(__always)
    package var isASCII: Bool { self & 0x8080_8080_8080_8080 == 0 }

    /// Whether every byte of the word is ASCII and none is 0, in one test: a non-ASCII byte has its
    /// top bit set, and among ASCII bytes only a zero borrows into its own (``containsByte(_:)``).
    @inlinable @inline(__always)
    package var isASCIIWithoutNUL: Bool {
        (self | (self &- 0x0101_0101_0101_0101) & ~self) & 0x8080_8080_8080_8080 == 0
    }
}
