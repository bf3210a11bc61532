/// A device a page is localised for: what its browser knows when it picks one of an image's
/// candidates (`srcset`, `sizes`, `<picture>` sources by `media` and `type`).
///
/// Written `WIDTHxHEIGHT@RATIO` on the command line (`--device 390x844@3`), or by the name of a
/// preset (`imgcache fetch --help` lists them). An app makes one whole, with its
/// initialiser or ``screen(width:height:scale:turns:)``, and hands it to ``RewriteOptions/devices``; only the
/// responsive-image selection reads its parts.
public struct DeviceProfile: Sendable, Hashable, CustomStringConvertible {
    /// A browser engine, for the choices the standard leaves to it. Both take the first density
    /// candidate at or above the pixel ratio (else the densest); Chromium also prefers a denser
    /// `data:` candidate, which costs no download.
    public enum Engine: String, Sendable, Hashable, CaseIterable {
        /// Chromium (Chrome, Edge, Android's WebView).
        case chromium
        /// WebKit (Safari, `WKWebView`).
        case webkit
    }

    /// The `prefers-color-scheme` the device reports.
    public enum ColorScheme: String, Sendable, Hashable {
        case light, dark
    }

    /// The accuracy of the primary pointer, as the `pointer` media feature reports it.
    public enum Pointer: String, Sendable, Hashable {
        case none, coarse, fine
    }

    /// A name for messages and the manifest, such as a preset's.
    package var name: String?
    /// The layout viewport's width, in CSS pixels.
    package var viewportWidth: Double
    /// The layout viewport's height, in CSS pixels.
    package var viewportHeight: Double
    /// Device pixels per CSS pixel (`devicePixelRatio`).
    package var pixelRatio: Double
    /// The image types its browser shows (lowercase MIME types): what a `<source type>` is
    /// matched against.
    package var imageTypes: Set<String>
    /// The engine, for the choices engines make differently.
    package var engine: Engine
    /// `prefers-color-scheme`.
    package var colorScheme: ColorScheme
    /// The primary pointer: `pointer`, and `hover` (only a fine pointer hovers here).
    package var pointer: Pointer
    /// `prefers-reduced-motion: reduce`.
    package var prefersReducedMotion: Bool

    /// The image types every current engine shows.
    package static let commonImageTypes: Set<String> = [
        "image/jpeg", "image/png", "image/gif", "image/webp", "image/avif", "image/svg+xml", "image/apng",
        "image/bmp", "image/x-icon", "image/vnd.microsoft.icon",
    ]

    /// The image types WebKit shows beyond ``commonImageTypes`` (Safari 17 and later).
    package static let webKitOnlyImageTypes: Set<String> = ["image/jxl", "image/heic", "image/heif"]

    /// Creates a profile.
    /// - Parameters:
    ///   - viewportWidth: the viewport's width in CSS pixels (> 0).
    ///   - viewportHeight: its height in CSS pixels (> 0).
    ///   - pixelRatio: device pixels per CSS pixel (> 0).
    ///   - engine: the browser engine; by default WebKit, what an app's web view is on Apple platforms.
    ///   - imageTypes: the types it shows; by default those of `engine`.
    ///   - colorScheme: the `prefers-color-scheme` it reports.
    ///   - pointer: its primary pointer; by default coarse (touch) for a narrow screen of pixel
    ///     ratio 2 or more, fine otherwise.
    ///   - prefersReducedMotion: whether it reports `prefers-reduced-motion: reduce`.
    ///   - name: a name for messages and the manifest.
    public init(viewportWidth: Double, viewportHeight: Double, pixelRatio: Double = 1, engine: Engine = .webkit,
                imageTypes: Set<String>? = nil, colorScheme: ColorScheme = .light, pointer: Pointer? = nil,
                prefersReducedMotion: Bool = false, name: String? = nil) {
        precondition(viewportWidth > 0 && viewportHeight > 0 && pixelRatio > 0, "a device's sizes and pixel ratio are positive")
        self.viewportWidth = viewportWidth
        self.viewportHeight = viewportHeight
        self.pixelRatio = pixelRatio
        self.engine = engine
        self.imageTypes = imageTypes ?? (engine == .webkit ? Self.commonImageTypes.union(Self.webKitOnlyImageTypes) : Self.commonImageTypes)
        self.colorScheme = colorScheme
        // Phones and tablets are narrow or high-density touch screens; the rest have a mouse.
        self.pointer = pointer ?? (min(viewportWidth, viewportHeight) < 900 && pixelRatio >= 2 ? .coarse : .fine)
        self.prefersReducedMotion = prefersReducedMotion
        self.name = name
    }

    /// Reads `WIDTHxHEIGHT@RATIO` (`390x844@3`; `@RATIO` may be left out for 1) or a preset's name.
    /// Nil when the text is neither.
    package init?(_ text: String) {
        if let preset = Self.presets[text.lowercased()] {
            self = preset
            return
        }
        let parts = text.lowercased().split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        let sides = parts[0].split(separator: "x", omittingEmptySubsequences: false)
        guard sides.count == 2, let width = Double(sides[0]), let height = Double(sides[1]),
              width > 0, height > 0, width.isFinite, height.isFinite else { return nil }
        var pixelRatio = 1.0
        if parts.count == 2 {
            guard let ratio = Double(parts[1]), ratio > 0, ratio.isFinite else { return nil }
            pixelRatio = ratio
        }
        self.init(viewportWidth: width, viewportHeight: height, pixelRatio: pixelRatio, name: text)
    }

    /// `name` if it has one, else `WIDTHxHEIGHT@RATIO`.
    public var description: String {
        name ?? "\(Self.number(viewportWidth))x\(Self.number(viewportHeight))@\(Self.number(pixelRatio))"
    }

    /// Common devices by name: phones, tablets and desktops.
    package static let presets: [String: DeviceProfile] = [
        "iphone-se": DeviceProfile(viewportWidth: 375, viewportHeight: 667, pixelRatio: 2, name: "iphone-se"),
        "iphone": DeviceProfile(viewportWidth: 393, viewportHeight: 852, pixelRatio: 3, name: "iphone"),
        "iphone-pro-max": DeviceProfile(viewportWidth: 440, viewportHeight: 956, pixelRatio: 3, name: "iphone-pro-max"),
        "pixel": DeviceProfile(viewportWidth: 412, viewportHeight: 915, pixelRatio: 2.625, engine: .chromium, name: "pixel"),
        "galaxy": DeviceProfile(viewportWidth: 360, viewportHeight: 780, pixelRatio: 3, engine: .chromium, name: "galaxy"),
        "ipad": DeviceProfile(viewportWidth: 820, viewportHeight: 1180, pixelRatio: 2, name: "ipad"),
        "ipad-pro": DeviceProfile(viewportWidth: 1024, viewportHeight: 1366, pixelRatio: 2, name: "ipad-pro"),
        "macbook": DeviceProfile(viewportWidth: 1512, viewportHeight: 945, pixelRatio: 2, pointer: .fine, name: "macbook"),
        "laptop": DeviceProfile(viewportWidth: 1366, viewportHeight: 768, pixelRatio: 1, engine: .chromium, name: "laptop"),
        "desktop": DeviceProfile(viewportWidth: 1920, viewportHeight: 1080, pixelRatio: 1, engine: .chromium, name: "desktop"),
    ]

    private static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
