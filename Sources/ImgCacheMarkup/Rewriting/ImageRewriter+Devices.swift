import ImgCacheSupport
/// Reading a page for devices (``RewriteOptions/devices``): the candidate each device shows of
/// each responsive image, and the edits that leave only those, so that no device can pick an
/// image that is not there offline.
extension ImageRewriter {
    /// Sets ``ImageReference/shownOn`` on each candidate of `images`: the devices whose browser
    /// picks it among the candidates `isUsable` accepts (the others count as dropped from the
    /// page, as they will be). A choice names its candidate by the attribute it is in and its URL
    /// as written.
    static func markChoices(of images: [ResponsiveImageSpan], for devices: [DeviceProfile], in references: inout [ImageReference],
                            isUsable: (ImageReference) -> Bool) {
        for span in images {
            var usable: Set<String> = []
            for range in span.valueRanges {
                for index in references.indices(startingIn: range) {
                    references[index].shownOn = []
                    if isUsable(references[index]) { usable.insert(references[index].original) }
                }
            }
            for device in devices {
                guard let choice = span.image.choice(for: device, isUsable: usable.contains), let range = span.valueRange(of: choice),
                      let index = references.indices(startingIn: range).first(where: { references[$0].original == choice.url })
                else { continue }
                references[index].shownOn?.append(device.description)
            }
        }
    }

    /// Whether a reference's image is there offline, as the rendering being made will spell it:
    /// a local image, an inline `data:` image or a file of the site itself. An image still to be
    /// named by its bytes counts while its download may yet come in (`pending`).
    static func isThereOffline(_ reference: ImageReference, pending: Bool) -> Bool {
        switch reference.disposition {
        case .rewritten, .skipped(.siteFile): true
        case .awaitingType: pending
        case .skipped(.notHTTP): reference.url?.hasPrefix("data:") == true  // serialised: the scheme in lower case
        default: false
        }
    }

    /// The edits that keep, in each image some device shows, only what the devices show:
    /// - every `srcset` (of the `<img>` and of its `<source>`s) loses the candidates no device
    ///   picks, with their descriptors and commas, and a `srcset` left with none is emptied, which
    ///   makes its `<source>` inert (browsers skip a source without candidates);
    /// - a `src` no device shows refers to an image a device shows instead (browsers use it as
    ///   the `1x` candidate when no other is, and so would reach the network for it).
    ///
    /// The references dropped or replaced become ``ImageReference/Disposition/notShown``; images
    /// no device has a choice for are left as they are.
    /// - Returns: the edits, and whether one of them spells a local path.
    static func keepingShownCandidates(of images: [ResponsiveImageSpan], in references: inout [ImageReference],
                                       page: [UInt8], prefix: String) -> (edits: [ByteEdit], spellsLocalPaths: Bool) {
        var edits: [ByteEdit] = []
        var spellsLocalPaths = false
        for span in images {
            func isShown(_ index: Int) -> Bool { references[index].shownOn?.isEmpty == false }
            guard span.valueRanges.contains(where: { references.indices(startingIn: $0).contains(where: isShown) }) else { continue }
            // Kept in the `<img>`'s own `srcset` first: the image put in a `src` no device shows.
            var kept: [Int] = []
            for range in [span.srcset].compactMap({ $0 }) + span.sourceSrcsets.compactMap({ $0 }) {
                let candidates = references.indices(startingIn: range)
                let shown = candidates.filter(isShown)
                for index in candidates where !isShown(index) && references[index].wantsImage {
                    references[index].disposition = .notShown
                }
                edits += pruningEdits(of: range, candidates: candidates.map { references[$0].byteRange },
                                      keeping: shown.map { $0 - candidates.lowerBound }, in: page)
                kept += shown
            }
            guard let srcRange = span.src, let src = references.indices(startingIn: srcRange).first,
                  !isShown(src), references[src].wantsImage,
                  !kept.contains(where: { references[$0].url == references[src].url })
            else { continue }
            // Kept as it is (and fetched) when no kept image is local: the devices show an inline
            // placeholder, say. Nor is it fetched when the image to put there is still to be
            // named by its bytes: a later rendering puts it there.
            guard let substitute = kept.first(where: { references[$0].rewritten }),
                  let name = references[substitute].localNameValue
            else {
                if kept.contains(where: { references[$0].disposition == .awaitingType }) { references[src].disposition = .notShown }
                continue
            }
            var path = Array(prefix.utf8)
            name.append(to: &path)
            references[src].disposition = .notShown
            edits.append(ByteEdit(range: references[src].byteRange, replacement: path))
            spellsLocalPaths = true
        }
        return (edits, spellsLocalPaths)
    }

    /// The edits that leave, of the `srcset` value at `value` whose candidates' URLs are at
    /// `candidates`, only the candidates at the positions `kept` (ascending): each keeps its URL and
    /// descriptors as written, and those brought together are joined by `", "`.
    static func pruningEdits(of value: Range<Int>, candidates: [Range<Int>], keeping kept: [Int], in page: [UInt8]) -> [ByteEdit] {
        guard kept.count < candidates.count else { return [] }
        guard let first = kept.first, let last = kept.last else { return [ByteEdit(range: value, replacement: [])] }
        // A kept candidate is valid: its descriptors are plain tokens that end at the next comma.
        func descriptorsEnd(of position: Int) -> Int {
            let urlEnd = candidates[position].upperBound
            let limit = position + 1 < candidates.count ? candidates[position + 1].lowerBound : value.upperBound
            var end = page[urlEnd..<limit].firstIndex(of: UInt8(ascii: ",")) ?? limit
            while end > urlEnd, page[end - 1].isASCIIWhitespace { end -= 1 }
            return end
        }
        var edits: [ByteEdit] = []
        if first > 0 { edits.append(ByteEdit(range: value.lowerBound..<candidates[first].lowerBound, replacement: [])) }
        for (previous, next) in zip(kept, kept.dropFirst()) where next != previous + 1 {
            edits.append(ByteEdit(range: descriptorsEnd(of: previous)..<candidates[next].lowerBound, replacement: Array(", ".utf8)))
        }
        if last < candidates.count - 1 { edits.append(ByteEdit(range: descriptorsEnd(of: last)..<value.upperBound, replacement: [])) }
        return edits
    }
}

extension [ImageReference] {
    /// The positions of the references whose URL starts in `range`, found by binary search: the
    /// references are in document order.
    func indices(startingIn range: Range<Int>) -> Range<Int> {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if self[middle].byteRange.lowerBound < range.lowerBound { low = middle + 1 } else { high = middle }
        }
        var end = low
        while end < count, self[end].byteRange.lowerBound < range.upperBound { end += 1 }
        return low..<end
    }
}
