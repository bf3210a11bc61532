import ImgCacheSupport
import ImgCacheURLs
/// The first reference of a page made from each URL text, found by the text: how the rewriter
/// resolves a text once however many slots repeat it (a srcset and its fallback `src`, a sprite).
///
/// A `Dictionary<String, Int>` was costly on pages dense in `srcset`, where nearly every
/// text is new: it hashed each whole text with SipHash and kept a copy of each, released at the
/// end. This table keeps only indices into the references, placed by an XXH64 of the text. A
/// search looks at a bounded number of places, so texts that collide (a hostile page can be made
/// of them) are only resolved again: slower for that page, never wrong and never quadratic.
struct URLTextIndex {
    private static let empty: Int32 = -1
    private static let removed: Int32 = -2
    /// Places looked at for one text before it is taken as not there (or not placed).
    private static let maxProbes = 16

    /// Reference indices, `empty` or `removed`.
    private var places: [Int32]
    /// The upper half of each placed text's hash: most places that are not the text are told
    /// by it without reading the text.
    private var tags: [UInt32]
    private let mask: Int

    /// A table for up to `count` texts, at most half full.
    init(count: Int) {
        var size = 16
        while size < 2 * count { size *= 2 }
        places = Array(repeating: Self.empty, count: size)
        tags = Array(repeating: 0, count: size)
        mask = size - 1
    }

    /// The hash a text is placed by.
    static func hash(_ text: String) -> UInt64 {
        text.utf8.withContiguousStorageIfAvailable { XXH64.hash(UnsafeRawBufferPointer($0)) }
            ?? XXH64.hash(Array(text.utf8))
    }

    /// The index placed for `text` (whose hash is `hash`); if none, places `index` for it and
    /// returns nil. `textOf` gives the text of a placed index.
    mutating func earlierIndex(of text: String, hash: UInt64, placing index: Int, textOf: (Int) -> String) -> Int? {
        let search = find(text, hash: hash, textOf: textOf)
        if let found = search.index { return found }
        if let free = search.freePlace, let stored = Int32(exactly: index) {
            places[free] = stored
            tags[free] = UInt32(truncatingIfNeeded: hash >> 32)
        }
        return nil
    }

    /// Takes `index` out (placed for a text whose hash is `hash`), so that the text is resolved
    /// again where it recurs.
    mutating func remove(_ index: Int, hash: UInt64) {
        var place = Int(truncatingIfNeeded: hash) & mask
        for _ in 0..<Self.maxProbes {
            let placed = places[place]
            if placed == Self.empty { return }
            if Int(placed) == index {
                places[place] = Self.removed
                return
            }
            place = (place + 1) & mask
        }
    }

    /// The index placed for `text`, if any.
    func index(of text: String, hash: UInt64, textOf: (Int) -> String) -> Int? {
        find(text, hash: hash, textOf: textOf).index
    }

    /// The places `text` may be at: its index if placed, else the first place it could go
    /// (nil when every place looked at is taken).
    private func find(_ text: String, hash: UInt64, textOf: (Int) -> String) -> (index: Int?, freePlace: Int?) {
        let tag = UInt32(truncatingIfNeeded: hash >> 32)
        var place = Int(truncatingIfNeeded: hash) & mask
        var free: Int?
        for _ in 0..<Self.maxProbes {
            let placed = places[place]
            if placed == Self.empty { return (nil, free ?? place) }
            if placed == Self.removed {
                if free == nil { free = place }
            } else if tags[place] == tag, textOf(Int(placed)) == text {
                return (Int(placed), nil)
            }
            place = (place + 1) & mask
        }
        return (nil, free)
    }
}
