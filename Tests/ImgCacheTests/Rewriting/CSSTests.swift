import Testing
@testable import ImgCache
@testable import ImgCacheURLs
@testable import ImgCacheMarkup

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
        #expect(!result.references.contains { $0.original == "font.woff2" }, "a font is never an image reference")
    }

    @Test("the scanner reports decoded values and exact ranges")
    func scanner() {
        let css = Array("a{background:url( 'x y.png' )} b{background:URL(a\\20 b.png)}".unicodeScalars)
        let tokens = CSSURLScanner.scan(css)
        #expect(tokens.map(\.value) == ["x y.png", "a b.png"])
        #expect(tokens.map { String(String.UnicodeScalarView(css[$0.range])) } == ["x y.png", "a\\20 b.png"])
    }

    @Test("the scanner tells which property a URL is a value of, and marks @import and @font-face URLs")
    func scannerContext() {
        let css = Array("""
            @import url(a.css); .a { background : #fff url(bg.png); LIST-STYLE-IMAGE: url(l.gif) }
            @media print { @font-face { font-family: X; src: url(f.png) format("png") } .b { content: url(c.jpg) } }
            .c:hover{border-image:url(b.png) 30}
            """.unicodeScalars)
        let tokens = CSSURLScanner.scan(css)
        #expect(tokens.map(\.value) == ["a.css", "bg.png", "l.gif", "f.png", "c.jpg", "b.png"])
        #expect(tokens.map(\.property) == [nil, "background", "list-style-image", "src", "content", "border-image"])
        #expect(tokens.map(\.isNeverImage) == [true, false, false, true, false, false])
        // A style attribute is a declaration list: the property starts it.
        #expect(CSSURLScanner.scan(Array("background-image:url(x.png)".unicodeScalars)).first?.property == "background-image")
    }

    @Test("a function is known by the name right before its parenthesis, wherever a value or a selector puts it", arguments: [
        ("a{b:x url(a.png)}", ["a.png"], "b"),
        ("a{b:x\\\\url(f.png)}", ["f.png"], "b"),  // an escaped backslash, then url(
        ("a{b:@url(j.png)}", [], nil),  // an at-keyword, not a function
        ("a{b:ur\\l(e.png)}", [], nil),  // the escape takes the l: the name before ( is not url
        ("a{b:\\uurl(r.png)}", ["r.png"], "b"),  // the escape takes the first u: the name is url
        ("a{b:x\\75 rl(m.png)}", [], nil),
        ("a{b:xurl(i.png)}", [], nil),
        ("a{b:k(l.png)}", [], nil),
        ("a{b:/**/url(c.png)}", ["c.png"], "b"),
        ("a{b:'x'url(d.png)}", ["d.png"], "b"),
        ("a{b:cubic-bezier(.2,.8)url(g.png)}", ["g.png"], "b"),
        ("a{b:x -webkit-image-set('h.png' 1x, \"h2.png\" 2x)}", ["h.png", "h2.png"], "b"),
        ("url(s.png){b:k(l.png)}", ["s.png"], nil),
        ("a{ /* c */ Background : x url(n.png) y; c: url(p.png)}", ["n.png", "p.png"], "c"),
        ("a{b:\u{E9} url(o.png)}", ["o.png"], "b"),
        // The property is the name that starts the URL's declaration, after blanks, comments and parentheses only.
        ("a{*zoom:1;b:url(q.png)}", ["q.png"], "b"),
        ("a{b:c;\n/* d:e */ (f) : url(w.png)}", ["w.png"], nil),
        ("a{b:c;\n/* d:e */ () F : url(w.png)}", ["w.png"], "f"),
        ("a{'s' b:url(u.png)}", ["u.png"], nil),
        ("a{b:url(v.png) c:url(x.png)}", ["v.png", "x.png"], "b"),
    ] as [(String, [String], String?)])
    func functionsWhereverTheyStand(css: String, urls: [String], lastProperty: String?) {
        let fromScalars = CSSURLScanner.scan(Array(css.unicodeScalars))
        #expect(fromScalars.map(\.value) == urls)
        #expect(fromScalars.last?.property == lastProperty)
        if css.utf8.allSatisfy({ $0 < 0x80 }) {
            let fromBytes = Array(css.utf8).withUnsafeBufferPointer { CSSURLScanner.scan($0) }
            #expect(fromBytes == fromScalars)
        }
    }

    @Test("bytes, read sixteen and eight at a time, give the URLs a character-by-character scan gives, at every offset")
    func bytesAndScalarsAgreeAtEveryOffset() {
        // Every significant character (/ " ' \ @ ; { } ( )), in runs shorter and longer than 16.
        let css = #"a{b:url(a.png)}/* url(no.png) */c{d:'e' url("b.png");f:"g\"h" url('c.png')}"#
            + #"@import "s.css";i{j:-webkit-image-set('d.png' 1x,url(e.png) 2x)}k\{l:url(f\).png)}"#
            + #"@font-face{src:url(font.woff)}m{n:o(p(q))url(g.png)}"#
        for padding in 0..<40 {
            let padded = String(repeating: " ", count: padding) + css
            let fromScalars = CSSURLScanner.scan(Array(padded.unicodeScalars))
            let fromBytes = Array(padded.utf8).withUnsafeBufferPointer { CSSURLScanner.scan($0) }
            #expect(fromScalars.map(\.value) == ["a.png", "b.png", "c.png", "s.css", "d.png", "e.png", "f).png", "font.woff", "g.png"])
            #expect(fromBytes == fromScalars, "padding \(padding)")
        }
    }

    @Test("a URL in @font-face is a font whatever its extension: never fetched or rewritten")
    func fontFaceIsNeverAnImage() {
        let page = "<style>@font-face{font-family:F;src:url(font.svg),url(glyphs.png)} .x{background:url(real.png)}</style>"
        let rewriter = ImageRewriter(options: RewriteOptions(referenceStyle: .relativePath("images")),
                                     naming: LocalImageNaming(extensions: ["png", "svg"]))
        let result = rewriter.rewrite(Array(page.utf8), pageURL: BrowserURL(base + "page.html"))
        #expect(result.references.map(\.original) == ["real.png"])
        #expect(result.bytes.text.contains("src:url(font.svg),url(glyphs.png)"))
        let css = rewriter.rewriteStylesheet(Array("@font-face{src:url(glyphs.png)}".utf8), url: BrowserURL(base + "s.css"))
        #expect(css.references.isEmpty)
    }

    @Test("CSS whose bytes spell no url(, image-set( or @import is passed over; any spelling that may hold one is read", arguments: [
        ("color: red; margin: 0 auto", false, false),
        ("background: URL(a.png)", false, true),
        ("background:-webkit-image-set('a.png' 1x)", false, true),
        ("@IMPORT 'print.css';", false, true),
        ("content: '@import'", false, true),
        ("font: 12px/1 Arial; @media", false, false),
        ("background: url&#40;a.png)", false, false),
        ("background: url&#40;a.png)", true, true),
        ("url", false, false),
        ("(url)", false, false),
        ("font: 12px &quot;Open Sans&quot;, &#39;A&#x27; &#X22;b&#34; &amp;&lt;&gt;&apos;", true, false),
        ("font: &quot;A&quot;; background: url(a.png)", true, true),
        ("font: &QUOT;A&QUOT;", true, true),
        ("font: &quotA", true, true),
        ("font: &#034;A", true, true),
        ("background: &#117;rl(a.png)", true, true),
        ("background: u&#114;l(a.png)", true, true),
        ("background: url&#x28;a.png)", true, true),
        ("&#64;import 'a.css'", true, true),
        ("background: image&#45;set('a.png' 1x)", true, true),
    ])
    func passesOverCSSWithoutURLs(css: String, characterReferences: Bool, mayHold: Bool) {
        let bytes = Array(css.utf8)
        #expect(bytes.withUnsafeBufferPointer { ReferenceCollector.mayHoldCSSURL($0, characterReferences: characterReferences) } == mayHold)
    }

    @Test("the words that may hold a URL are found at every offset of longer CSS")
    func findsWordsAtEveryOffset() {
        let filler = "color:red;margin:0 auto;font:1px a"
        #expect(!Array(filler.utf8).withUnsafeBufferPointer { ReferenceCollector.mayHoldCSSURL($0, characterReferences: true) })
        for word in ["url(", "image-set(", "@import", "&"] {
            for offset in 0...filler.utf8.count {
                let css = String(filler.prefix(offset)) + word + String(filler.dropFirst(offset))
                #expect(Array(css.utf8).withUnsafeBufferPointer { ReferenceCollector.mayHoldCSSURL($0, characterReferences: true) },
                        "\(css)")
            }
        }
    }

    @Test("a style attribute's url() spelled with a character reference is still an image")
    func characterReferenceInStyle() {
        let result = rewrite("<div style=\"background: url&#40;/a.png)\"></div>", pageURL: "https://example.com/p.html")
        #expect(result.rewrittenReferences.count == 1)
    }

    @Test("a serialised style attribute, quotes as references, keeps its url() and loses nothing else", arguments: [
        ("<div style=\"font: 12px &quot;Open Sans&quot;; background: url(&quot;/a.png&quot;) no-repeat\"></div>", 1),
        ("<div style=\"font: 12px &quot;Open Sans&quot;; color: red\"></div><img src=\"/b.png\">", 1),
        ("<div style=\"font: &#39;A&#39;; background: u&#114;l(/a.png)\"></div>", 1),
    ])
    func serialisedStyleAttribute(page: String, images: Int) {
        let result = rewrite(page, pageURL: "https://example.com/p.html")
        #expect(result.rewrittenReferences.count == images)
    }
}
