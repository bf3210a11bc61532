import Testing
@testable import ImgCache
@testable import ImgCacheURLs
@testable import ImgCacheMarkup

extension Responsive {
    @Suite("rewriting for devices: only the candidates some device shows are left in the page")
    struct KeepingShownCandidatesTests {
        static let pageURL = BrowserURL("https://example.com/")

        /// 390 px wide at 1x, and 1280 px at 2x.
        static let small = DeviceProfile(viewportWidth: 390, viewportHeight: 844, pixelRatio: 1, name: "small")
        static let large = DeviceProfile(viewportWidth: 1280, viewportHeight: 800, pixelRatio: 2, name: "large")
        static let onlyJPEG = DeviceProfile(viewportWidth: 390, viewportHeight: 844, pixelRatio: 2, imageTypes: ["image/jpeg"], name: "old")

        private func rewrite(_ page: String, for devices: [DeviceProfile], pageURL: BrowserURL? = pageURL) -> RewriteResult {
            var options = RewriteOptions()
            options.devices = devices
            return ImageRewriter(options: options).rewrite(Array(page.utf8), pageURL: pageURL)
        }

        /// The local path the page now gives `original`'s image.
        private func local(_ original: String, in result: RewriteResult) -> String {
            result.references.first { $0.original == original && $0.rewritten }?.localPath ?? "(not rewritten: \(original))"
        }

        @Test("widths: the candidates no device picks go with their descriptors and commas; a src that is also kept stays")
        func widths() {
            let page = #"<img src="a-640.jpg" srcset="a-320.jpg 320w, a-640.jpg 640w,a-1280.jpg 1280w , a-2560.jpg 2560w" sizes="100vw" alt="">"#
            let result = rewrite(page, for: [Self.small, Self.large])
            let a640 = local("a-640.jpg", in: result), a2560 = local("a-2560.jpg", in: result)
            #expect(String(decoding: result.bytes, as: UTF8.self)
                == #"<img src="\#(a640)" srcset="\#(a640) 640w, \#(a2560) 2560w" sizes="100vw" alt="">"#)
            let dropped = result.references.filter { $0.disposition == .notShown }.map(\.original)
            #expect(dropped == ["a-320.jpg", "a-1280.jpg"])
            #expect(result.references.first { $0.original == "a-2560.jpg" }?.shownOn == ["large"])
            // The page as rewritten offers each device what it picked before.
            let again = rewrite(String(decoding: result.bytes, as: UTF8.self), for: [Self.small, Self.large])
            #expect(again.references.filter { $0.shownOn == ["small"] }.map(\.original) == [a640])
            #expect(again.references.filter { $0.shownOn == ["large"] }.map(\.original) == [a2560])
        }

        @Test("densities: whichever candidates are kept, the srcset stays well formed")
        func densitiesKeptInEveryPattern() {
            let page = #"<img srcset=" a.png 1x,b.png 2x ,  c.png 3x ">"#
            let one = DeviceProfile(viewportWidth: 400, viewportHeight: 800, pixelRatio: 1, name: "one")
            let two = DeviceProfile(viewportWidth: 400, viewportHeight: 800, pixelRatio: 2, name: "two")
            let three = DeviceProfile(viewportWidth: 400, viewportHeight: 800, pixelRatio: 3, name: "three")
            let cases: [([DeviceProfile], (RewriteResult) -> String)] = [
                ([one], { r in #"<img srcset=" \#(local("a.png", in: r)) 1x">"# }),
                ([two], { r in #"<img srcset="\#(local("b.png", in: r)) 2x">"# }),
                ([three], { r in #"<img srcset="\#(local("c.png", in: r)) 3x ">"# }),
                ([one, three], { r in #"<img srcset=" \#(local("a.png", in: r)) 1x, \#(local("c.png", in: r)) 3x ">"# }),
                ([two, three], { r in #"<img srcset="\#(local("b.png", in: r)) 2x ,  \#(local("c.png", in: r)) 3x ">"# }),
                ([one, two, three], { r in
                    #"<img srcset=" \#(local("a.png", in: r)) 1x,\#(local("b.png", in: r)) 2x ,  \#(local("c.png", in: r)) 3x ">"# }),
            ]
            for (devices, expected) in cases {
                let result = rewrite(page, for: devices)
                #expect(String(decoding: result.bytes, as: UTF8.self) == expected(result), "\(devices.map(\.description))")
            }
        }

        @Test("a picture: the source no device takes is emptied (inert), the src no device shows points at a kept image")
        func pictureSources() {
            let page = """
                <picture><source type="image/avif" srcset="p.avif 1x, p2.avif 2x"><source type="image/webp" srcset="p.webp"><img src="p.jpg" alt=""></picture>
                """
            let result = rewrite(page, for: [Self.large])
            let avif2 = local("p2.avif", in: result)
            let prefix = "images/"
            #expect(avif2.hasPrefix(prefix))
            #expect(String(decoding: result.bytes, as: UTF8.self) == """
                <picture><source type="image/avif" srcset="\(avif2) 2x"><source type="image/webp" srcset=""><img src="\(avif2)" alt=""></picture>
                """)
            #expect(result.references.filter { $0.disposition == .notShown }.map(\.original) == ["p.avif", "p.webp", "p.jpg"])
            #expect(!result.references.contains { $0.disposition == .notShown && $0.wantsImage }, "a dropped candidate is not fetched")

            // A device that shows neither AVIF nor WebP keeps the JPEG, and no source is taken for it.
            let both = rewrite(page, for: [Self.large, Self.onlyJPEG])
            #expect(String(decoding: both.bytes, as: UTF8.self) == """
                <picture><source type="image/avif" srcset="\(avif2) 2x"><source type="image/webp" srcset=""><img src="\(local("p.jpg", in: both))" alt=""></picture>
                """)
        }

        @Test("an image no device has a usable candidate for, and a page read without devices, are left as they are")
        func leftAlone() {
            let page = #"<img src="a.jpg" srcset="a.jpg 1x, b.jpg 2x"><img srcset="x.jxl 1x, y.jxl 2x">"#
            // Relative URLs and no page URL: no candidate is there offline, so none is chosen or dropped.
            let unresolved = rewrite(page, for: [Self.large], pageURL: nil)
            #expect(unresolved.bytes == Array(page.utf8))
            #expect(unresolved.references.allSatisfy { $0.shownOn == [] })
            // JPEG XL is not localised: its image keeps both candidates. The other loses its 1x,
            // and its src, which would be the 1x then, becomes the 2x image.
            let result = rewrite(page, for: [Self.large])
            #expect(String(decoding: result.bytes, as: UTF8.self)
                == #"<img src="\#(local("b.jpg", in: result))" srcset="\#(local("b.jpg", in: result)) 2x"><img srcset="x.jxl 1x, y.jxl 2x">"#)
            let plain = ImageRewriter(options: RewriteOptions()).rewrite(Array(page.utf8), pageURL: Self.pageURL)
            #expect(plain.references.allSatisfy { $0.shownOn == nil && $0.disposition != .notShown })
        }

        @Test("a candidate that is not there (a failed download) is not chosen: the device takes the one it would pick without it")
        func failedCandidateIsReplaced() {
            let page = #"<img srcset="a-640.jpg 640w, a-1280.jpg 1280w, a-2560.jpg 2560w" sizes="100vw">"#
            var options = RewriteOptions()
            options.devices = [Self.large]
            let rewriter = ImageRewriter(options: options)
            let scan = rewriter.scan(Array(page.utf8), url: Self.pageURL)
            let result = rewriter.render(scan, availability: .everyTypedImage(failedURLs: ["https://example.com/a-2560.jpg"]))
            #expect(String(decoding: result.bytes, as: UTF8.self)
                == #"<img srcset="\#(local("a-1280.jpg", in: result)) 1280w" sizes="100vw">"#)
            #expect(result.references.map(\.shownOn) == [[], ["large"], []])
        }

        @Test("a failed candidate is passed over whether its URL has a fragment or names no format (its bytes were to name it)")
        func failedCandidatesOfEveryKind() {
            var options = RewriteOptions()
            options.devices = [Self.large]
            let rewriter = ImageRewriter(options: options)
            func shown(_ page: String, failing url: String) -> [[String]?] {
                let scan = rewriter.scan(Array(page.utf8), url: Self.pageURL)
                return rewriter.render(scan, availability: .everyTypedImage(failedURLs: [url])).references.map(\.shownOn)
            }
            #expect(shown(#"<img srcset="a-640.jpg 640w, a-2560.jpg#top 2560w" sizes="100vw">"#,
                          failing: "https://example.com/a-2560.jpg") == [["large"], []])
            #expect(shown(#"<img srcset="/photo/640 640w, /photo/2560 2560w" sizes="100vw">"#,
                          failing: "https://example.com/photo/2560") == [["large"], []])
        }

        @Test("the listing says what rewriting for devices drops, and changes nothing")
        func listing() {
            let page = #"<img srcset="a.png 1x, b.png 2x">"#
            var options = RewriteOptions()
            options.devices = [Self.large]
            let listed = ImageRewriter(options: options).references(in: Array(page.utf8), pageURL: Self.pageURL)
            #expect(listed.bytes == Array(page.utf8))
            #expect(listed.references.map(\.disposition.code) == ["not-shown", nil])
        }

        @Test("a relative candidate dropped under a <base> is not made absolute: it is gone")
        func droppedUnderBase() {
            let page = #"<base href="https://cdn.example.com/img/"><img srcset="a.png 1x, b.png 2x"><a href="x.html">x</a>"#
            let result = rewrite(page, for: [Self.large])
            let text = String(decoding: result.bytes, as: UTF8.self)
            #expect(text == #"<base href=""><img srcset="\#(local("b.png", in: result)) 2x"><a href="https://cdn.example.com/img/x.html">x</a>"#)
        }
    
        @Test("a lazy loader's attributes (data-srcset, data-src, data-sizes=auto) are chosen among as the srcset, src and sizes it makes")
        func lazyAttributes() {
            let page = """
                <picture><source type="image/webp" data-srcset="l-400.webp 400w, l-800.webp 800w" data-sizes="auto">\
                <img src="data:image/gif;base64,R0lGOD" data-src="l-800.jpg" data-srcset="l-400.jpg 400w, l-800.jpg 800w" data-sizes="auto"></picture>
                """
            let result = rewrite(page, for: [Self.small])
            let webp = local("l-400.webp", in: result)
            #expect(String(decoding: result.bytes, as: UTF8.self) == """
                <picture><source type="image/webp" data-srcset="\(webp) 400w" data-sizes="auto">\
                <img src="data:image/gif;base64,R0lGOD" data-src="\(webp)" data-srcset="" data-sizes="auto"></picture>
                """)
            #expect(result.references.filter { $0.disposition == .notShown }.map(\.original) == ["l-800.webp", "l-800.jpg", "l-400.jpg", "l-800.jpg"])
        }
    
        @Test("a responsive preload keeps the candidate the devices show, as the img it is for does")
        func preload() {
            let page = """
                <link rel=preload as=image href="h-640.jpg" imagesrcset="h-640.jpg 640w, h-1280.jpg 1280w" imagesizes="100vw">\
                <img src="h-640.jpg" srcset="h-640.jpg 640w, h-1280.jpg 1280w" sizes="100vw">
                """
            let result = rewrite(page, for: [Self.large])
            let large = local("h-1280.jpg", in: result)
            #expect(String(decoding: result.bytes, as: UTF8.self) == """
                <link rel=preload as=image href="\(large)" imagesrcset="\(large) 1280w" imagesizes="100vw">\
                <img src="\(large)" srcset="\(large) 1280w" sizes="100vw">
                """)
        }
    
        @Test("a src no device shows stays, and is fetched, when the devices show only an inline placeholder: no kept image is local")
        func srcBesideAPlaceholder() {
            let page = #"<picture><source srcset="data:image/gif;base64,R0lGOD 1w" data-srcset="p-800.jpg 800w"><img src="p-lq.jpg"></picture>"#
            let result = rewrite(page, for: [Self.small])
            #expect(String(decoding: result.bytes, as: UTF8.self)
                == #"<picture><source srcset="data:image/gif;base64,R0lGOD 1w" data-srcset="\#(local("p-800.jpg", in: result)) 800w"><img src="\#(local("p-lq.jpg", in: result))"></picture>"#)
            #expect(result.references.first { $0.original == "p-lq.jpg" }?.wantsImage == true)
        }
    }
}
