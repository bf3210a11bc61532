/// A ``ResponsiveImage`` where a page spells it: the byte ranges of its attribute values, to find
/// the reference a choice names.
package struct ResponsiveImageSpan: Sendable {
    let image: ResponsiveImage
    /// The value of each source's `srcset`, in order (nil for a source without one).
    let sourceSrcsets: [Range<Int>?]
    /// The value of the `<img>`'s `srcset`.
    let srcset: Range<Int>?
    /// The value of the `<img>`'s `src`.
    let src: Range<Int>?

    /// Every attribute value a candidate of this image is in.
    var valueRanges: [Range<Int>] {
        sourceSrcsets.compactMap { $0 } + [srcset, src].compactMap { $0 }
    }

    /// The attribute value the chosen candidate is in.
    func valueRange(of choice: ImageChoice) -> Range<Int>? {
        switch (choice.element, choice.origin) {
        case (.source(let index), _): sourceSrcsets[index]
        case (.img, .src): src
        case (.img, .srcset): srcset
        }
    }
}
