import Testing
@testable import ImgCache

@Suite("CSS url()")
struct CSSTests {
    let base = "https://example.com/dir/"

    @Test("url() with and without quotes, image-set, style attributes and data-bg; never @import, comments or strings")
    func cssReferences() throws {
        let input = try Fixtures.bytes("rewrite/css.html")
        let result = rewrite(input)
        var expected = input
        for name in ["bg.png", "single.png", "double.png", "set1.png", "set2.png", "body.gif", "lazy-bg.jpg", "apos.jpg"] {
            expected = expected.replacing(name, with: localPath(base + name))
        }
        expected = expected
            .replacing("quoted.jpg", with: localPath(base + "quoted.jpg"))
            .replacing("esc\\(aped\\).png", with: localPath(base + "esc(aped).png"))
        expectSameBytes(result.bytes, expected)
        #expect(result.bytes.text.contains("@import url(imported.png);"))
        #expect(result.bytes.text.contains("@import \"imported2.png\";"))
        #expect(result.bytes.text.contains("url(commented.png)"))
        #expect(result.bytes.text.contains("\"url(not-a-url.png)\""))
        #expect(result.references.first { $0.original == "font.woff2" }?.skipReason == .unsupportedExtension)
    }

    @Test("the scanner reports decoded values and exact ranges")
    func scanner() {
        let css = Array("a{background:url( 'x y.png' )} b{background:URL(a\\20 b.png)}".unicodeScalars)
        let tokens = CSSURLScanner.scan(css)
        #expect(tokens.map(\.value) == ["x y.png", "a b.png"])
        #expect(tokens.map { String(String.UnicodeScalarView(css[$0.range])) } == ["x y.png", "a\\20 b.png"])
    }
}
