import ImgCacheURLs
/// An element's "source set" as the HTML Standard builds it before choosing
/// (https://html.spec.whatwg.org/multipage/images.html#update-the-source-set): its `srcset`
/// candidates, the `<img>`'s `src` as `1x` where the standard adds it, and every width turned
/// into a density with the source size ("normalise the source densities").
struct SourceSet: Sendable, Equatable {
    /// A candidate with its density.
    struct Entry: Sendable, Equatable {
        var url: String
        var origin: ImageChoice.Origin
        /// Image pixels per CSS pixel, in `Float` as engines hold it.
        var density: Float
    }

    /// The candidates in the order written, `src` last; a density written twice is kept once,
    /// where first written ("select an image source": a later entry of an earlier entry's density
    /// is removed). Never empty.
    let entries: [Entry]

    /// The source set of `candidates` (an element's valid `srcset` candidates) and of `src` (the
    /// `<img>`'s, nil for a `<source>`); nil when there is no candidate at all.
    ///
    /// `src`, unless empty, counts as `1x` when no candidate has a width: Blink and WebKit add it
    /// last and drop it as a duplicate when a candidate is `1x`, which is the standard's "does not
    /// contain an image source with a pixel density descriptor value of 1, and no image source
    /// with a width descriptor". `sourceSize` (the `sizes` in CSS pixels) is asked only when a
    /// candidate has a width.
    init?(candidates: [ImageCandidate], src: String?, sourceSize: () -> Double) {
        var entries: [Entry] = []
        var hasWidth = false
        var size: Float?
        for candidate in candidates {
            let density: Float
            switch candidate.descriptor {
            case .density(let value):
                density = Float(value)
            case .width(let width, _):
                hasWidth = true
                let cssWidth = size ?? Float(sourceSize())
                size = cssWidth
                density = Float(width) / cssWidth
            }
            entries.append(Entry(url: candidate.url, origin: .srcset(urlRange: candidate.urlRange), density: density))
        }
        if let src, !src.isEmpty, !hasWidth {
            entries.append(Entry(url: src, origin: .src, density: 1))
        }
        var seen = Set<Float>()
        entries = entries.filter { seen.insert($0.density).inserted }
        guard !entries.isEmpty else { return nil }
        self.entries = entries
    }

    /// The entry an engine shows at `pixelRatio`.
    ///
    /// Blink's `PickBestImageCandidate` then goes to `AvoidDownloadIfHigherDensityResourceIsInCache`
    /// (html_srcset_parser.cc, as cited at ``DensityRule/blink``), which takes the densest
    /// candidate above the choice whose URL is `data:` (nothing to download) or is in its memory
    /// cache; the `data:` half is applied here, the cache (which depends on what was loaded
    /// before) is not.
    func chosen(by rule: DensityRule, pixelRatio: Double) -> Entry {
        let ascending = entries.sorted { $0.density < $1.density }  // distinct densities: no ties
        var index = rule.index(among: ascending.map(\.density), pixelRatio: Float(pixelRatio))
        if rule != .webKit, let data = ascending.indices.last(where: { $0 > index && Self.isDataURL(ascending[$0].url) }) {
            index = data
        }
        return ascending[index]
    }

    /// Whether a URL, as written, resolves to a `data:` URL: its scheme (after the leading
    /// whitespace and C0 controls the URL parser strips) is `data`, in any case.
    static func isDataURL(_ url: String) -> Bool {
        let scalars = url.unicodeScalars.drop { $0.value <= 0x20 }
        guard scalars.count >= 5 else { return false }
        return String(String.UnicodeScalarView(scalars.prefix(5))).lowercased() == "data:"
    }
}
