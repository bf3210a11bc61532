/// A unit of a length or a resolution, as `sizes` and media queries take them, with what it is in
/// CSS pixels (or dots per CSS pixel) on a device.
///
/// Media queries and `sizes` are evaluated before any style applies, so font-relative units use
/// the initial font (16px, CSS's `medium`); `ex`, `ch` and the like are that font's usual
/// proportions, the fallbacks CSS Values 4 gives where a font cannot be measured. Every viewport
/// unit, small, large or dynamic, is the device's viewport, and container units fall back to the
/// small viewport as they do outside any container.
struct CSSUnit: Sendable, Hashable {
    enum Category: Sendable, Hashable {
        case length, resolution
    }

    /// What the unit's factor multiplies.
    private enum Basis: Sendable, Hashable {
        case fixed, viewportWidth, viewportHeight, viewportMinimum, viewportMaximum
    }

    let category: Category
    private let basis: Basis
    private let factor: Double

    /// The unit named `name` (ASCII case-insensitive), or nil for another unit or none of these
    /// (angles, times, percentages are no length).
    init?(_ name: String) {
        guard let unit = Self.units[name.lowercased()] else { return nil }
        self = unit
    }

    private init(_ category: Category, _ basis: Basis, _ factor: Double) {
        self.category = category
        self.basis = basis
        self.factor = factor
    }

    /// `value` of this unit in CSS pixels (lengths) or dots per CSS pixel (resolutions).
    func canonical(_ value: Double, on device: DeviceProfile) -> Double {
        switch basis {
        case .fixed: value * factor
        case .viewportWidth: value * factor * device.viewportWidth
        case .viewportHeight: value * factor * device.viewportHeight
        case .viewportMinimum: value * factor * min(device.viewportWidth, device.viewportHeight)
        case .viewportMaximum: value * factor * max(device.viewportWidth, device.viewportHeight)
        }
    }

    private static let fontSize = 16.0

    private static let units: [String: CSSUnit] = {
        let inch = 96.0
        var units: [String: CSSUnit] = [
            "px": CSSUnit(.length, .fixed, 1),
            "in": CSSUnit(.length, .fixed, inch),
            "cm": CSSUnit(.length, .fixed, inch / 2.54),
            "mm": CSSUnit(.length, .fixed, inch / 25.4),
            "q": CSSUnit(.length, .fixed, inch / 101.6),
            "pt": CSSUnit(.length, .fixed, inch / 72),
            "pc": CSSUnit(.length, .fixed, inch / 6),
            "dppx": CSSUnit(.resolution, .fixed, 1),
            "x": CSSUnit(.resolution, .fixed, 1),
            "dpi": CSSUnit(.resolution, .fixed, 1 / inch),
            "dpcm": CSSUnit(.resolution, .fixed, 2.54 / inch),
        ]
        let fontRelative: [String: Double] = ["em": 1, "ex": 0.5, "ch": 0.5, "ic": 1, "cap": 0.7, "lh": 1.2]
        for (name, ems) in fontRelative {
            units[name] = CSSUnit(.length, .fixed, ems * fontSize)
            units["r" + name] = CSSUnit(.length, .fixed, ems * fontSize)
        }
        let viewport: [String: Basis] = [
            "vw": .viewportWidth, "vh": .viewportHeight, "vi": .viewportWidth, "vb": .viewportHeight,
            "vmin": .viewportMinimum, "vmax": .viewportMaximum,
        ]
        for (name, basis) in viewport {
            for prefix in ["", "s", "l", "d"] {
                units[prefix + name] = CSSUnit(.length, basis, 0.01)
            }
            units["cq" + name.dropFirst()] = CSSUnit(.length, basis, 0.01)
        }
        return units
    }()
}
