import Testing
@testable import ImgCache
@testable import ImgCacheURLs
@testable import ImgCacheMarkup

@Suite("Rewriting markup")
struct MarkupTests {
    let base = "https://example.com/dir/"

    @Test("uppercase, unquoted, spaced and self-closing attributes: only the URL bytes change")
    func uppercaseAndUnquoted() throws {
        let input = try Fixtures.bytes("rewrite/uppercase-unquoted.html")
        let result = rewrite(input)
        let expected = input
            .replacing("http://example.com/a.PNG", with: localPath("http://example.com/a.PNG"))
            .replacing("src=b.jpg", with: "src=" + localPath(base + "b.jpg"))
            .replacing("\"c.gif\"", with: "\"" + localPath(base + "c.gif") + "\"")
            .replacing("\"d.jpeg\"", with: "\"" + localPath(base + "d.jpeg") + "\"")
            .replacing("\"f.png\"", with: "\"" + localPath(base + "f.png") + "\"")
        expectSameBytes(result.bytes, expected)
        // `/e.png/` is a folder URL and `ignored.png` is a duplicate attribute browsers drop.
        #expect(!result.bytes.text.contains(localPath("https://example.com/e.png")))
        #expect(result.bytes.text.contains("src=\"ignored.png\""))
    }

    @Test("a link's rel is read token by token in any case: icons, image preloads and stylesheets, and only those")
    func linkRelations() {
        let input = "<link rel=\"Shortcut ICON\" href=a.png><link rel=apple-touch-icon-precomposed href=b.png>"
            + "<link rel=\"\tpreload\n\" as=IMAGE href=c.png><link rel=preloaded as=image href=no1.png>"
            + "<link rel=ico href=no2.png><link rel=\"PRELOAD styleSheet\" as=style href=s.css>"
            + "<link rel=\"alternate\u{0C}STYLESHEET\" href=t.css><link rel=stylesheets href=no3.css>"
            + "<link rel=\"stylesheet\r\nalternate\" href=u.css>"
        let result = rewrite(input)
        #expect(result.references.map(\.original) == ["a.png", "b.png", "c.png"])
        #expect(result.references.map(\.kind) == [.linkIcon, .linkIcon, .linkPreload])
        #expect(result.linkedStylesheets == [base + "s.css", base + "t.css", base + "u.css"])
    }

    @Test("a lazy attribute of the user's own, in any case, among attributes of every other name: the first of it is rewritten")
    func ownLazyAttributeAmongOthers() {
        let input = #"<div Class=a ID=b Zoom-Picture="z.png" zoom-picture="second.png" Width=3 alt=x>"#
            + #"<input class=c TYPE=IMAGE Src="in.png"><link as=image REL="Preload" hRef="pre.png">"#
        let result = rewrite(input, options: RewriteOptions(lazyAttributes: ["Zoom-Picture"]))
        let expected = input
            .replacing("\"z.png\"", with: "\"" + localPath(base + "z.png") + "\"")
            .replacing("\"in.png\"", with: "\"" + localPath(base + "in.png") + "\"")
            .replacing("\"pre.png\"", with: "\"" + localPath(base + "pre.png") + "\"")
        expectSameBytes(result.bytes, Array(expected.utf8))
    }

    @Test("character references in src decode before resolving, and the whole reference is replaced")
    func characterReferences() throws {
        let input = try Fixtures.bytes("rewrite/amp-and-entities.html")
        let result = rewrite(input)
        let expected = input
            .replacing("https://cdn.example.com/i.png?w=1&amp;h=2", with: localPath("https://cdn.example.com/i.png?w=1&h=2"))
            .replacing("\"  /spaced.png  \"", with: "\"  " + localPath("https://example.com/spaced.png") + "  \"")
            .replacing("&#x2F;hex.png", with: localPath("https://example.com/hex.png"))
            .replacing("/q.png?a=1&copy=2", with: localPath("https://example.com/q.png?a=1&copy=2"))
        expectSameBytes(result.bytes, expected)
        #expect(result.references.map(\.original).contains("https://cdn.example.com/i.png?w=1&h=2"))
    }

    @Test("images in comments, scripts, textarea, title and other attributes stay; noscript and template count")
    func inertPlaces() throws {
        let input = try Fixtures.bytes("rewrite/inert.html")
        let result = rewrite(input)
        let expected = input
            .replacing("\"in-noscript.png\"", with: "\"" + localPath(base + "in-noscript.png") + "\"")
            .replacing("\"in-template.png\"", with: "\"" + localPath(base + "in-template.png") + "\"")
            .replacing("\"real.png\"", with: "\"" + localPath(base + "real.png") + "\"")
        expectSameBytes(result.bytes, expected)
        let skipped = result.references.filter { !$0.rewritten }.map(\.original)
        #expect(skipped == ["in-textarea.png", "in-title.png"])
    }

    @Test("every kind of image reference is found and rewritten; data:, javascript:, empty and .jxl are left")
    func referenceKinds() throws {
        let input = try Fixtures.bytes("rewrite/reference-kinds.html")
        let result = rewrite(input)
        let rewritten = Dictionary(grouping: result.rewrittenReferences, by: \.kind).mapValues { $0.map(\.url!) }
        #expect(rewritten[.linkIcon] == ["https://example.com/favicon.png", "https://example.com/touch.png"])
        #expect(rewritten[.linkPreload] == ["https://example.com/hero.jpg", "https://example.com/hero-1.jpg", "https://example.com/hero-2.jpg"])
        #expect(rewritten[.backgroundAttribute] == ["https://example.com/paper.gif", base + "table.gif", base + "cell.gif"])
        #expect(rewritten[.inputImage] == ["https://example.com/submit.png"])
        #expect(rewritten[.svgImage] == ["https://example.com/svg.png", "https://example.com/xlink.png", "https://example.com/fe.png"])
        #expect(Set(rewritten[.lazyAttribute] ?? []) == [
            "https://example.com/lazy.jpg", "https://example.com/lazy-1.jpg", "https://example.com/lazy-2.jpg",
            "https://example.com/orig.jpg", "https://example.com/lazy-src.jpg",
        ])
        #expect(rewritten[.imgSrc] == [
            "https://other.example.org/protocol-relative.png", "https://example.com/clamped.png",
            "http://xn--bcher-kva.example/idn.png",
        ])
        let reasons = result.references.filter { !$0.rewritten }.map { "\($0.original) \($0.skipReason!.rawValue)" }
        #expect(reasons == [
            "data:image/png;base64,iVBORw0KGgo= not-http", "javascript:alert(1) not-http", " empty",
            "/photo.jxl unsupported-extension",
        ])
        #expect(result.bytes.text.contains("src=\"/not-an-image-input.png\""))
        #expect(result.bytes.text.contains("href=\"/style.css\""))
        // Nothing but the rewritten URLs changed.
        var expected = input
        for reference in result.rewrittenReferences.reversed() {
            expected.replaceSubrange(reference.byteRange, with: Array(reference.localPath!.utf8))
        }
        expectSameBytes(result.bytes, expected)
    }

    @Test("extensions are an option: webp is localised when enabled")
    func extensionOption() {
        let naming = LocalImageNaming(extensions: ["webp", ".SVG"])
        let result = rewrite("<img src=a.webp><img src=b.svg><img src=c.png>", naming: naming)
        #expect(result.bytes.text == "<img src=\(localPath(base + "a.webp", naming: naming))><img src=\(localPath(base + "b.svg", naming: naming))><img src=c.png>")
    }

    @Test("a URL prefix replaces the relative folder, and unsafe prefix characters are escaped")
    func urlPrefix() {
        let options = RewriteOptions(referenceStyle: .urlPrefix("file:///tmp/my cache/"))
        let result = rewrite("<img src='a.png'>", options: options)
        let name = LocalImageNaming().localName(for: BrowserURL(base + "a.png")!)!
        #expect(result.bytes.text == "<img src='file:///tmp/my%20cache/\(name)'>")
    }

    @Test("relative URLs without a page URL are reported, left untouched, and warned about")
    func noPageURL() {
        let html = "<img src=rel.png><img src=https://x.example/abs.png>"
        let result = rewrite(html, pageURL: nil)
        #expect(result.bytes.text == "<img src=rel.png><img src=\(localPath("https://x.example/abs.png"))>")
        #expect(result.references.first?.skipReason == .relativeWithoutBase)
        #expect(result.warnings.contains { $0.description.contains("1 relative image URL") })
        #expect(result.warnings == [.relativeURLsWithoutBase(count: 1, .page)], "a program can tell which warning it is")
    }

    @Test("the same URL always maps to the same file, different URLs to different files")
    func deterministicNames() {
        let naming = LocalImageNaming(fanOut: true)
        let a = naming.localName(for: BrowserURL("https://example.com/a.png")!)!
        #expect(a == naming.localName(for: BrowserURL("https://example.com/a.png#frag")!))
        #expect(a != naming.localName(for: BrowserURL("https://example.com/a.png?v=2")!))
        #expect(a.count == 2 + 1 + 64 + 4 && a.hasSuffix(".png") && a.split(separator: "/")[1].hasPrefix(a.prefix(2)))
    }

    @Test("rendered with what the cache holds, only the images in it are rewritten; the others keep their URL")
    func onlyCached() {
        let rewriter = ImageRewriter()
        let scan = rewriter.scan(Array("<img src=cached.png><img src=missing.png>".utf8), url: BrowserURL(base + "page.html"))
        let cached = base + "cached.png"
        let result = rewriter.render(scan, availability: .onlyCached([cached: LocalImageNaming().localName(for: BrowserURL(cached)!)!]))
        #expect(result.bytes.text == "<img src=\(localPath(base + "cached.png"))><img src=missing.png>")
        #expect(result.references.map(\.disposition) == [.rewritten, .notCached])
        #expect(result.references.map(\.skipReason) == [nil, nil], "not in the cache is no reason to skip for good")
        // The same scan renders again, with everything: scanning is done once.
        #expect(rewriter.render(scan).references.map(\.disposition) == [.rewritten, .rewritten])
    }

    @Test("listing finds the same references as rewriting and leaves the bytes alone")
    func listing() throws {
        let input = try Fixtures.bytes("rewrite/reference-kinds.html")
        let listed = ImageRewriter().references(in: input, pageURL: BrowserURL(base + "page.html"))
        let rewritten = rewrite(input)
        #expect(listed.bytes == input)
        #expect(listed.references == rewritten.references)
    }

    @Test("a page of 20,000 images among 20,000 links, with a base to neutralise: every image rewritten, in order")
    func manyReferences() {
        // More URLs than the slot list's first chunks and its largest one hold together.
        let count = 20_000
        var input = "<base href=\"https://example.com/dir/\">"
        // The base's URL is emptied and the links made absolute, so that the local paths stand.
        var expected = "<base href=\"\">"
        for index in 0..<count {
            input += "<a href=p\(index).html><img src=i\(index).png></a>"
            expected += "<a href=\(base)p\(index).html><img src=" + localPath(base + "i\(index).png") + "></a>"
        }
        let result = rewrite(input)
        #expect(result.references.map(\.original) == (0..<count).map { "i\($0).png" })
        expectSameBytes(result.bytes, Array(expected.utf8))
    }
}
