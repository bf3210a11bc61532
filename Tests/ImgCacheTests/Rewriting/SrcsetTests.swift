import Testing
@testable import ImgCache
@testable import ImgCacheMarkup

@Suite("srcset")
struct SrcsetTests {
    let base = "https://example.com/dir/"

    private func urls(_ srcset: String) -> [String] {
        let scalars = Array(srcset.unicodeScalars)
        return SrcsetParser.parse(scalars).filter(\.isValid).map { String(String.UnicodeScalarView(scalars[$0.urlRange])) }
    }

    @Test("commas inside URLs belong to the URL; descriptors end at the next top-level comma")
    func commasInURLs() {
        #expect(urls("https://res.cloudinary.com/w_300,c_fill/a.jpg 300w, https://res.cloudinary.com/w_600,c_fill/a.jpg 600w") == [
            "https://res.cloudinary.com/w_300,c_fill/a.jpg", "https://res.cloudinary.com/w_600,c_fill/a.jpg",
        ])
        // A comma inside a URL token is part of the URL, as image CDNs rely on.
        #expect(urls("a.png,b.png 2x") == ["a.png,b.png"])
        #expect(urls("a.png, b.png 2x") == ["a.png", "b.png"])
        #expect(urls("  ,,a.png  , b.png") == ["a.png", "b.png"])
    }

    @Test("w, x and h descriptors are validated as the HTML Standard says")
    func descriptors() {
        #expect(urls("a.png 1x, b.png 1.5x, c.png 100w, d.png 100w 200h, e.png .5x, f.png 1e1x") == ["a.png", "b.png", "c.png", "d.png", "e.png", "f.png"])
        #expect(urls("a.png 2q, b.png -1x, c.png 100w 1x, d.png 200h, e.png 0w, f.png 1x 2x, g.png 1.x") == [])
        #expect(urls("a.png (x y) 1x") == [])
    }

    @Test("a density of -0x is zero, not negative: the candidate is kept and rewritten (web-platform-tests' 'data:,a -0x')")
    func negativeZeroDensity() {
        // The web-platform-tests' density cases (html/semantics/embedded-content/the-img-element/srcset/parse-a-srcset-attribute.html).
        for kept in ["data:,a 0x", "data:,a -0x", "data:,a -0.0x", "data:,a -.0e5x", "data:,a -1e-400x", "data:,a 1e0x", "data:,a .5e1x"] {
            #expect(urls(kept) == ["data:,a"], "\(kept)")
        }
        for dropped in ["data:,a 1x -0x", "data:,a -1x", "data:,a -0.5x", "data:,a -x", "data:,a -.x", "data:,a +1x", "data:,a --0x"] {
            #expect(urls(dropped) == [], "\(dropped)")
        }
        let result = rewrite(Array(#"<img srcset="zero.png -0x, neg.png -1x">"#.utf8))
        #expect(result.references.map(\.original) == ["zero.png", "neg.png"])
        #expect(result.references.map(\.rewritten) == [true, false])
        expectSameBytes(result.bytes, Array(#"<img srcset="\#(localPath(base + "zero.png")) -0x, neg.png -1x">"#.utf8))
    }

    @Test("only URL tokens are replaced; descriptors, commas and whitespace stay byte-identical")
    func rewriteKeepsEverythingElse() throws {
        let input = try Fixtures.bytes("rewrite/srcset.html")
        let result = rewrite(input)
        var expected = input
            .replacing("https://res.cloudinary.com/demo/image/upload/w_300,c_fill/sample.jpg", with: localPath("https://res.cloudinary.com/demo/image/upload/w_300,c_fill/sample.jpg"))
            .replacing("https://res.cloudinary.com/demo/image/upload/w_600,c_fill/sample.jpg", with: localPath("https://res.cloudinary.com/demo/image/upload/w_600,c_fill/sample.jpg"))
        expected = expected.replacing("one.png,two.png", with: localPath(base + "one.png,two.png"))
        for name in ["three.png", "four.png", "wide.png", "wide2.png", "fallback.png", "poster.jpg"] {
            expected = expected.replacing("\(name)", with: localPath(base + name))
        }
        expectSameBytes(result.bytes, expected)
        let invalid = result.references.filter { $0.skipReason == .invalidCandidate }.map(\.original)
        #expect(invalid == ["bad.png", "neg.png", "both.png", "paren.png"])
        #expect(result.references.filter { $0.kind == .sourceSrcset }.count == 2)
    }
}
