import Testing
@testable import ImgCache
@testable import ImgCacheMarkup

private func device(_ engine: DeviceProfile.Engine, ratio: Double = 1, imageTypes: Set<String>? = nil) -> DeviceProfile {
    DeviceProfile(viewportWidth: 400, viewportHeight: 800, pixelRatio: ratio, engine: engine, imageTypes: imageTypes)
}

/// The source sizes the tests' `sizes` attributes stand for, in CSS pixels; 400 (the viewport,
/// `100vw`) when absent.
private func sourceSize(_ sizes: String?) -> Double {
    let known: [String: Double] = ["1px": 1, "0.5px": 0.5, "200px": 200, "412px": 412]
    guard let sizes else { return 400 }
    guard let size = known[sizes] else {
        Issue.record("unexpected sizes \(sizes)")
        return 400
    }
    return size
}

private func choice(_ image: ResponsiveImage, _ device: DeviceProfile, rule: DensityRule? = nil,
                    matchesMedia: (String) -> Bool = { _ in true }) -> ImageChoice? {
    image.choice(for: device, rule: rule, matchesMedia: matchesMedia, sourceSize: sourceSize)
}

@Suite("select an image source")
struct ImageSelectionTests {
    /// web-platform-tests/wpt, html/semantics/embedded-content/the-img-element/srcset/select-an-image-source.html
    /// (read at 3545144a): every case, duplicate densities keeping the first. The file runs at
    /// the test machine's pixel ratio; one density is left in each case, so any ratio shows it.
    static let wptCases: [(image: ResponsiveImage, expected: String)] = [
        (ResponsiveImage(srcset: "data:,a 1x, data:,b 1x"), "data:,a"),
        (ResponsiveImage(srcset: "data:,a , data:,b 1x"), "data:,a"),
        (ResponsiveImage(srcset: "data:,a 1x, data:,b"), "data:,a"),
        (ResponsiveImage(srcset: "data:,a 1w, data:,b 1w"), "data:,a"),
        (ResponsiveImage(srcset: "data:,a 1w 1h, data:,b 1w"), "data:,a"),
        (ResponsiveImage(srcset: "data:,a 1w, data:,b 1w 1h"), "data:,a"),
        (ResponsiveImage(srcset: "data:,a 1w 1h, data:,b 1w 2h"), "data:,a"),
        (ResponsiveImage(srcset: "data:,a 1w 2h, data:,b 1w 1h"), "data:,a"),
        (ResponsiveImage(srcset: "data:,a , data:,b"), "data:,a"),
        (ResponsiveImage(srcset: "data:,a 1w, data:,b 1x", sizes: "1px"), "data:,a"),
        (ResponsiveImage(srcset: "data:,a 1x, data:,b 1w", sizes: "1px"), "data:,a"),
        (ResponsiveImage(srcset: "data:,a 1w, data:,b 2x", sizes: "0.5px"), "data:,a"),
        (ResponsiveImage(srcset: "data:,a 2x, data:,b 1w", sizes: "0.5px"), "data:,a"),
        // <picture><source srcset="data:,a 1x, data:,b 1x" /><img></picture>
        (ResponsiveImage(sources: [.init(srcset: "data:,a 1x, data:,b 1x")]), "data:,a"),
    ]

    @Test("web-platform-tests' select-an-image-source cases, with every engine's rule, at ratios 1, 2 and 3",
          arguments: DensityRule.allCases)
    func webPlatformTests(rule: DensityRule) {
        for (image, expected) in Self.wptCases {
            for ratio in [1.0, 2, 3] {
                #expect(choice(image, device(.webkit, ratio: ratio), rule: rule)?.url == expected, "\(image) at \(ratio)")
            }
        }
        #expect(choice(Self.wptCases.last!.image, device(.webkit))?.element == .source(0))
    }

    @Test("the chosen candidate says where its URL is in the srcset, and its density")
    func choiceDetails() throws {
        let image = ResponsiveImage(srcset: "small.jpg 200w, large.jpg 800w", sizes: "200px", src: "fallback.jpg")
        let chosen = try #require(choice(image, device(.webkit, ratio: 2)))
        #expect(chosen == ImageChoice(element: .img, url: "large.jpg", origin: .srcset(urlRange: 16..<25), density: 4))
        #expect(choice(image, device(.webkit, ratio: 1))?.density == 1)
    }

    @Test("the src is a 1x candidate, unless one is 1x already or any has a width")
    func srcAsOneX() {
        let twoX = ResponsiveImage(srcset: "b.jpg 2x", src: "a.jpg")
        #expect(choice(twoX, device(.webkit, ratio: 1)) == ImageChoice(element: .img, url: "a.jpg", origin: .src, density: 1))
        #expect(choice(twoX, device(.webkit, ratio: 2))?.url == "b.jpg")
        #expect(choice(twoX, device(.chromium, ratio: 1.5))?.url == "b.jpg")
        // A 1x candidate, written or not, comes first.
        #expect(choice(ResponsiveImage(srcset: "b.jpg 1x, c.jpg 2x", src: "a.jpg"), device(.webkit))?.url == "b.jpg")
        #expect(choice(ResponsiveImage(srcset: "c.jpg 2x, b.jpg", src: "a.jpg"), device(.webkit))?.url == "b.jpg")
        // A width descriptor leaves src out even when it would be the closest.
        #expect(choice(ResponsiveImage(srcset: "b.jpg 1600w", sizes: "200px", src: "a.jpg"), device(.webkit))?.url == "b.jpg")
        // No srcset, an empty one, or one of invalid candidates: src alone.
        for srcset in [nil, "", "b.jpg 2q"] as [String?] {
            #expect(choice(ResponsiveImage(srcset: srcset, src: "a.jpg"), device(.chromium, ratio: 3))?.origin == .src)
        }
        // An empty src is no candidate.
        #expect(choice(ResponsiveImage(srcset: "", src: ""), device(.webkit)) == nil)
        #expect(choice(ResponsiveImage(), device(.webkit)) == nil)
        #expect(choice(ResponsiveImage(srcset: "b.jpg 2x", src: ""), device(.webkit))?.url == "b.jpg")
    }

    @Test("widths become densities with the sizes of the element that has them")
    func widths() {
        let image = ResponsiveImage(srcset: "p400.jpg 400w, p800.jpg 800w, p1200.jpg 1200w", sizes: "412px")
        let expected: [Double: String] = [1: "p800.jpg", 1.5: "p800.jpg", 2: "p1200.jpg", 2.625: "p1200.jpg", 3: "p1200.jpg"]
        for engine in DeviceProfile.Engine.allCases {
            for (ratio, url) in expected {
                #expect(choice(image, device(engine, ratio: ratio))?.url == url, "\(engine) at \(ratio)")
            }
        }
        // 400w at 412px is 0.97x, below a ratio of 1, so 800w (1.94x) is the first at or above it.
        #expect(choice(ResponsiveImage(srcset: "p400.jpg 400w", sizes: "412px"), device(.webkit))?.density == Double(Float(400) / Float(412)))
    }
}

@Suite("engines' choices among densities")
struct SelectionEngineTests {
    static let ratios = [1.0, 1.5, 2, 2.625, 3]

    private func urls(_ srcset: String, _ rule: DensityRule) -> [String?] {
        Self.ratios.map { choice(ResponsiveImage(srcset: srcset), device(.chromium, ratio: $0), rule: rule)?.url }
    }

    @Test("WebKit and Chromium today take the first density at or above the ratio, else the densest")
    func firstAtOrAbove() {
        let srcset = "small.jpg 1x, medium.jpg 2x, large.jpg 4x"
        let expected = ["small.jpg", "medium.jpg", "medium.jpg", "large.jpg", "large.jpg"]
        #expect(urls(srcset, .webKit) == expected)
        #expect(urls(srcset, .blink) == expected)
        #expect(urls("a.jpg 0.5x, b.jpg 0.75x", .blink) == Array(repeating: "b.jpg", count: 5))
        #expect(DensityRule(.chromium) == .blink && DensityRule(.webkit) == .webKit)
        // Densities are compared as Float, as engines hold them: 1.3x is picked at a ratio of 1.3.
        #expect(choice(ResponsiveImage(srcset: "a.jpg 1x, b.jpg 1.3x, c.jpg 2x"), device(.webkit, ratio: 1.3))?.url == "b.jpg")
    }

    @Test("Blink's geometric-mean rule differs from WebKit's at 2.625 and 1.5, and agrees at 1, 2 and 3")
    func geometricMean() {
        // sqrt(2 × 4) = 2.83 is above 2.625: the 2x candidate; 3 is above it: the 4x one.
        #expect(urls("small.jpg 1x, medium.jpg 2x, large.jpg 4x", .blinkGeometricMean)
                == ["small.jpg", "medium.jpg", "medium.jpg", "medium.jpg", "large.jpg"])
        // sqrt(1 × 3) = 1.73 is above 1.5: the 1x candidate, where WebKit takes the 3x one.
        #expect(urls("a.jpg 1x, b.jpg 3x", .blinkGeometricMean) == ["a.jpg", "a.jpg", "b.jpg", "b.jpg", "b.jpg"])
        #expect(urls("a.jpg 1x, b.jpg 3x", .webKit) == ["a.jpg", "b.jpg", "b.jpg", "b.jpg", "b.jpg"])
        // At a ratio of at most 1, any lower density below the ratio gives way to the next one.
        #expect(choice(ResponsiveImage(srcset: "a.jpg 0.5x, b.jpg 4x"), device(.chromium, ratio: 1), rule: .blinkGeometricMean)?.url == "b.jpg")
        #expect(choice(ResponsiveImage(srcset: "a.jpg 0.5x, b.jpg 4x"), device(.chromium, ratio: 1.2), rule: .blinkGeometricMean)?.url == "a.jpg")
    }

    @Test("Chromium takes a denser data: candidate than the one it chose; WebKit does not")
    func denserDataURL() {
        let srcset = "a.jpg 1x, b.jpg 2x, data:,c 3x, d.jpg 4x"
        #expect(urls(srcset, .webKit) == ["a.jpg", "b.jpg", "b.jpg", "data:,c", "data:,c"])
        #expect(urls(srcset, .blink) == ["data:,c", "data:,c", "data:,c", "data:,c", "data:,c"])
        #expect(choice(ResponsiveImage(srcset: srcset), device(.chromium, ratio: 3.5))?.url == "d.jpg")
        // A data: candidate below the choice stays unchosen; the scheme is read in any case.
        #expect(urls("data:,a 1x, b.jpg 2x", .blink) == ["data:,a", "b.jpg", "b.jpg", "b.jpg", "b.jpg"])
        #expect(SourceSet.isDataURL(" DaTa:image/png;base64,AA") && !SourceSet.isDataURL("data.png") && !SourceSet.isDataURL("dat"))
    }
}

@Suite("picture sources")
struct SelectionPictureTests {
    static let noAVIF: Set<String> = ["image/jpeg", "image/png", "image/webp"]

    static let formats = ResponsiveImage(sources: [
        .init(type: "image/avif", srcset: "a.avif"),
        .init(type: "image/webp", srcset: "a.webp"),
    ], src: "a.jpg")

    @Test("a source of a type the device does not show is skipped")
    func typeFiltering() {
        #expect(choice(Self.formats, device(.chromium, imageTypes: Self.noAVIF)) == ImageChoice(
            element: .source(1), url: "a.webp", origin: .srcset(urlRange: 0..<6), density: 1))
        #expect(choice(Self.formats, device(.webkit))?.element == .source(0))
        #expect(choice(Self.formats, device(.webkit, imageTypes: ["image/jpeg"])) == ImageChoice(
            element: .img, url: "a.jpg", origin: .src, density: 1))
    }

    @Test("a type is its MIME type's essence: parameters, whitespace and case do not count; an empty type is any image")
    func typeSyntax() {
        let shown = device(.webkit, imageTypes: Self.noAVIF)
        for type in ["image/webp", " Image/WebP ", "image/webp; codecs=vp8", "image/webp;", "", "  "] {
            #expect(ResponsiveImage.isShown(type, by: shown), "\(type)")
        }
        for type in ["image/avif", "image/avif; q=1", "image/x-unknown", "webp"] {
            #expect(!ResponsiveImage.isShown(type, by: shown), "\(type)")
        }
        #expect(ResponsiveImage.isShown(nil, by: shown))
    }

    @Test("media is matched through the closure, in order; absent or blank media matches without asking")
    func mediaFiltering() {
        let image = ResponsiveImage(sources: [
            .init(media: "(min-width: 800px)", srcset: "wide.jpg"),
            .init(media: "(min-width: 400px)", srcset: "medium.jpg"),
            .init(media: "  ", srcset: "any.jpg"),
        ], src: "narrow.jpg")
        var asked: [String] = []
        let medium = choice(image, device(.chromium)) { asked.append($0); return $0 == "(min-width: 400px)" }
        #expect(medium?.element == .source(1) && medium?.url == "medium.jpg")
        #expect(asked == ["(min-width: 800px)", "(min-width: 400px)"])
        #expect(choice(image, device(.chromium)) { _ in false }?.element == .source(2))
        let noBlank = ResponsiveImage(sources: Array(image.sources.prefix(2)), src: "narrow.jpg")
        #expect(choice(noBlank, device(.webkit)) { _ in false } == ImageChoice(element: .img, url: "narrow.jpg", origin: .src, density: 1))
    }

    @Test("a source without candidates is skipped: no srcset, an empty one, or only invalid candidates")
    func emptySources() {
        let image = ResponsiveImage(sources: [
            .init(type: "image/webp"),
            .init(srcset: ""),
            .init(srcset: " , "),
            .init(srcset: "bad.jpg 1q, worse.jpg 2x 3x"),
            .init(srcset: "good.jpg 1x, better.jpg 2x"),
        ], src: "img.jpg")
        #expect(choice(image, device(.webkit, ratio: 2)) == ImageChoice(
            element: .source(4), url: "better.jpg", origin: .srcset(urlRange: 13..<23), density: 2))
    }

    @Test("the img is the fallback, with its srcset and src; a source's candidates never include src")
    func imgFallback() {
        let image = ResponsiveImage(sources: [.init(media: "print", srcset: "print.jpg")],
                                    srcset: "hi.jpg 2x", src: "lo.jpg")
        let notPrint: (String) -> Bool = { $0 != "print" }
        #expect(choice(image, device(.webkit, ratio: 1), matchesMedia: notPrint)?.url == "lo.jpg")
        #expect(choice(image, device(.webkit, ratio: 2), matchesMedia: notPrint)?.url == "hi.jpg")
        let source = ResponsiveImage(sources: [.init(srcset: "two.jpg 2x")], src: "one.jpg")
        #expect(choice(source, device(.webkit, ratio: 1))?.url == "two.jpg")
    }

    @Test("a source's widths use its own sizes")
    func sourceSizes() {
        let image = ResponsiveImage(sources: [.init(srcset: "s.jpg 200w, l.jpg 400w", sizes: "200px")],
                                    srcset: "x.jpg 400w", sizes: "412px")
        var asked: [String?] = []
        let chosen = image.choice(for: device(.webkit), matchesMedia: { _ in true }) { asked.append($0); return sourceSize($0) }
        #expect(chosen?.url == "s.jpg" && asked == ["200px"])
    }
}

@Suite("the image each device shows, media and sizes read as browsers read them")
struct SelectionPerDeviceTests {
    static let phone = DeviceProfile(viewportWidth: 390, viewportHeight: 844, pixelRatio: 3)
    static let tablet = DeviceProfile(viewportWidth: 820, viewportHeight: 1180, pixelRatio: 2)
    static let desktop = DeviceProfile(viewportWidth: 1280, viewportHeight: 800, pixelRatio: 1, engine: .chromium)

    @Test("an art-directed picture with AVIF, WebP and JPEG, and widths under sizes: each device gets its own, a device without AVIF the WebP")
    func artDirectionAndWidths() {
        let picture = ResponsiveImage(
            sources: [
                .init(media: "(min-width: 900px)", type: "image/avif", srcset: "wide-1280.avif 1280w, wide-2560.avif 2560w",
                      sizes: "(min-width: 1200px) 1200px, 100vw"),
                .init(type: "image/avif", srcset: "crop-400.avif 400w, crop-800.avif 800w, crop-1200.avif 1200w", sizes: "100vw"),
                .init(type: "image/webp", srcset: "crop-400.webp 400w, crop-800.webp 800w, crop-1200.webp 1200w", sizes: "100vw"),
            ],
            srcset: "crop-400.jpg 400w, crop-800.jpg 800w, crop-1200.jpg 1200w", sizes: "100vw", src: "crop-800.jpg")
        // A phone 390 px wide at 3x needs 1,170 pixels: the 1200w crop.
        #expect(picture.choice(for: Self.phone)?.url == "crop-1200.avif")
        // A tablet 820 px wide at 2x needs 1,640: none is that wide, so the widest crop.
        #expect(picture.choice(for: Self.tablet)?.url == "crop-1200.avif")
        // A desktop 1280 px wide takes the wide image at 1200 px and 1x: the 1280w one.
        #expect(picture.choice(for: Self.desktop)?.url == "wide-1280.avif")
        var noAVIF = Self.phone
        noAVIF.imageTypes.remove("image/avif")
        #expect(picture.choice(for: noAVIF)?.url == "crop-1200.webp")
        var onlyJPEG = Self.phone
        onlyJPEG.imageTypes = ["image/jpeg"]
        #expect(picture.choice(for: onlyJPEG)?.url == "crop-1200.jpg")
    }

    @Test("sizes with a media condition and calc(): a 50vw column on wide screens, the whole width on narrow ones")
    func sizesPerDevice() {
        let image = ResponsiveImage(srcset: "a-320.jpg 320w, a-640.jpg 640w, a-960.jpg 960w, a-1280.jpg 1280w",
                                    sizes: "(max-width: 600px) calc(100vw - 2rem), 50vw", src: "a-640.jpg")
        // (390 - 32) × 3 = 1,074 pixels: the 1280w image.
        #expect(image.choice(for: Self.phone)?.url == "a-1280.jpg")
        // 410 × 2 = 820: the 960w image.
        #expect(image.choice(for: Self.tablet)?.url == "a-960.jpg")
        // 640 × 1 = 640: the 640w image.
        #expect(image.choice(for: Self.desktop)?.url == "a-640.jpg")
    }
}
