import Testing
@_spi(Fuzzing) @testable import ImgCache
@testable import ImgCacheMarkup

/// Browsers look for `<meta charset>` in the first 1024 bytes only; rewriting must not move a
/// declaration across that line, or the local copy reads in another encoding.
@Suite("<meta charset> stays where browsers look for it")
struct EncodingDeclarationWindowTests {
    /// `<link rel=icon href=ICON>`, filler up to `metaAt`, `<meta charset=shift_jis>`, then `body`.
    private func page(icon: String, metaAt: Int, body: String) -> [UInt8] {
        let head = "<html><head><link rel=icon href=\"\(icon)\">"
        let filler = "<p>" + String(repeating: "x", count: metaAt - head.utf8.count - 7) + "</p>"
        return Array((head + filler + "<meta charset=\"shift_jis\"></head><body>" + body + "</body></html>\n").utf8)
    }

    private func prescan(_ bytes: [UInt8]) -> HTMLEncoding? {
        bytes.withUnsafeBufferPointer { MetaCharsetPrescan.prescan($0) }
    }

    @Test("an image before a declaration near byte 1024 is left as it was; the rest of the page is rewritten")
    func growingReferenceKeepsTheStart() {
        let input = page(icon: "http://a.example/b.png", metaAt: 990, body: "<img src=\"http://a.example/c.png\">")
        #expect(prescan(input)?.name == "Shift_JIS")
        let result = rewrite(input, pageURL: nil)
        #expect(prescan(result.bytes)?.name == "Shift_JIS")
        #expect(result.references.map(\.rewritten) == [false, true])
        expectSameBytes(result.bytes, input.replacing("\"http://a.example/c.png\"", with: "\"\(localPath("http://a.example/c.png"))\""))
        #expect(result.warnings.contains { $0.description.contains("1 image URL was left as it was in the page's first 1024 bytes") })
    }

    @Test("a long URL whose local path would pull a later declaration into the first 1024 bytes is left as it was")
    func shrinkingReferenceKeepsTheStart() {
        let long = "http://a.example/" + String(repeating: "d", count: 200) + ".png"
        let input = page(icon: long, metaAt: 1040, body: "<img src=\"http://a.example/c.png\">")
        #expect(prescan(input) == nil)
        let result = rewrite(input, pageURL: nil)
        #expect(prescan(result.bytes) == nil)
        #expect(result.references.map(\.rewritten) == [false, true])
    }

    @Test("with a <base>, which must be emptied for any local path, the whole page is left unchanged")
    func pageWithBaseIsLeftUnchanged() {
        let input = page(icon: "b.png", metaAt: 990, body: "<base href=\"http://a.example/\"><img src=\"c.png\">")
        let result = rewrite(input, pageURL: "http://a.example/page.html")
        expectSameBytes(result.bytes, input)
        #expect(result.rewrittenReferences.isEmpty)
        #expect(result.warnings.contains { $0.description.contains("it was left unchanged") })
    }
}
