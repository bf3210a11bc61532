import Testing
@testable import ImgCache
@testable import ImgCacheMarkup

extension Responsive {
    @Suite("Media queries on a phone, a tablet and a desktop")
    struct MediaQueryTests {
        /// A query and whether it matches the phone (390×844 at 3), the landscape tablet
        /// (1180×820 at 2) and the desktop (1920×1080 at 1).
        struct Case: Sendable, CustomTestStringConvertible {
            let query: String
            let phone: Bool, tablet: Bool, desktop: Bool

            init(_ query: String, _ phone: Bool, _ tablet: Bool, _ desktop: Bool) {
                self.query = query
                self.phone = phone
                self.tablet = tablet
                self.desktop = desktop
            }

            var testDescription: String { query.isEmpty ? "(empty)" : query }
        }

        static let mediaTypes = [
            Case("", true, true, true),
            Case("all", true, true, true),
            Case("SCREEN", true, true, true),
            Case("only screen", true, true, true),
            Case("print", false, false, false),
            Case("tv", false, false, false),
            Case("not print", true, true, true),
            Case("not screen", false, false, false),
            Case("screen, print", true, true, true),
            Case("only", false, false, false),
            Case("not", false, false, false),
        ]

        static let sizes = [
            Case("(orientation: portrait)", true, false, false),
            Case("(orientation: landscape)", false, true, true),
            Case("(min-width: 600px)", false, true, true),
            Case("(max-width: 599.98px)", true, false, false),
            Case("(device-width: 390px)", true, false, false),
            Case("(width >= 1200px)", false, false, true),
            Case("(1200px <= width)", false, false, true),
            Case("(600px <= width < 1200px)", false, true, false),
            Case("(1200px > width > 600px)", false, true, false),
            Case("(width > = 600px)", false, false, false),
            Case("(600px < width > 800px)", false, false, false),
            Case("(min-width: 37.5em)", false, true, true),
            Case("(min-width: 6.25in)", false, true, true),
            Case("(min-width: calc(30em + 120px))", false, true, true),
            Case("(max-width: min(50vw, 2000px))", false, false, false),
            Case("(min-height: 100dvh)", true, true, true),
            Case("(min-width: 0)", true, true, true),
            Case("(min-width: 600)", false, false, false),
            Case("(min-aspect-ratio: 16/9)", false, false, true),
            Case("(min-aspect-ratio: 4 / 3)", false, true, true),
            Case("(aspect-ratio > 1)", false, true, true),
            Case("(max-aspect-ratio: 0/0)", false, false, false),
        ]

        static let resolutions = [
            Case("(min-resolution: 2dppx)", true, true, false),
            Case("(min-resolution: 192dpi)", true, true, false),
            Case("(resolution: 3x)", true, false, false),
            Case("(resolution > 2.5dppx)", true, false, false),
            Case("(max-resolution: 1dppx)", false, false, true),
            Case("(min-resolution: 2dpcm)", true, true, true),
            Case("(resolution < infinite)", true, true, true),
            Case("(-webkit-min-device-pixel-ratio: 1.5)", true, true, false),
            Case("(-webkit-max-device-pixel-ratio: 1)", false, false, true),
            Case("(-webkit-device-pixel-ratio: 2)", false, true, false),
            Case("only screen and (-webkit-min-device-pixel-ratio: 2), (min-resolution: 192dpi)", true, true, false),
        ]

        static let pointers = [
            Case("(hover: hover)", false, false, true),
            Case("(hover)", false, false, true),
            Case("(any-hover: none)", true, true, false),
            Case("(pointer: coarse)", true, true, false),
            Case("(any-pointer: fine)", false, false, true),
            Case("(pointer)", true, true, true),
        ]

        static let logic = [
            Case("(max-width: 500px), (min-width: 1500px)", true, false, true),
            Case("(max-width: 500px) or (min-width: 1500px)", true, false, true),
            Case("not (min-width: 600px)", true, false, false),
            Case("not all and (min-width: 600px)", true, false, false),
            Case("not screen and (hover)", true, true, false),
            Case("screen and (min-width: 600px) and (orientation: landscape)", false, true, true),
            Case("(min-width: 600px) and (not (hover))", false, true, false),
            Case("((min-width: 600px) or (hover)) and (orientation: landscape)", false, true, true),
            Case("(MIN-WIDTH: 600PX) AND (HOVER)", false, false, true),
        ]

        /// Unknown features and values are unknown, which stays unknown under `not` and is false
        /// at the top; malformed queries are `not all` and leave the list's others.
        static let unknownAndMalformed = [
            Case("(unknown-feature)", false, false, false),
            Case("not (unknown-feature)", false, false, false),
            Case("(min-width: 600px) or (unknown: 1)", false, true, true),
            Case("(min-width: 600px) and (unknown: 1)", false, false, false),
            Case("not ((min-width: 600px) and (unknown: 1))", true, false, false),
            Case("(min-width: foo)", false, false, false),
            Case("not (min-width: foo)", false, false, false),
            Case("(orientation: round)", false, false, false),
            Case("(min-orientation: portrait)", false, false, false),
            Case("(orientation > portrait)", false, false, false),
            Case("(min-width)", false, false, false),
            Case("(min-width 600px)", false, false, false),
            Case("not print and unknown-function(1)", true, true, true),
            Case("(min-width: -1px)", false, false, false),
            Case("not (min-width: -1px)", false, false, false),
            Case("(min-width: 600px", false, true, true),
            Case("screen and", false, false, false),
            Case("(min-width: 600px) and", false, false, false),
            Case("and (min-width: 600px)", false, false, false),
            Case("screen and (min-width: 600px) or (hover)", false, false, false),
            Case("(!)", false, false, false),
            Case("(min-width: 600px), (!)", false, true, true),
            Case("print, (max-width: 500px)", true, false, false),
            Case("(min-width: 600px), ]", false, true, true),
        ]

        static let otherFeatures = [
            Case("(color)", true, true, true),
            Case("(min-color: 8)", true, true, true),
            Case("(min-color: 8.5)", false, false, false),
            Case("(monochrome)", false, false, false),
            Case("(color-gamut: srgb)", true, true, true),
            Case("(color-gamut: p3)", false, false, false),
            Case("(display-mode: browser)", true, true, true),
            Case("(display-mode: standalone)", false, false, false),
            Case("(scripting: enabled)", true, true, true),
            Case("(update: fast)", true, true, true),
            Case("(forced-colors: none)", true, true, true),
            Case("(forced-colors)", false, false, false),
            Case("(prefers-contrast: no-preference)", true, true, true),
            Case("(inverted-colors: none)", true, true, true),
            Case("(dynamic-range: standard)", true, true, true),
            Case("(dynamic-range: high)", false, false, false),
            Case("(prefers-reduced-motion: reduce)", false, false, false),
            Case("(prefers-reduced-motion)", false, false, false),
            Case("(prefers-color-scheme: light)", true, true, true),
            Case("(prefers-color-scheme: dark)", false, false, false),
            Case("(prefers-color-scheme: no-preference)", false, false, false),
        ]

        @Test(arguments: mediaTypes + sizes + resolutions + pointers + logic + unknownAndMalformed + otherFeatures)
        func query(_ test: Case) {
            let list = MediaQueryList(test.query)
            #expect(list.matches(phone) == test.phone, "phone")
            #expect(list.matches(tablet) == test.tablet, "tablet")
            #expect(list.matches(desktop) == test.desktop, "desktop")
        }

        @Test("dark mode and reduced motion are answered as the device says")
        func userPreferences() {
            var dark = desktop
            dark.colorScheme = .dark
            dark.prefersReducedMotion = true
            #expect(MediaQueryList("(prefers-color-scheme: dark)").matches(dark))
            #expect(!MediaQueryList("(prefers-color-scheme: light)").matches(dark))
            #expect(MediaQueryList("(prefers-color-scheme)").matches(dark))
            #expect(MediaQueryList("(prefers-reduced-motion: reduce)").matches(dark))
            #expect(MediaQueryList("(prefers-reduced-motion)").matches(dark))
        }

        @Test("a phone with a mouse hovers and has a fine pointer")
        func aPhoneWithAMouse() {
            let phoneWithMouse = DeviceProfile(viewportWidth: 390, viewportHeight: 844, pixelRatio: 3, pointer: .fine)
            #expect(MediaQueryList("(hover: hover) and (pointer: fine)").matches(phoneWithMouse))
            #expect(!MediaQueryList("(hover: none)").matches(phoneWithMouse))
        }
    }
}
