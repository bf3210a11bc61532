import Testing
@testable import ImgCache

@Suite("picture > source")
struct PictureSourceTests {
    let base = "https://example.com/dir/"

    @Test("every source of a picture counts, not only the first (libxml2 keeps HTML5 void elements open)")
    func everySource() {
        let html = """
            <picture><source media="(min-width: 900px)" srcset="a.png"><source srcset="b.png 1x, c.png 2x">\
            <source type="image/png" srcset="d.png"><img src="e.gif"></picture><p><img src=f.png></p>
            """
        let result = rewrite(html)
        #expect(result.references.filter { $0.kind == .sourceSrcset }.map(\.original) == ["a.png", "b.png", "c.png", "d.png"])
        var expected = Array(html.utf8)
        for name in ["a.png", "b.png", "c.png", "d.png", "e.gif", "f.png"] {
            expected = expected.replacing(name, with: localPath(base + name))
        }
        expectSameBytes(result.bytes, expected)
    }

    @Test("a source after a track or wbr, and a source outside picture")
    func otherVoidElements() {
        let html = "<picture><wbr><source srcset=a.png></picture><video><track src=t.vtt><source srcset=b.png></video>"
        let result = rewrite(html)
        #expect(result.references.filter { $0.kind == .sourceSrcset }.map(\.original) == ["a.png"])
    }
}
