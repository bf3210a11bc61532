import Foundation
import Testing
@testable import ImgCache
@testable import ImgCacheURLs
@testable import ImgCacheMarkup

@Suite("Stylesheet files")
struct StylesheetTests {
    let url = BrowserURL("https://example.com/app/css/site.css")!

    @Test("url() and image-set() images are rewritten against the stylesheet's URL; @import, fonts, comments and every other byte stay")
    func rewritesImagesOnly() {
        let css = """
            @charset "utf-8";
            @import url(print.css) print;
            @import "more.png";
            @font-face { src: url(../fonts/a.woff2) format("woff2"), url('../fonts/a.ttf'); }
            body{background:url( ../img/bg.png ) no-repeat}
            .i { background-image: -webkit-image-set("i1.jpg" 1x, url(i2.jpg) 2x); }
            .q { list-style: url("/abs/q.gif") }
            /* .c { background: url(commented.png) } */
            .e { content: url(data:image/png;base64,AAAA) }

            """
        let result = ImageRewriter().rewriteStylesheet(Array(css.utf8), url: url)
        let expected = css
            .replacingOccurrences(of: "../img/bg.png", with: localPath("https://example.com/app/img/bg.png"))
            .replacingOccurrences(of: "\"i1.jpg\"", with: "\"" + localPath("https://example.com/app/css/i1.jpg") + "\"")
            .replacingOccurrences(of: "url(i2.jpg)", with: "url(" + localPath("https://example.com/app/css/i2.jpg") + ")")
            .replacingOccurrences(of: "/abs/q.gif", with: localPath("https://example.com/abs/q.gif"))
        expectSameBytes(result.bytes, Array(expected.utf8))
        #expect(result.references.filter(\.rewritten).map(\.kind) == [.stylesheet, .stylesheet, .stylesheet, .stylesheet])
        #expect(!result.references.contains { $0.original.hasPrefix("../fonts/") }, "@font-face URLs are fonts, never images")
        #expect(result.references.contains { $0.original == "more.png" } == false, "@import is never an image")
        #expect(result.encodingSource == .charsetRule)
    }

    @Test("a stylesheet with no image, or none that can be resolved, comes back as it was")
    func unchanged() {
        let css = Array(".a { color: red } .b { background: url(x.png) }".utf8)
        let withoutURL = ImageRewriter().rewriteStylesheet(css, url: nil)
        #expect(withoutURL.bytes == css)
        #expect(withoutURL.warnings.contains { $0.description.contains("stylesheet's URL is not known") })
        #expect(ImageRewriter().rewriteStylesheet(Array(".a{}".utf8), url: url).bytes == Array(".a{}".utf8))
    }

    @Test("the encoding is found the CSS way: BOM, @charset, the linking page's, then UTF-8")
    func encodings() {
        let body: [UInt8] = Array(".a{background:url(caf".utf8) + [0xE9] + Array(".png)}".utf8)
        let latin = "https://example.com/app/css/caf%C3%A9.png"
        // @charset: read as windows-1252, so the é is U+00E9 (CSS URLs are UTF-8 encoded).
        let declared = ImageRewriter().rewriteStylesheet(Array("@charset \"windows-1252\";".utf8) + body, url: url)
        #expect(declared.references.first?.url == latin)
        #expect(declared.encoding == .windows1252)
        // No declaration: the linking page's encoding; without one, UTF-8 (the lone byte becomes U+FFFD).
        let referred = ImageRewriter().rewriteStylesheet(body, url: url, referringEncoding: .windows1252)
        #expect(referred.references.first?.url == latin)
        #expect(referred.encodingSource == .referringDocument)
        let alone = ImageRewriter().rewriteStylesheet(body, url: url)
        #expect(alone.references.first?.url == "https://example.com/app/css/caf%EF%BF%BD.png")
        #expect(alone.encodingSource == .cssDefault)
        // @charset "utf-16" in an ASCII-compatible file means UTF-8.
        let utf16Rule = [UInt8]("@charset \"utf-16\";".utf8).withUnsafeBufferPointer { StylesheetEncoding.determine($0, referringDocument: nil) }
        #expect(utf16Rule.encoding == .utf8)
        // The rule must be exact: lowercase, one space, double quotes.
        #expect([UInt8]("@CHARSET \"gbk\";".utf8).withUnsafeBufferPointer { StylesheetEncoding.charsetLabel($0) } == nil)
        #expect(StylesheetEncoding.needsReferringEncoding(body))
        #expect(!StylesheetEncoding.needsReferringEncoding(Array(".a{background:url(x.png)}".utf8)))
    }

    @Test("a UTF-16 stylesheet (BOM) is rewritten and stays UTF-16")
    func utf16() throws {
        let text = "\u{FEFF}.a{background:url(ü.png)}"
        var bytes: [UInt8] = []
        for unit in text.utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        let result = ImageRewriter().rewriteStylesheet(bytes, url: url)
        #expect(result.encoding == .utf16LE)
        let path = localPath("https://example.com/app/css/%C3%BC.png")
        var expected: [UInt8] = []
        for unit in "\u{FEFF}.a{background:url(\(path))}".utf16 { expected += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        expectSameBytes(result.bytes, expected)
    }

    @Test("images the site already has are left alone and reported as site files")
    func siteFiles() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path("app/img"), withIntermediateDirectories: true)
        try folder.write("app/img/logo.png", "png")
        let site = try SiteTree(root: folder.path("app"), baseURL: BrowserURL("https://example.com/app/"))
        let css = Array(".a{background:url(../img/logo.png)} .b{background:url(../img/remote.png)}".utf8)
        let rewriter = ImageRewriter()
        let result = rewriter.render(rewriter.scan(css, as: .stylesheet(referringEncoding: nil), url: url, site: site))
        #expect(result.references.map(\.skipReason) == [.siteFile, nil])
        #expect(result.bytes.text.contains("url(../img/logo.png)"))
        #expect(!result.bytes.text.contains("remote.png"))
    }

    @Test("a page lists the stylesheets it links, resolved")
    func linkedStylesheets() {
        let page = "<link rel=stylesheet href=a.css><link rel='alternate stylesheet' href=/b.css><link rel=icon href=i.png><textarea><link rel=stylesheet href=no.css></textarea>"
        #expect(rewrite(page).linkedStylesheets == ["https://example.com/dir/a.css", "https://example.com/b.css"])
    }
}
