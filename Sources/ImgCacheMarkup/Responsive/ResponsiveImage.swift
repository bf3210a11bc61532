import ImgCacheSupport
/// An `<img>` with what a browser reads to pick its image: its `srcset`, `sizes` and `src`, and
/// the `<source>` elements before it in its `<picture>`, if it has one.
///
/// Attributes are as written (nil when absent), so that ``choice(for:rule:matchesMedia:sourceSize:)``
/// sees them as a browser does: it follows the HTML Standard's "select an image source" and
/// "update the source set" (https://html.spec.whatwg.org/multipage/images.html#update-the-source-set).
struct ResponsiveImage: Sendable, Equatable {
    /// A `<source>` of the `<picture>`, before the `<img>`.
    struct Source: Sendable, Equatable {
        var media: String?
        var type: String?
        var srcset: String?
        var sizes: String?

        init(media: String? = nil, type: String? = nil, srcset: String? = nil, sizes: String? = nil) {
            self.media = media
            self.type = type
            self.srcset = srcset
            self.sizes = sizes
        }
    }

    /// The `<source>` elements before the `<img>`, in document order; empty outside `<picture>`.
    var sources: [Source]
    var srcset: String?
    var sizes: String?
    var src: String?
    /// `loading=lazy`: only then may `sizes` be `auto` (the width it is laid out at, unknown here).
    var isLazy: Bool

    init(sources: [Source] = [], srcset: String? = nil, sizes: String? = nil, src: String? = nil, isLazy: Bool = false) {
        self.sources = sources
        self.srcset = srcset
        self.sizes = sizes
        self.src = src
        self.isLazy = isLazy
    }

    /// The image `device` shows, with `media` and `sizes` read as browsers read them
    /// (``MediaQueryList``, ``SourceSizeList``).
    /// - Parameter isUsable: whether a candidate's URL (as written) may be chosen; the others are
    ///   as if the page did not offer them, as after a rewriting that drops them.
    func choice(for device: DeviceProfile, isUsable: (String) -> Bool = { _ in true }) -> ImageChoice? {
        choice(for: device, matchesMedia: { MediaQueryList($0).matches(device) },
               sourceSize: { SourceSizeList($0, lazy: isLazy).sourceSize(on: device) }, isUsable: isUsable)
    }

    /// The image `device` shows, nil when there is none (no candidate, and no `src`).
    ///
    /// The first `<source>` whose `srcset` has a valid candidate, whose `media` matches and whose
    /// `type` the device shows supplies the candidates; else the `<img>`. Its engine then picks
    /// one for the device's pixel ratio (``DensityRule``).
    /// - Parameters:
    ///   - rule: how the candidate is picked; by default that of `device.engine`.
    ///   - matchesMedia: whether a `media` attribute's media query list matches the device (asked
    ///     only for a `media` that is not absent or blank, both of which match).
    ///   - sourceSize: the source size in CSS pixels for a `sizes` attribute (nil when absent),
    ///     asked only when a candidate has a width descriptor.
    ///   - isUsable: whether a candidate's URL (as written) may be chosen.
    func choice(for device: DeviceProfile, rule: DensityRule? = nil, matchesMedia: (String) -> Bool,
                sourceSize: (String?) -> Double, isUsable: (String) -> Bool = { _ in true }) -> ImageChoice? {
        let rule = rule ?? DensityRule(device.engine)
        for (index, source) in sources.enumerated() {
            guard let srcset = source.srcset else { continue }
            let candidates = ImageCandidate.parse(srcset).filter { isUsable($0.url) }
            guard !candidates.isEmpty,
                  Self.matches(source.media, matchesMedia),
                  Self.isShown(source.type, by: device),
                  let set = SourceSet(candidates: candidates, src: nil, sourceSize: { sourceSize(source.sizes) })
            else { continue }
            return Self.choice(of: set, element: .source(index), rule: rule, pixelRatio: device.pixelRatio)
        }
        guard let set = SourceSet(candidates: srcset.map { ImageCandidate.parse($0).filter { isUsable($0.url) } } ?? [],
                                  src: src.flatMap { isUsable($0) ? $0 : nil },
                                  sourceSize: { sourceSize(sizes) })
        else { return nil }
        return Self.choice(of: set, element: .img, rule: rule, pixelRatio: device.pixelRatio)
    }

    private static func choice(of set: SourceSet, element: ImageChoice.Element, rule: DensityRule, pixelRatio: Double) -> ImageChoice {
        let entry = set.chosen(by: rule, pixelRatio: pixelRatio)
        return ImageChoice(element: element, url: entry.url, origin: entry.origin, density: Double(entry.density))
    }

    /// An absent or blank `media` is the empty media query list, which matches every device.
    private static func matches(_ media: String?, _ matchesMedia: (String) -> Bool) -> Bool {
        guard let media, !media.unicodeScalars.allSatisfy(\.isASCIIWhitespace) else { return true }
        return matchesMedia(media)
    }

    /// Whether the device shows a `<source>`'s `type`: its MIME type without parameters and
    /// surrounding whitespace, in lower case, is one of the device's. An absent or empty type is
    /// any image (Blink's `SupportedImageType` and WebKit's source selection accept it).
    static func isShown(_ type: String?, by device: DeviceProfile) -> Bool {
        guard let type else { return true }
        let essence = String(type.prefix { $0 != ";" }).trimmingASCIIWhitespace.lowercased()
        return essence.isEmpty || device.imageTypes.contains(essence)
    }
}
