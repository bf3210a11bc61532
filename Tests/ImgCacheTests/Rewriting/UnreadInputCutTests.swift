import Foundation
import Testing
@testable import ImgCache
@testable import ImgCacheMarkup

/// The scanner takes text and long quoted attribute values out of libxml2's copy of the page
/// before libxml2 reads them, where the libxml2 it runs reads them the way the cut reproduces.
/// What the rewriter is told must not change: every element, where its tag is, what encloses it,
/// and (with a handler that cares about a few attribute names only) which attribute names libxml2
/// saw.
@Suite("Cutting text and long attribute values")
struct UnreadInputCutTests {
    static let long = String(repeating: "data:image/png;base64,iVBORw0KGgo", count: 2)
    /// Attribute names that make an element reported: whether one is hidden from libxml2 shows.
    static let someNames: Set<String> = ["src", "style", "href", "b", "x"]

    /// Compares with and without the shortcuts, with every attribute of interest and with some.
    @discardableResult
    static func expectSameReports(_ page: String) -> Int {
        let bytes = Array(page.utf8)
        let all = RawTextSkipTests.expectSameReports(bytes, page)
        RawTextSkipTests.expectSameReports(bytes, page, attributesOfInterest: someNames)
        return all.cut
    }

    @Test("values are cut where libxml2 would read them, and the version decides")
    func valuesAreCut() {
        let page = "<p class=a>x</p><img src=\"\(Self.long)\" alt='\(Self.long)'><img src=a.png title=\"short\">"
        let cut = Self.expectSameReports(page)
        #expect(cut == (LibXML2Runtime.allowsInputShortcuts ? 2 * Self.long.utf8.count : 0))
    }

    @Test("a paragraph libxml2 implies for text before a cut value is reported where the text is")
    func impliedParagraph() {
        // libxml2 opens a `p` for text outside any element, at the text, which has moved with
        // the tag after it: unmapped, that offset falls among the `>`s of the value.
        let page = "<br>x<img title=\"\(String(repeating: ">", count: 40))\" src=a.png><img src=b.png>"
        let cut = Self.expectSameReports(page)
        #expect(cut == (LibXML2Runtime.allowsInputShortcuts ? 40 : 0))
    }

    /// 120 bytes of text, and 1,200: more than libxml2 reads before handing text on.
    static let words = String(repeating: "lorem ipsum ", count: 10)
    static let longText = String(repeating: "lorem ipsum ", count: 100)

    @Test("text is cut after its first character that is not blank, long text only where no paragraph is implied")
    func textIsCut() {
        let cut = Self.expectSameReports("<div><p>\(Self.words)</p>  \(Self.words)<img src=a.png></div>")
        #expect(cut == (LibXML2Runtime.allowsInputShortcuts ? 2 * (Self.words.utf8.count - 1) : 0))
        let outside = Self.expectSameReports("<br>\(Self.longText)<img src=a.png>")
        #expect(outside == 0, "text of 1,000 bytes outside any element may imply a paragraph where libxml2's pieces end")
        let inside = Self.expectSameReports("<p>\(Self.longText)<img src=a.png>")
        #expect(inside == (LibXML2Runtime.allowsInputShortcuts ? Self.longText.utf8.count - 1 : 0))
    }

    @Test("edge cases: text where libxml2 implies paragraphs, blanks, references, characters of several bytes", arguments: [
        "\(words)<img src=a.png>",
        "\(longText)<img src=a.png><p>\(longText)</p>\(longText)<img src=b.png>",
        String(repeating: "a", count: 999) + ">" + String(repeating: "b", count: 500) + "<img src=\"\(long)\"><img src=c.png>",
        "<br>" + String(repeating: "a", count: 995) + ">" + String(repeating: "b", count: 500) + "<img src=\"\(long)\">",
        "<html><head>\(words)<title>t</title>\(longText)<link href=a.png></head>\(longText)<body>\(longText)<img src=b.png>",
        "<html>\(String(repeating: " ", count: 1200))x<img src=a.png>\(String(repeating: "\n", count: 40))<img src=b.png>",
        "<head>" + String(repeating: " ", count: 999) + "\u{C}" + String(repeating: " ", count: 40) + "<img src=a.png>",
        "<p>\(words)&amp;\(words)&\(words)&#60;\(words)<img src=a.png></p>",
        "<p>\(String(repeating: " ", count: 30))日本語の文章\(words)<img src=a.png><p>é\(words)</p>",
        "<p>\r\n\(words)\r\n\u{1}\u{8}\(words)>\(words)<img src=a.png>",
        "<p>\(words)</p><!-- c -->\(words)<!x>\(words)<?p ?>\(words)<a\(words)<img src=a.png>",
        "<div>\(words)</div>\(longText)<img src=a.png></body>\(longText)</html>\(longText)<img src=b.png>",
        "<ul><li>\(words)<li>\(longText)</ul>\(words)<table>\(words)<tr>\(words)<td>\(longText)<img src=a.png></table>",
        "<br/>\(longText)<img src=a.png/>\(longText)<hr>\(longText)<img src=b.png>",
        "<textarea>\(longText)<img src=a.png></textarea><title>\(words)<img src=\"\(long)\"></title>",
        "<p>\(words)",
        "<p>\(longText)",
    ])
    func textEdgeCases(page: String) {
        Self.expectSameReports(page)
    }

    @Test("edge cases: what values hold, how tags are written, what stands before the tag", arguments: [
        // What a value holds.
        "<a title=\"x>y \(long)\" href=a.png>t</a><img src=b.png>",
        "<a title=\"<img src=b.png> \(long)\" href=a.png><img src=c.png>",
        "<a title=\"</script><!-- \(long)\" href=a.png><script>x</script><img src=c.png>",
        "<a title=\"&amp;&#x3C;&lt&#60;&bogus; \(long)\" href=a.png><img src=c.png>",
        "<img alt=\"it's \(long)\" src='a.png'><img title='say \"\(long)\"' src=b.png>",
        "<img src=\(long) alt=x><img src=b.png>",
        "<img src=\"\(long)\"src=\"\(long)\"b='\(long)'x=\(long)><img src=c.png>",
        "<img src=\"\(long)\" src=\"\(long)\" style=\"\(long)\"><img src=c.png>",
        // How the tag is written.
        "<img \"x\"=\"\(long)\" src=a.png><img -x=\"\(long)\" src=b.png><img 1x=\"\(long)\" src=c.png>",
        "<img / src=\"\(long)\" /><img src=\"\(long)\"/ alt=x><img src=\"\(long)\"/><img src=d.png>",
        "<img \(String(repeating: "a", count: 100))=\"\(long)\" src=\"\(long)\"><img src=c.png>",
        "<img \(String(repeating: "a", count: 99))=\"\(long)\" src=\"\(long)\"><img src=c.png>",
        "<\(String(repeating: "x", count: 100)) src=\"\(long)\"><img src=c.png>",
        "<meta content=\"\(long)\" charset=\"utf-8\" src=\"\(long)\"><img src=c.png>",
        "<img\u{C}src=\"\(long)\"><img\tsrc\r\n=\n'\(long)'\r><img src=c.png>",
        "<p>x</p><img\u{C}src=\"a b=1 \(long)\"><img src=c.png>",
        "<img src = \"\(long)\" ><img src=><img src= x=\"\(long)\"><img src=c.png>",
        "<img _a=\"\(long)\" :b=\"\(long)\" .c=\"\(long)\" src=a.png><img src=c.png>",
        "<img src=\"\(long)",
        "<img src=\"\(long)\" alt=x",
        "<img src='\(long)\">\(long)<img src=b.png>",
        "<IMG SRC=\"\(long)\" Style=\"\(long)\"><img src=c.png>",
        // What stands before the tag.
        "<p>\(String(repeating: "text ", count: 400))<img src=\"\(long)\"><img src=c.png>",
        "<p>a < b <img src=\"\(long)\"><img src=c.png>",
        "<p>a <_x src=\"\(long)\"> <:y src=\"\(long)\"><img src=\"\(long)\"><img src=c.png>",
        "<p>x<1 src=\"\(long)\"><img src=\"\(long)\"><img src=c.png>",
        "<p>&amp;&lt;&#60;<img src=\"\(long)\"><img src=c.png>",
        "<!-- <img src=\"\(long)\"> --><img src=\"\(long)\"><img src=c.png>",
        "<p>x<!-- <a title=\"--><img src=a.png>\(long)\"> --><img src=c.png>",
        "<p>a</p><img src=\"\(long)\"></x><img src=\"\(long)\"><img src=c.png>",
        "<div><p>a</div><img src=\"\(long)\"><img src=c.png>",
        "<body><div><body class=\"\(long)\"><img src=\"\(long)\"><html lang=\"\(long)\"><img src=c.png>",
        "<div title=\"\(long)\"><script src=\"\(long)\">x</script><img src=\"\(long)\"><img src=c.png>",
        "<style><img src=\"\(long)\"></style><img src=\"\(long)\"><img src=c.png>",
        "<script><p title=\"</script>\(long)\"></script><img src=c.png>",
        "<textarea><img title=\"\(long)\" src=a.png></textarea><title><img src=\"\(long)\"></title><img src=c.png>",
        "<svg><image href=\"\(long)\"/><rect style=\"\(long)\"/></svg><img src=c.png>",
        "<xmp><img src=\"\(long)\"></xmp><plaintext><img src=\"\(long)\"><img src=c.png>",
        "<![CDATA[ <img src=\"\(long)\"> ]]><?php echo \"\(long)\" ?><img src=\"\(long)\"><img src=c.png>",
        "<!DOCTYPE html><html lang=\"\(long)\"><head><link href=\"\(long)\"></head><body style=\"\(long)\">",
        "<table><tr><td style=\"\(long)\"><img src=\"\(long)\"></table><img src=c.png>",
        "<ul><li style=\"\(long)\">a<li style=\"\(long)\">b</ul><p><p style=\"\(long)\"><img src=c.png>",
        "text<br><br style=\"\(long)\">more<img src=\"\(long)\"><img src=c.png>",
    ])
    func edgeCases(page: String) {
        Self.expectSameReports(page)
    }

    @Test("invalid UTF-8, legacy bytes and NULs in and around values")
    func invalidBytes() {
        let long = Array(Self.long.utf8)
        let pages: [[UInt8]] = [
            Array("<p>x</p><img src=\"".utf8) + long + [0xFF, 0xC3] + Array("\" alt=x><img src=c.png>".utf8),
            Array("<p>x</p><img src=\"".utf8) + [0xE9, 0x22, 0x00] + long + Array("\" alt=x><img src=c.png>".utf8),
            Array("<p>x</p>".utf8) + [0xC3] + Array("<img src=\"".utf8) + long + Array("\"><img src=c.png>".utf8),
        ]
        for page in pages {
            RawTextSkipTests.expectSameReports(page, "\(page)")
            RawTextSkipTests.expectSameReports(page, "\(page)", attributesOfInterest: Self.someNames)
        }
    }

    /// One pass over the real pages for both shortcuts, which the scanner takes together: each
    /// page read once, its reports compared with every attribute of interest and with some.
    @Test("the real pages report the same with script and style content skipped and text and values cut")
    func realPages() async throws {
        try await offPool {
            guard let pages = try RealPagesTests.pages() else {
                print("note: \(RealPagesTests.folder.path) is not here; the real-page check is skipped")
                return
            }
            var skipped = 0, cut = 0
            for page in pages {
                let bytes = try [UInt8](Data(contentsOf: RealPagesTests.folder.appendingPathComponent(page.path)))
                let all = RawTextSkipTests.expectSameReports(bytes, page.path)
                RawTextSkipTests.expectSameReports(bytes, page.path, attributesOfInterest: Self.someNames)
                skipped += all.skipped
                cut += all.cut
            }
            if LibXML2Runtime.allowsInputShortcuts {
                #expect(skipped > 1_000_000, "\(skipped) bytes skipped in all")
                #expect(cut > 5_000_000, "\(cut) bytes cut in all")
            }
        }
    }

    @Test("random markup built from the pieces that decide where values and tags end reports the same")
    func randomMarkup() async {
        let long = Self.long
        let pieces = [
            "<img src=\"\(long)\">", "<img src='\(long)'", "<a href=\(long)>", "<p style=\"\(long)\"", "<b x=\"\(long)\" src=a.png>",
            "<img", "<p", "<div", "<br", "<script>", "</script>", "<style>", "</style>", "<title>", "</title>", "<svg>", "</svg>",
            " src=", " b=", " x", "=", "\"", "'", "\(long)", "\"\(long)\"", "'\(long)'", ">", "/>", "/", " ", "\n", "\u{C}",
            "</p>", "</div>", "</b>", "<!--", "-->", "<!-- c -->", "<?x ?>", "<!DOCTYPE html>", "<![CDATA[", "<", "</", "<_",
            "<1", "&amp;", "&", "é", "x", "<meta charset=\"utf-8\" content=\"\(long)\">", "<body class=\"\(long)\">",
            "<html lang=\"\(long)\">", "\u{0}", "<head>", "<html>", "</html>", "</head>", "<body>", "</body>", "<li>", "<td>",
            "<table>", "<textarea>", "</textarea>", "\(Self.words)", "\(Self.words)", "\(Self.longText)", "   ", "\r\n", "日本", "&lt;",
        ]
        await offPool {
            var generator = EncodingFuzzGenerator(seed: 0xA77E_C075)
            var cut = 0
            for round in 0..<3_000 {
                let count = Int.random(in: 1...40, using: &generator)
                let page = (0..<count).map { _ in pieces.randomElement(using: &generator)! }.joined()
                let bytes = Array(page.utf8)
                cut += RawTextSkipTests.expectSameReports(bytes, "round \(round): \(page)").cut
                RawTextSkipTests.expectSameReports(bytes, "round \(round): \(page)", attributesOfInterest: Self.someNames)
            }
            if LibXML2Runtime.allowsInputShortcuts { #expect(cut > 100_000, "\(cut) bytes cut in all") }
        }
    }
}
