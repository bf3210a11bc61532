import Testing
@testable import ImgCache
@testable import ImgCacheMarkup

/// A device for the web-platform-tests' cases, which run at a pixel ratio of 1.
private func device(_ engine: DeviceProfile.Engine, ratio: Double = 1) -> DeviceProfile {
    DeviceProfile(viewportWidth: 400, viewportHeight: 800, pixelRatio: ratio, engine: engine)
}

/// The URL an `<img srcset>` (no `src`, no `sizes`) shows, or nil: what `currentSrc` is in the
/// web-platform-tests (nil for their empty string).
private func shown(_ srcset: String, rule: DensityRule) -> String? {
    ResponsiveImage(srcset: srcset)
        .choice(for: device(.chromium), rule: rule, matchesMedia: { _ in true }, sourceSize: { _ in 400 })?.url
}

@Suite("srcset candidates and their descriptors")
struct SelectionCandidateTests {
    /// web-platform-tests/wpt, html/semantics/embedded-content/the-img-element/srcset/parse-a-srcset-attribute.html
    /// (read at 704d739c): every `<img srcset>` there, with the `currentSrc` expected at a pixel
    /// ratio of 1 (nil for none). Its `data-resolve` cases (a character that is not ASCII
    /// whitespace around the URL, so that the whole attribute is the URL) expect the resolved
    /// whole attribute; resolving is the URL parser's part, so the whole attribute as written is
    /// expected here.
    static let wptCases: [(srcset: String, expected: String?)] = {
        let a = "data:,a", b = "data:,b", c = "data:,c"
        var cases: [(srcset: String, expected: String?)] = [
            // splitting loop
            ("", nil), (",", nil), (",,,", nil),
            ("  data:,a  1x  ", a),
            ("\t\tdata:,a\t\t1x\t\t", a),
            ("\n\ndata:,a\n\n1x\n\n", a),
            ("\u{B}\u{B}data:,a\u{B}\u{B}1x\u{B}\u{B}", "\u{B}\u{B}data:,a\u{B}\u{B}1x\u{B}\u{B}"),
            ("\u{C}\u{C}data:,a\u{C}\u{C}1x\u{C}\u{C}", a),
            ("\r\rdata:,a\r\r1x\r\r", a),
            ("\u{E}\u{E}data:,a\u{E}\u{E}1x\u{E}\u{E}", "\u{E}\u{E}data:,a\u{E}\u{E}1x\u{E}\u{E}"),
            ("\u{F}\u{F}data:,a\u{F}\u{F}1x\u{F}\u{F}", "\u{F}\u{F}data:,a\u{F}\u{F}1x\u{F}\u{F}"),
            ("\u{10}\u{10}data:,a\u{10}\u{10}1x\u{10}\u{10}", "\u{10}\u{10}data:,a\u{10}\u{10}1x\u{10}\u{10}"),
            ("data:,a", a), ("data:,a ", a), ("data:,a ,", a), ("data:,a,", a), ("data:,a, ", a), ("data:,a,,,", a),
            ("data:,a,, , ", a), (" data:,a", a), (",,,data:,a", a), (" , ,,data:,a", a),
            ("\u{A0}data:,a", "\u{A0}data:,a"), ("data:,a\u{A0}", "data:,a\u{A0}"),
            // descriptor tokenizer
            ("data:,a 1x", a), ("data:,a 1x ", a), ("data:,a 1x,", a),
            ("data:,a ( , data:,b 1x, ), data:,c", c),
            ("data:,a ((( , data:,b 1x, ), data:,c", c),
            ("data:,a [ , data:,b 1x, ], data:,c", b),
            ("data:,a { , data:,b 1x, }, data:,c", b),
            ("data:,a \" , data:,b 1x, \", data:,c", b),
            ("data:,a \\,data:;\\,b, data:,c", "data:;\\,b"),
            ("data:,a, data:,b (", a), ("data:,a, data:,b (  ", a), ("data:,a, data:,b (,", a),
            ("data:,a, data:,b (x", a), ("data:,a, data:,b ()", a),
            ("data:,a (, data:,b", nil),
            ("data:,a /*, data:,b, data:,c */", b),
            ("data:,a //, data:,b", b),
            // descriptor parser
            ("data:,a foo", nil), ("data:,a foo foo", nil), ("data:,a foo 1x", nil), ("data:,a foo 1x foo", nil),
            ("data:,a foo 1w", nil), ("data:,a foo 1w foo", nil), ("data:,a 1x 1x", nil), ("data:,a 1w 1w", nil),
            ("data:,a 1w 1x", nil), ("data:,a 1x 1w", nil),
            ("data:,a 1w 1h", a), ("data:,a 1h 1w", a),
            ("data:,a 1h 1h", nil), ("data:,a 1h 1x", nil), ("data:,a 1h 1w 1x", nil), ("data:,a 1x 1w 1h", nil),
            ("data:,a 1h", nil), ("data:,a 1h foo", nil), ("data:,a foo 1h", nil),
            ("data:,a 0w", nil), ("data:,a -1w", nil), ("data:,a 1w -1w", nil), ("data:,a 1.0w", nil),
            ("data:,a 1w 1.0w", nil), ("data:,a 1e0w", nil), ("data:,a 1w 1e0w", nil), ("data:,a 1www", nil),
            ("data:,a 1w 1www", nil), ("data:,a +1w", nil), ("data:,a 1w +1w", nil), ("data:,a 1W", nil),
            ("data:,a 1w 1W", nil), ("data:,a Infinityw", nil), ("data:,a 1w Infinityw", nil), ("data:,a NaNw", nil),
            ("data:,a 1w NaNw", nil), ("data:,a 0x1w", nil), ("data:,a 0X1w", nil),
            ("data:,a 0x", a), ("data:,a -0x", a), ("data:,a 1x -0x", nil), ("data:,a -1x", nil), ("data:,a 1x -1x", nil),
            ("data:,a 1e0x", a), ("data:,a 1E0x", a), ("data:,a 1e-1x", a), ("data:,a 1.5e1x", a),
            ("data:,a -x", nil), ("data:,a .x", nil), ("data:,a -.x", nil), ("data:,a 1.x", nil),
            ("data:,a .5x", a), ("data:,a .5e1x", a),
            ("data:,a 1x 1.5e1x", nil), ("data:,a 1x 1e1.5x", nil), ("data:,a 1.0x", a), ("data:,a 1x 1.0x", nil),
            ("data:,a +1x", nil), ("data:,a 1X", nil), ("data:,a Infinityx", nil), ("data:,a NaNx", nil),
            ("data:,a 0x1x", nil), ("data:,a 0X1x", nil),
            ("data:,a 1w 0h", nil), ("data:,a 1w -1h", nil), ("data:,a 1w 1.0h", nil), ("data:,a 1w 1e0h", nil),
            ("data:,a 1w 1hhh", nil), ("data:,a 1w +1h", nil), ("data:,a 1w 1H", nil), ("data:,a 1w Infinityh", nil),
            ("data:,a 1w NaNh", nil), ("data:,a 0x1h", nil), ("data:,a 0X1h", nil),
        ]
        // The file's "trailing U+…" and "leading U+…" cases: a character that is not ASCII
        // whitespace beside the number makes each descriptor invalid.
        let others: [UInt32] = [0x1, 0xA0, 0x1680] + Array(0x2000...0x200A) + [0x200C, 0x200D, 0x202F, 0x205F, 0x3000, 0xFEFF]
        for other in others.map({ String(Unicode.Scalar($0)!) }) {
            cases += [
                ("data:,a 1\(other)w", nil), ("data:,a \(other)1w", nil),
                ("data:,a 1\(other)x", nil), ("data:,a \(other)1x", nil),
                ("data:,a 1w 1\(other)h", nil), ("data:,a 1w \(other)1h", nil),
            ]
        }
        return cases
    }()

    @Test("web-platform-tests' parse-a-srcset-attribute cases, with every engine's rule", arguments: DensityRule.allCases)
    func webPlatformTests(rule: DensityRule) {
        #expect(Self.wptCases.count == 235)
        for (srcset, expected) in Self.wptCases {
            #expect(shown(srcset, rule: rule) == expected, "\(srcset.debugDescription)")
        }
    }

    @Test("descriptors are read as densities and widths; no descriptor is 1x")
    func descriptorValues() {
        let candidates = ImageCandidate.parse("a.png 1.5x, b.png 100w 50h, c.png, d.png 2e0x, e.png -0x,f.png 10h 20w, g.png,  h.png .5x")
        #expect(candidates.map(\.descriptor) == [
            .density(1.5), .width(100, height: 50), .density(1), .density(2), .density(0), .width(20, height: 10),
            .density(1), .density(0.5),
        ])
        #expect(candidates.map(\.url) == ["a.png", "b.png", "c.png", "d.png", "e.png", "f.png", "g.png", "h.png"])
        if case .density(let zero) = candidates[4].descriptor { #expect(zero.sign == .plus) }
    }

    @Test("URL ranges are scalar offsets into the attribute, past non-ASCII text")
    func urlRanges() {
        let srcset = "  é.png 1x,\tß/ü.png 2x"
        let scalars = Array(srcset.unicodeScalars)
        let candidates = ImageCandidate.parse(srcset)
        #expect(candidates.map(\.urlRange) == [2..<7, 12..<19])
        #expect(candidates.map { String(String.UnicodeScalarView(scalars[$0.urlRange])) } == ["é.png", "ß/ü.png"])
        #expect(candidates.map(\.descriptor) == [.density(1), .density(2)])
    }

    @Test("a URL ending with commas has no descriptors; commas inside a URL are the URL's")
    func commas() {
        // "2x" after the commas is the next candidate's URL, not a descriptor.
        #expect(ImageCandidate.parse("a.png,, 2x").map(\.descriptor) == [.density(1), .density(1)])
        #expect(ImageCandidate.parse("a.png,, 2x").map(\.url) == ["a.png", "2x"])
        #expect(ImageCandidate.parse("w_300,c_fill/a.jpg 300w,w_600,c_fill/a.jpg 600w").map(\.descriptor) == [
            .width(300, height: nil), .width(600, height: nil),
        ])
        #expect(ImageCandidate.parse("a.png 2x , b.png").map(\.descriptor) == [.density(2), .density(1)])
    }

    @Test("invalid candidates are left out and duplicates kept: the source set removes them once densities are known")
    func invalidAndDuplicates() {
        #expect(ImageCandidate.parse("a.png 1x, b.png 1q, c.png 1x, d.png 1x 2x").map(\.url) == ["a.png", "c.png"])
    }

    @Test("a width beyond 32 bits or an infinite density is dropped, as Blink and WebKit drop it")
    func outOfRange() {
        let srcset = "a.png 99999999999w, b.png 1e400x, c.png 100w 99999999999h, d.png 2147483647w, e.png 1e-400x"
        #expect(ImageCandidate.parse(srcset).map(\.url) == ["d.png", "e.png"])
        #expect(ImageCandidate.parse(srcset).map(\.descriptor) == [.width(2_147_483_647, height: nil), .density(0)])
        // SrcsetParser, which checks the syntax only, keeps all five.
        #expect(SrcsetParser.parse(Array(srcset.unicodeScalars)).filter(\.isValid).count == 5)
    }
}
