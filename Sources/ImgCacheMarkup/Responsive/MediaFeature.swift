/// A media feature of Media Queries 4 and 5 that a `<source media>` or a `sizes` condition may test,
/// with the value a device gives it.
///
/// A device profile knows its viewport, pixel ratio, pointer, colour scheme and motion preference;
/// the other features take the values of an ordinary screen in a browser tab (sRGB, 8 bits per
/// colour, scripting on, no forced colours), which is what pages' queries meet on phones, tablets
/// and desktops alike.
enum MediaFeature: String, Sendable, Hashable, CaseIterable {
    case width, height
    /// The screen's size, which a profile does not tell apart from its viewport.
    case deviceWidth = "device-width", deviceHeight = "device-height"
    case aspectRatio = "aspect-ratio", deviceAspectRatio = "device-aspect-ratio"
    case orientation
    case resolution
    /// WebKit's pixel ratio, still common in pages; a number of dots per CSS pixel.
    case webkitDevicePixelRatio = "-webkit-device-pixel-ratio"
    case color, colorIndex = "color-index", monochrome, grid
    case colorGamut = "color-gamut"
    case dynamicRange = "dynamic-range", videoDynamicRange = "video-dynamic-range"
    case prefersColorScheme = "prefers-color-scheme"
    case prefersReducedMotion = "prefers-reduced-motion"
    case prefersReducedTransparency = "prefers-reduced-transparency"
    case prefersContrast = "prefers-contrast"
    case forcedColors = "forced-colors"
    case invertedColors = "inverted-colors"
    case hover, anyHover = "any-hover"
    case pointer, anyPointer = "any-pointer"
    case displayMode = "display-mode"
    case scripting, update
    case overflowBlock = "overflow-block", overflowInline = "overflow-inline"

    /// What a query may compare the feature with.
    enum ValueType: Sendable, Hashable {
        /// Range features: CSS pixels, a width-to-height ratio, dots per CSS pixel, or a count.
        case length, ratio, resolution, integer, number
        /// Discrete features: one of these keywords (lowercase).
        case keyword(Set<String>)

        /// Range features take `min-`/`max-` prefixes and the `<`, `<=`, `>`, `>=` syntax.
        var isRange: Bool {
            if case .keyword = self { false } else { true }
        }
    }

    /// A feature's value on a device: a number in the unit of its ``ValueType``, or a keyword.
    enum Value: Sendable, Hashable {
        case number(Double)
        case keyword(String)
    }

    /// The feature named `name` (ASCII case-insensitive), without a `min-`/`max-` prefix.
    init?(named name: String) {
        self.init(rawValue: name.lowercased())
    }

    var valueType: ValueType {
        switch self {
        case .width, .height, .deviceWidth, .deviceHeight: .length
        case .aspectRatio, .deviceAspectRatio: .ratio
        case .resolution: .resolution
        case .webkitDevicePixelRatio: .number
        case .color, .colorIndex, .monochrome, .grid: .integer
        case .orientation: .keyword(["portrait", "landscape"])
        case .colorGamut: .keyword(["srgb", "p3", "rec2020"])
        case .dynamicRange, .videoDynamicRange: .keyword(["standard", "high"])
        case .prefersColorScheme: .keyword(["light", "dark"])
        case .prefersReducedMotion, .prefersReducedTransparency: .keyword(["no-preference", "reduce"])
        case .prefersContrast: .keyword(["no-preference", "less", "more", "custom"])
        case .forcedColors: .keyword(["none", "active"])
        case .invertedColors: .keyword(["none", "inverted"])
        case .hover, .anyHover: .keyword(["none", "hover"])
        case .pointer, .anyPointer: .keyword(["none", "coarse", "fine"])
        case .displayMode:
            .keyword(["browser", "fullscreen", "standalone", "minimal-ui", "picture-in-picture", "window-controls-overlay"])
        case .scripting: .keyword(["none", "initial-only", "enabled"])
        case .update: .keyword(["none", "slow", "fast"])
        case .overflowBlock: .keyword(["none", "scroll", "paged"])
        case .overflowInline: .keyword(["none", "scroll"])
        }
    }

    /// The feature's value on `device`.
    func value(on device: DeviceProfile) -> Value {
        switch self {
        case .width, .deviceWidth: .number(device.viewportWidth)
        case .height, .deviceHeight: .number(device.viewportHeight)
        case .aspectRatio, .deviceAspectRatio: .number(device.viewportWidth / device.viewportHeight)
        case .resolution, .webkitDevicePixelRatio: .number(device.pixelRatio)
        case .color: .number(8)
        case .colorIndex, .monochrome, .grid: .number(0)
        case .orientation: .keyword(device.viewportHeight >= device.viewportWidth ? "portrait" : "landscape")
        case .colorGamut: .keyword("srgb")
        case .dynamicRange, .videoDynamicRange: .keyword("standard")
        case .prefersColorScheme: .keyword(device.colorScheme.rawValue)
        case .prefersReducedMotion: .keyword(device.prefersReducedMotion ? "reduce" : "no-preference")
        case .prefersReducedTransparency, .prefersContrast: .keyword("no-preference")
        case .forcedColors, .invertedColors: .keyword("none")
        // Only a fine pointer hovers: touch screens report `hover: none`.
        case .hover, .anyHover: .keyword(device.pointer == .fine ? "hover" : "none")
        case .pointer, .anyPointer: .keyword(device.pointer.rawValue)
        case .displayMode: .keyword("browser")
        case .scripting: .keyword("enabled")
        case .update: .keyword("fast")
        case .overflowBlock, .overflowInline: .keyword("scroll")
        }
    }

    /// The feature alone, `(hover)`: true unless its value is zero, `none` or `no-preference`
    /// (Media Queries 4, "Evaluating Media Features in a Boolean Context", and 5 for the last).
    func isTrueInBooleanContext(on device: DeviceProfile) -> Bool {
        switch value(on: device) {
        case .number(let value): value != 0
        case .keyword(let keyword): keyword != "none" && keyword != "no-preference"
        }
    }
}
