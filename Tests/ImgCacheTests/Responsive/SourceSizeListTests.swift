import Testing
@testable import ImgCache
@testable import ImgCacheMarkup

extension Responsive {
    /// WPT's "parse a sizes attribute" cases, from web-platform-tests
    /// `html/semantics/embedded-content/the-img-element/sizes/support/sizes-iframed.sub.html`
    /// (run by `parse-a-sizes-attribute.html` in 1000×1000 iframes): in each paragraph, every
    /// image must choose the candidate of the first one. The a–d paragraphs check that `sizes`
    /// left out is `100vw`; each "e" value must choose between `50w` and `51w` as `sizes="1px"`
    /// does, each "f" value as `sizes="100vw"` does.
    @Suite("sizes: WPT parse-a-sizes-attribute cases")
    struct SourceSizeListTests {
        static let frame = DeviceProfile(viewportWidth: 1000, viewportHeight: 1000, pixelRatio: 1)

        /// The "e" values whose size is exactly one CSS pixel.
        static let onePixelValues = [
            "1px", "+1px", "/* */1px/* */", " /**/ /**/ 1px /**/ /**/ ",
            "(),1px", "x(),1px", "{},1px", "[],1px", "1px,(", "1px,x(", "1px,{", "1px,[",
            "\\(,1px", "x\\(,1px", "\\{,1px", "\\[,1px", "1\\p\\x",
            "calc(1px)", "min(1px, 100px)",
            "(min-width:0) calc(1px)", "(min-width:0) min(1px, 100px)", "(min-width:0) max(-100px, 1px)",
            "(min-width:calc(0px)) 1px", "(min-width:0) 1px, 100vw", "(min-width:0) 1px, (min-width:0) 100vw, 100vw",
            "(min-width:0) 1px", "not (min-width:0) 100vw, 1px",
            "(min-width:unknown-mf-value) 100vw, 1px", "not (min-width:unknown-mf-value) 100vw, 1px",
            "(min-width:-1px) 100vw, 1px", "not (min-width:-1px) 100vw, 1px",
            "(unknown-mf-name) 100vw, 1px", "not (unknown-mf-name) 100vw, 1px",
            "(unknown \"general-enclosed\") 100vw, 1px", "not (unknown \"general-enclosed\") 100vw, 1px",
            "unknown-general-enclosed(foo) 100vw, 1px", "not unknown-general-enclosed(foo) 100vw, 1px",
            "print 100vw, 1px", "not print 100vw, 1px",
            "unknown-media-type 100vw, 1px", "not unknown-media-type 100vw, 1px",
            "(min-width:0) or (min-width:0) 1px", "(min-width:0) or (unknown-mf-name) 1px",
            "(min-width:0) or (min-width:unknown-mf-value) 1px", "(min-width:0) or (min-width:-1px) 1px",
            "(min-width:0) or (unknown \"general-enclosed\") 1px", "(min-width:0) or unknown-general-enclosed(foo) 1px",
            "(min-width:0) or (!) 100vw, 1px", "(min-width:0) or unknown-media-type 100vw, 1px",
            "(123) 100vw, 1px", "not (123) 100vw, 1px", "(!) 100vw, 1px", "not (!) 100vw, 1px",
            "! 100vw, 1px", "not ! 100vw, 1px", "(]) 100vw, 1px", "not (]) 100vw, 1px",
            "] 100vw, 1px", "not ] 100vw, 1px", "(}) 100vw, 1px", "not (}) 100vw, 1px",
            "} 100vw, 1px", "not } 100vw, 1px", ") 100vw, 1px", "not ) 100vw, 1px",
            "(;) 100vw, 1px", "not (;) 100vw, 1px", "(.) 100vw, 1px", "not (.) 100vw, 1px",
            "; 100vw, 1px", "not ; 100vw, 1px", ", 1px", "1px,", "(min-width:0) 1px,",
            "all 100vw, 1px", "all and (min-width:0) 100vw, 1px", "min-width:0 100vw, 1px",
            "1px, 100vw", "1px, (min-width:0) 100vw", "1px, foo bar", "(min-width:0) 1px, foo bar",
            "(\"grammar does not match\") 100vw, 1px", "not (\"grammar does not match\") 100vw, 1px",
            "(unknown-general-enclosed !) 100vw, 1px", "not (unknown-general-enclosed !) 100vw, 1px",
            "(min-width:0) or (unknown-general-enclosed !) 1px",
            "not ((min-width:0) or (unknown \"general-enclosed\")) 100vw, 1px",
            "(max-width:0) or (unknown-general-enclosed !) 100vw, 1px",
            "not ((max-width:0) or (unknown \"general-enclosed\")) 100vw, 1px",
            // Named f48 and f49 in WPT but in the "e" paragraph: a function the text ends in is
            // closed there, as CSS closes it.
            "calc(1px", "min(1px, 200vw", "max(-200vw, 1px",
            "(min-width:0) calc(1px", "(min-width:0) min(1px, 200vw", "(min-width:0) max(-200vw, 1px",
        ]

        /// The other "e" values, with their size in CSS pixels on the frame: small lengths in other
        /// units and notations, all of which choose the 50w candidate.
        static let otherSmallValues: [(String, Double)] = [
            ("0", 0), ("-0", 0), ("+0", 0), (".1px", 0.1),
            ("0.1em", 1.6), ("0.1ex", 0.8), ("0.1ch", 0.8), ("0.1rem", 1.6),
            ("0.1vw", 1), ("0.1vh", 1), ("0.1vmin", 1), ("0.1vmax", 1),
            ("0.1cm", 9.6 / 2.54), ("1mm", 9.6 / 2.54), ("1q", 9.6 / 10.16), ("0.01in", 0.96),
            ("0.1pc", 1.6), ("0.1pt", 9.6 / 72),
            ("min(-100px, 1px)", 0),
            ("-0e-0px", 0), ("+0.11e+01px", 1.1), ("0.2e1px", 2), ("0.3E1px", 3), (".4E1px", 4),
        ]

        /// The "f" values: none is a valid entry that applies, so each is `100vw`.
        static let invalidValues = [
            "100vw", "", ",", "-1px", "1", "0.1%", "0.1deg", "0.1grad", "0.1rad", "0.1turn", "0.1s", "0.1ms",
            "0.1Hz", "0.1kHz", "0.1dpi", "0.1dpcm", "0.1dppx", "0.1x",
            "attr(data-foo, length, 1px)", "attr(data-foo, px, 1px)", "toggle(1px)",
            "inherit", "auto", "initial", "unset", "default",
            "1/* */px", "1p/* */x", "-/**/0", "((),1px", "x(x(),1px", "{{},1px", "[[],1px",
            "1px !important", "\\1px", "all 1px", "all and (min-width:0) 1px", "min-width:0 1px",
            "100vw, 1px", "100vw, (min-width:0) 1px", "foo bar", "foo-bar", "(min-width:0) 1px foo bar",
            "(min-width:0) 0.1%", "(min-width:0) 1", "-1e0px", "1e1.5px", "var(--foo)",
        ]

        @Test("e: the size is 1px", arguments: onePixelValues)
        func onePixel(_ sizes: String) {
            #expect(SourceSizeList(sizes).sourceSize(on: Self.frame) == 1)
        }

        @Test("e: a small size, the 50w candidate", arguments: otherSmallValues)
        func smallSize(_ sizes: String, pixels: Double) {
            let size = SourceSizeList(sizes).sourceSize(on: Self.frame)
            #expect(abs(size - pixels) < 1e-9)
            #expect(Self.chosenWidth(among: [50, 51], sourceSize: size) == 50)
        }

        @Test("f: invalid, so 100vw", arguments: invalidValues)
        func invalid(_ sizes: String) {
            #expect(SourceSizeList(sizes).sourceSize(on: Self.frame) == 1000)
        }

        /// Paragraphs a–d: without `sizes`, the image chooses as with `sizes="100vw"`, not as with 300px.
        @Test("a–d: no sizes is 100vw", arguments: [[300, 301], [450, 451], [600, 601], [900, 901]] as [[Double]])
        func noSizesIs100vw(_ widths: [Double]) {
            let size = SourceSizeList(nil).sourceSize(on: Self.frame)
            #expect(size == SourceSizeList("100vw").sourceSize(on: Self.frame))
            #expect(size == 1000)
            #expect(Self.chosenWidth(among: widths, sourceSize: size) == widths[1])
        }

        /// The width descriptor a browser takes: the lowest density at or above the pixel ratio,
        /// else the highest (enough to tell WPT's two candidates apart).
        static func chosenWidth(among widths: [Double], sourceSize: Double) -> Double? {
            let densities = widths.map { (width: $0, density: $0 / max(sourceSize, .leastNonzeroMagnitude)) }
            let enough = densities.filter { $0.density >= frame.pixelRatio }.min { $0.density < $1.density }
            return (enough ?? densities.max { $0.density < $1.density })?.width
        }
    }

    @Suite("sizes on devices")
    struct SourceSizesOnDevicesTests {
        @Test("the first entry whose condition matches gives the size")
        func conditionsChooseTheEntry() {
            let sizes = SourceSizeList("(max-width: 600px) 100vw, (max-width: 1200px) calc(50vw - 2em), 33vw")
            #expect(sizes.sourceSize(on: phone) == 390)
            #expect(sizes.sourceSize(on: tablet) == 1180 / 2 - 32)
            #expect(abs(sizes.sourceSize(on: desktop) - 1920 * 0.33) < 1e-9)
        }

        @Test("auto counts only for a lazy image, and only first")
        func autoNeedsLazyLoadingAndToComeFirst() {
            #expect(SourceSizeList("auto", lazy: true).sourceSize(on: desktop, autoWidth: 300) == 300)
            #expect(SourceSizeList("AUTO, 50vw", lazy: true).sourceSize(on: desktop) == 1920)
            #expect(SourceSizeList("auto, 50vw", lazy: false).sourceSize(on: desktop, autoWidth: 300) == 960)
            #expect(SourceSizeList("(min-width: 0) auto, 10px", lazy: true).sourceSize(on: desktop, autoWidth: 300) == 10)
            #expect(SourceSizeList(" auto, 10px", lazy: true).sourceSize(on: desktop, autoWidth: 300) == 10)
        }

        @Test("calc(), min() and clamp() are worked out on the device, and a negative result is zero")
        func mathFunctionsClampAtZero() {
            #expect(SourceSizeList("calc(100px - 50vw)").sourceSize(on: phone) == 0)
            #expect(SourceSizeList("clamp(200px, 50vw, 600px)").sourceSize(on: phone) == 200)
            #expect(SourceSizeList("clamp(200px, 50vw, 600px)").sourceSize(on: desktop) == 600)
            #expect(SourceSizeList("min(100vw, 1200px)").sourceSize(on: desktop) == 1200)
            #expect(SourceSizeList("calc((100vw - 2 * 16px) / 3)").sourceSize(on: phone) == (390.0 - 32) / 3)
        }

        @Test("a math function must come to a length: numbers, percentages and products of lengths are invalid")
        func mathFunctionsAreTyped() {
            #expect(SourceSizeList("calc(1px + 1)").sourceSize(on: phone) == 390)
            #expect(SourceSizeList("calc(1px+1px)").sourceSize(on: phone) == 390)
            #expect(SourceSizeList("calc(1px * 2px)").sourceSize(on: phone) == 390)
            #expect(SourceSizeList("calc(50%)").sourceSize(on: phone) == 390)
            #expect(SourceSizeList("calc(2 * 10px)").sourceSize(on: phone) == 20)
        }

        @Test("100,000 nested brackets are read without recursing through them")
        func deepNestingIsReadWithoutRecursingThroughIt() {
            let deep = String(repeating: "(", count: 100_000) + "1px"
            #expect(SourceSizeList(deep + ", 1px").sourceSize(on: phone) == 390)
            let closed = String(repeating: "(", count: 100_000) + String(repeating: ")", count: 100_000)
            #expect(SourceSizeList(closed + " 100vw, 1px").sourceSize(on: phone) == 1)
        }
    }
}
