/// A replacement of a byte range of the page.
struct ByteEdit: Sendable {
    let range: Range<Int>
    let replacement: [UInt8]

    /// Applies non-overlapping edits to `bytes`; every byte outside the edited ranges is copied as is.
    /// An edit that overlaps an earlier one is dropped rather than corrupting the page.
    static func apply(_ edits: [ByteEdit], to bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        let sorted = edits.sorted { $0.range.lowerBound < $1.range.lowerBound }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + sorted.reduce(0) { $0 + max(0, $1.replacement.count - $1.range.count) })
        var position = 0
        for edit in sorted where edit.range.lowerBound >= position && edit.range.upperBound <= bytes.count {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[position..<edit.range.lowerBound]))
            out.append(contentsOf: edit.replacement)
            position = edit.range.upperBound
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[position..<bytes.count]))
        return out
    }
}
