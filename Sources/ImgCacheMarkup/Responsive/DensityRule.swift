/// How a browser engine picks one density of a source set for a device pixel ratio: the one
/// step of "select an image source" the HTML Standard leaves to the engine ("in an
/// implementation-defined manner, choose one image source").
///
/// Arithmetic is in `Float`, as both engines hold densities, widths over source sizes, and the
/// device scale factor: a `1.3x` candidate then equals a pixel ratio of 1.3, as it does there.
enum DensityRule: Hashable, Sendable, CaseIterable {
    /// WebKit's `pickBestImageCandidate` (Source/WebCore/html/parser/HTMLSrcsetParser.cpp,
    /// WebKit/WebKit, read at 0bf491ab): the first density at or above the pixel ratio, else the
    /// densest.
    case webKit
    /// Blink's `SelectionLogic` as Chromium ships it
    /// (third_party/blink/renderer/core/html/parser/html_srcset_parser.cc, chromium/chromium,
    /// read at 010b6515): with the runtime feature `SrcsetSelectionMatchesImageSet`, "stable" in
    /// third_party/blink/renderer/platform/runtime_enabled_features.json5 (read at 0011bdae; a
    /// kill switch "to unify image-set and srcset selection logic"), it takes the first density
    /// at or above the pixel ratio, else the densest: WebKit's rule. `PickBestImageCandidate`
    /// then prefers a higher `data:` candidate (``SourceSet`` applies that).
    case blink
    /// Blink's `SelectionLogic` without `SrcsetSelectionMatchesImageSet` (Chromium before that
    /// feature shipped, or with the kill switch pulled), from the same file: for the first pair
    /// of neighbours whose upper density reaches the pixel ratio, it takes the upper one when
    /// the ratio is at least their geometric mean `sqrt(lower × upper)`, or when the ratio is at
    /// most 1 and above the lower density; otherwise the lower one. With no upper density
    /// reaching the ratio, the densest.
    case blinkGeometricMean

    /// The rule of the engine a device runs.
    init(_ engine: DeviceProfile.Engine) {
        switch engine {
        case .chromium: self = .blink
        case .webkit: self = .webKit
        }
    }

    /// The index of the density chosen among `densities`, which are ascending, distinct and not
    /// empty.
    func index(among densities: [Float], pixelRatio: Float) -> Int {
        precondition(!densities.isEmpty, "a source set to choose from has a candidate")
        let last = densities.count - 1
        switch self {
        case .webKit, .blink:
            return densities.firstIndex { $0 >= pixelRatio } ?? last
        case .blinkGeometricMean:
            for index in 0..<last {
                let current = densities[index], next = densities[index + 1]
                if next < pixelRatio { continue }
                let geometricMean = (current * next).squareRoot()
                if (pixelRatio <= 1 && pixelRatio > current) || pixelRatio >= geometricMean {
                    return index + 1
                }
                return index
            }
            return last
        }
    }
}
