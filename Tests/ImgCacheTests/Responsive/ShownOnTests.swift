import Testing
@testable import ImgCache
@testable import ImgCacheURLs
@testable import ImgCacheMarkup

extension Responsive {
    @Suite("the devices each of a page's candidates is shown on")
    struct ShownOnTests {
        static let page = """
            <picture>
              <source media="(min-width: 900px)" srcset="wide-1280.jpg 1280w, wide-2560.jpg 2560w" sizes="100vw">
              <source type="image/avif" srcset="crop-400.avif 400w, crop-1200.avif 1200w" sizes="100vw">
              <img src="crop-800.jpg" srcset="crop-400.jpg 400w, crop-1200.jpg 1200w" sizes="100vw" alt="">
            </picture>
            <img src="logo.png" srcset="logo-2x.png 2x, logo-3x.png 3x">
            <img src="plain.png" style="background: url(bg.png)">
            """

        @Test("each candidate names the devices whose browser picks it; other references, and pages read without devices, say nothing")
        func choicesInAPage() {
            let onlyJPEG = DeviceProfile(viewportWidth: 390, viewportHeight: 844, pixelRatio: 1, imageTypes: ["image/jpeg", "image/png"],
                                         name: "old-phone")
            var options = RewriteOptions()
            options.devices = [phone, tablet, desktop, onlyJPEG]
            let result = ImageRewriter(options: options).references(in: Array(Self.page.utf8), pageURL: BrowserURL("https://example.com/"))
            let shown = Dictionary(uniqueKeysWithValues: result.references.map { ($0.original, $0.shownOn) })
            #expect(shown["wide-1280.jpg"] == [])
            // The tablet (1180 px at 2x) and the desktop (1920 px at 1x) match (min-width: 900px).
            #expect(shown["wide-2560.jpg"] == [tablet.description, desktop.description])
            #expect(shown["crop-1200.avif"] == [phone.description])
            #expect(shown["crop-400.avif"] == [])
            #expect(shown["crop-400.jpg"] == ["old-phone"], "390 px at 1x, and no AVIF")
            #expect(shown["crop-1200.jpg"] == [])
            #expect(shown["crop-800.jpg"] == [], "a srcset with widths leaves src out")
            #expect(shown["logo.png"] == [desktop.description, "old-phone"])
            #expect(shown["logo-2x.png"] == [tablet.description])
            #expect(shown["logo-3x.png"] == [phone.description])
            #expect(shown["plain.png"] == .some(nil), "an img without srcset or picture offers no choice")
            #expect(shown["bg.png"] == .some(nil))
            let plain = ImageRewriter(options: RewriteOptions()).references(in: Array(Self.page.utf8), pageURL: BrowserURL("https://example.com/"))
            #expect(plain.references.allSatisfy { $0.shownOn == nil })
            #expect(plain.bytes == result.bytes, "reading for devices changes nothing in the page")
        }
    }
}
