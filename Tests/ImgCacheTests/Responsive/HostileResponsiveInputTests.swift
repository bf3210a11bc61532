import Testing
@testable import ImgCache
@testable import ImgCacheMarkup

extension Responsive {
    /// `sizes`, `media` and `srcset` come from pages nobody reviewed: whatever they hold, choosing
    /// an image must end, give a usable size and give the same answer twice.
    @Suite("choosing an image from hostile attributes")
    struct HostileInputTests {
        /// Pieces of CSS and HTML that the parsers tell apart, put together at random.
        static let pieces = [
            "(", ")", "[", "]", "{", "}", ",", ";", ":", " ", "\t", "/*", "*/", "\"", "'", "\\", "-", "+", ".", "e", "E", "%",
            "0", "1", "9", "1e308", "-1e308", "1e-400", "NaN", "infinity", "px", "vw", "em", "x", "dppx", "w", "h",
            "calc(", "min(", "max(", "clamp(", "and", "or", "not", "only", "all", "screen", "print", "auto",
            "min-width", "max-width", "width", ">=", "<", "=", "orientation", "portrait", "resolution", "hover",
            "url(", "data:,a", "a.jpg", "\u{0}", "\u{FFFD}", "é",
        ]

        static func randomText(_ generator: inout EncodingFuzzGenerator) -> String {
            (0..<Int.random(in: 0...40, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
        }

        @Test("10,000 random sizes, media and srcsets: a finite size of at least zero, the same answer twice, no crash")
        func randomAttributes() {
            var generator = EncodingFuzzGenerator(seed: 0x5EED_51_2E5)
            let devices = [phone, tablet, desktop]
            for _ in 0..<10_000 {
                let sizes = Self.randomText(&generator)
                let media = Self.randomText(&generator)
                let srcset = Self.randomText(&generator)
                for device in devices {
                    let size = SourceSizeList(sizes).sourceSize(on: device)
                    #expect(size.isFinite && size >= 0, "sizes=\(sizes.debugDescription) gave \(size)")
                    #expect(MediaQueryList(media).matches(device) == MediaQueryList(media).matches(device))
                    let image = ResponsiveImage(sources: [.init(media: media, srcset: srcset, sizes: sizes)], srcset: srcset,
                                                sizes: sizes, src: "fallback.jpg")
                    let choice = image.choice(for: device)
                    #expect(choice == image.choice(for: device))
                    if let density = choice?.density { #expect(!density.isNaN, "srcset=\(srcset.debugDescription)") }
                }
            }
        }

        @Test("a megabyte of nesting or of one long list is read in one pass")
        func largeAttributes() {
            let nested = String(repeating: "calc(", count: 200_000) + "1px"
            #expect(SourceSizeList(nested).sourceSize(on: phone) == 390, "deeper than the nesting limit: invalid, so 100vw")
            let list = Array(repeating: "(min-width: 10000px) 1px", count: 40_000).joined(separator: ", ") + ", 2px"
            #expect(SourceSizeList(list).sourceSize(on: phone) == 2)
            let media = Array(repeating: "(max-width: 1px)", count: 60_000).joined(separator: " or ")
            #expect(!MediaQueryList(media).matches(phone))
        }
    }
}
