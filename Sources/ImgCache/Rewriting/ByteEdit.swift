/// A replacement of a byte range of the page by bytes already escaped for where they go.
struct ByteEdit: Sendable {
    let range: Range<Int>
    let replacement: [UInt8]
}

/// Builds the output page: the input's bytes, with rewritten image URLs and other edits spliced in.
enum PageSplicer {
    /// - Parameters:
    ///   - references: in document order; the rewritten ones are replaced by their local path.
    ///   - edits: any other replacements (from `<base>` handling), in any order.
    /// An edit that overlaps an earlier one is dropped rather than corrupting the page.
    static func splice(_ bytes: UnsafeBufferPointer<UInt8>, references: [ImageReference], prefix: String,
                       edits: [ByteEdit]) -> [UInt8] {
        let sortedEdits = edits.sorted { $0.range.lowerBound < $1.range.lowerBound }
        let prefixBytes = Array(prefix.utf8)
        // The exact size, so that a large page is never copied into a doubled buffer.
        var size = bytes.count
        for reference in references where reference.rewritten {
            size += prefixBytes.count + (reference.localNameValue?.byteCount ?? 0) - reference.byteRange.count
        }
        for edit in sortedEdits { size += edit.replacement.count - edit.range.count }
        var out: [UInt8] = []
        out.reserveCapacity(max(size, bytes.count))
        var position = 0
        var nextEdit = 0

        func copy(upTo offset: Int) {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[position..<offset]))
        }
        func applyEdits(before offset: Int) {
            while nextEdit < sortedEdits.count, sortedEdits[nextEdit].range.lowerBound < offset {
                let edit = sortedEdits[nextEdit]
                nextEdit += 1
                guard edit.range.lowerBound >= position, edit.range.upperBound <= bytes.count else { continue }
                copy(upTo: edit.range.lowerBound)
                out += edit.replacement
                position = edit.range.upperBound
            }
        }

        for reference in references where reference.rewritten {
            let range = reference.byteRange
            applyEdits(before: range.lowerBound)
            guard range.lowerBound >= position, range.upperBound <= bytes.count, let name = reference.localNameValue else { continue }
            copy(upTo: range.lowerBound)
            // Prefix and name are inert in every context (see LocalReferenceStyle): no escaping.
            out += prefixBytes
            name.append(to: &out)
            position = range.upperBound
        }
        applyEdits(before: Int.max)
        copy(upTo: bytes.count)
        return out
    }
}
