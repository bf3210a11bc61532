import Testing
@testable import ImgCache

@Suite("<base href>")
struct BaseElementTests {
    @Test("an absolute base: images resolve against it, the base is emptied, other relative URLs become absolute")
    func absoluteBase() throws {
        let input = try Fixtures.bytes("rewrite/base-absolute.html")
        let result = rewrite(input)
        let assets = "https://cdn.example.com/assets/"
        let expected = input
            .replacing("<base href=\"https://cdn.example.com/assets/\">", with: "<base href=\"\">")
            .replacing("\"site.css\"", with: "\"\(assets)site.css\"")
            .replacing("\"app.js\"", with: "\"\(assets)app.js\"")
            .replacing("\"page2.html\"", with: "\"\(assets)page2.html\"")
            .replacing("\"#top\"", with: "\"\(assets)#top\"")
            .replacing("\"img/logo.png\"", with: "\"\(localPath(assets + "img/logo.png"))\"")
            .replacing("\"img/photo.jxl\"", with: "\"\(assets)img/photo.jxl\"")
            .replacing("\"submit\"", with: "\"\(assets)submit\"")
        expectSameBytes(result.bytes, expected)
        #expect(result.bytes.text.contains("\"https://other.example/x\""))
        #expect(result.warnings.contains { $0.description.contains("<base href>") })
        #expect(result.warnings.contains { if case .baseEmptied = $0 { true } else { false } })
    }

    @Test("a relative base resolves against the page URL; unquoted values stay valid")
    func relativeBase() throws {
        let input = try Fixtures.bytes("rewrite/base-relative.html")
        let result = rewrite(input, pageURL: "https://example.com/a/b/page.html")
        let staticBase = "https://example.com/a/static/"
        let expected = input
            .replacing("'../static/'", with: "''")
            .replacing("src=pic.png", with: "src=" + localPath(staticBase + "pic.png"))
            .replacing("href=about.html", with: "href=\(staticBase)about.html")
            .replacing("url(tile.png)", with: "url(\(localPath(staticBase + "tile.png")))")
        expectSameBytes(result.bytes, expected)
    }

    @Test("a URL naming a special scheme without // (http:page.html) is made absolute too: it is relative only against a base of that scheme")
    func schemeRelativeURLs() {
        let input = "<base href=\"https://cdn.example.com/\"><img src=\"http://a.example/p.png\"><a href=\"http:page2.html\">2</a><a href=\"https://x.example/\">x</a>"
        let result = rewrite(input, pageURL: "http://example.com/dir/page.html")
        let expected = Array(input.utf8)
            .replacing("<base href=\"https://cdn.example.com/\">", with: "<base href=\"\">")
            .replacing("\"http://a.example/p.png\"", with: "\"\(localPath("http://a.example/p.png"))\"")
            .replacing("\"http:page2.html\"", with: "\"http://page2.html/\"")
        expectSameBytes(result.bytes, expected)
    }

    @Test("a page with a base but nothing rewritten is not touched at all")
    func baseWithoutImages() throws {
        let input = try Fixtures.bytes("rewrite/base-no-images.html")
        #expect(rewrite(input).bytes == input)
    }
}
