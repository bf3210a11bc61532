import Foundation
import Testing
@_spi(Fuzzing) @testable import ImgCache
@testable import ImgCacheURLs
@testable import ImgCacheMarkup

/// A page written away from its origin keeps reaching its stylesheets, scripts and links: its URLs
/// that are not images become absolute against its base (``OtherURLs``), image URLs local.
@Suite("URLs that are not images")
struct OtherURLsTests {
    static let pageURL = "https://example.com/blog/post.html"

    static func options(_ otherURLs: OtherURLs) -> RewriteOptions {
        var options = RewriteOptions()
        options.otherURLs = otherURLs
        return options
    }

    @Test("absolute: stylesheets, scripts, links, forms, frames, media and fonts resolve where they did; images are local; in-page references and every other byte stay")
    func absolute() throws {
        let input = try Fixtures.bytes("rewrite/other-urls.html")
        let result = rewrite(input, pageURL: Self.pageURL, options: Self.options(.absolute))
        let site = "https://example.com/"
        let blog = site + "blog/"
        let expected = input
            .replacing("\"css/site.css\"", with: "\"\(blog)css/site.css\"")
            .replacing("\"/favicon.ico\"", with: "\"\(site)favicon.ico\"")
            .replacing("\"/js/app.js\"", with: "\"\(site)js/app.js\"")
            .replacing("\"fonts/body.woff2\"", with: "\"\(blog)fonts/body.woff2\"")
            .replacing("url(print.css)", with: "url(\(blog)print.css)")
            .replacing("url(img/hero.jpg)", with: "url(\(localPath(blog + "img/hero.jpg")))")
            .replacing("\"next.html\"", with: "\"\(blog)next.html\"")
            .replacing("\"?page=2&amp;sort=new\"", with: "\"\(blog)post.html?page=2&amp;sort=new\"")
            .replacing("href=../up.html>", with: "href=\(site)up.html>")
            .replacing("\"/search\"", with: "\"\(site)search\"")
            .replacing("\"search?q=1\"", with: "\"\(blog)search?q=1\"")
            .replacing("\"embed/frame.html\"", with: "\"\(blog)embed/frame.html\"")
            .replacing("\"media/clip.mp4\"", with: "\"\(blog)media/clip.mp4\"")
            .replacing("\"img/poster.png\"", with: "\"\(localPath(blog + "img/poster.png"))\"")
            .replacing("\"img/logo.png\"", with: "\"\(localPath(blog + "img/logo.png"))\"")
            .replacing("img/logo-2x.png 2x", with: "\(localPath(blog + "img/logo-2x.png")) 2x")
            .replacing("img/logo.jxl 3x", with: "\(blog)img/logo.jxl 3x")
            .replacing("url('img/bg.gif')", with: "url('\(localPath(blog + "img/bg.gif"))')")
            .replacing("url(cursor.cur)", with: "url(\(blog)cursor.cur)")
        expectSameBytes(result.bytes, expected)
        #expect(!result.warnings.contains { if case .baseEmptied = $0 { true } else { false } }, "there is no base to empty")
    }

    @Test("as written (and automatic for the rewriter on its own): only images change")
    func asWritten() throws {
        let input = try Fixtures.bytes("rewrite/other-urls.html")
        for otherURLs in [OtherURLs.asWritten, .automatic] {
            let result = rewrite(input, pageURL: Self.pageURL, options: Self.options(otherURLs))
            #expect(result.rewrittenReferences.count == 5)
            #expect(result.otherEdits.isEmpty, "\(otherURLs)")
            #expect(result.bytes.text.contains("href=\"css/site.css\""))
        }
    }

    @Test("absolute with nothing to rewrite: links still become absolute, and a relative <base> is emptied")
    func withoutImages() {
        let plain = rewrite("<link rel=stylesheet href=a.css><a href=b.html>b</a>", pageURL: Self.pageURL, options: Self.options(.absolute))
        #expect(plain.bytes.text == "<link rel=stylesheet href=https://example.com/blog/a.css><a href=https://example.com/blog/b.html>b</a>")
        // Opened from disk, a relative base would point into the local folder.
        let based = rewrite("<base href=\"/static/\"><script src=app.js></script>", pageURL: Self.pageURL, options: Self.options(.absolute))
        #expect(based.bytes.text == "<base href=\"\"><script src=https://example.com/static/app.js></script>")
        // A place in the page itself stays in the copy; the page with another query does not.
        let here = rewrite("<a href='post.html#c2'>c</a><a href=\"./post.html?reply=1#form\">r</a><a href=other.html#c2>o</a>",
                           pageURL: Self.pageURL + "#top", options: Self.options(.absolute))
        #expect(here.bytes.text == "<a href='#c2'>c</a><a href=\"https://example.com/blog/post.html?reply=1#form\">r</a><a href=https://example.com/blog/other.html#c2>o</a>")
        // Unchanged as written: the base still steers its URLs where the page is served.
        let kept = "<base href=\"/static/\"><script src=app.js></script>"
        #expect(rewrite(kept, pageURL: Self.pageURL, options: Self.options(.asWritten)).bytes.text == kept)
    }

    @Test("a refresh's URL becomes absolute, as browsers read it out of content; other metas stay")
    func metaRefresh() {
        let cases: [(String, String)] = [
            ("<meta http-equiv=\"refresh\" content=\"5; url=next.html\">",
             "<meta http-equiv=\"refresh\" content=\"5; url=https://example.com/blog/next.html\">"),
            ("<META HTTP-EQUIV=Refresh CONTENT=\"0;URL='/a b.html' \">",
             "<META HTTP-EQUIV=Refresh CONTENT=\"0;URL='https://example.com/a%20b.html' \">"),
            ("<meta http-equiv=refresh content='3,other.html'>",
             "<meta http-equiv=refresh content='3,https://example.com/blog/other.html'>"),
            // Not `url=`: the URL starts at the u.
            ("<meta http-equiv=refresh content=\"1; urls.html\">",
             "<meta http-equiv=refresh content=\"1; https://example.com/blog/urls.html\">"),
            // A place in the page itself, as for links.
            ("<meta http-equiv=refresh content=\"9; url=post.html#end\">", "<meta http-equiv=refresh content=\"9; url=#end\">"),
        ]
        for (page, expected) in cases {
            #expect(rewrite(page, pageURL: Self.pageURL, options: Self.options(.absolute)).bytes.text == expected)
        }
        for unchanged in ["<meta http-equiv=refresh content=\"30\">", "<meta name=description content=\"url=x.html\">",
                          "<meta http-equiv=refresh content=\"soon; url=x.html\">", "<meta property=og:url content=\"a.html\">"] {
            #expect(rewrite(unchanged, pageURL: Self.pageURL, options: Self.options(.absolute)).bytes.text == unchanged)
        }
        #expect(ReferenceCollector.refreshURLRange(Array("  .5 ; URL = \"x.html\" ".unicodeScalars)) == 14..<20)
    }

    @Test("without a URL nothing can be made absolute, and nothing changes")
    func withoutURL() {
        let page = "<link rel=stylesheet href=a.css><img src=x.png>"
        #expect(rewrite(page, pageURL: nil, options: Self.options(.absolute)).bytes.text == page)
    }

    @Test("links in the first 1024 bytes stay relative where rewriting them would move the <meta charset> out of them")
    func metaCharsetWindow() {
        let head = "<link rel=stylesheet href=a.css>" + String(repeating: " ", count: 960) + "<meta charset=\"shift_jis\">"
        let page = head + "<a href=b.html>b</a>"
        let result = rewrite(page, pageURL: Self.pageURL, options: Self.options(.absolute))
        #expect(result.bytes.text == head + "<a href=https://example.com/blog/b.html>b</a>")
    }

    /// The real saved pages, each with its URL: every URL that changed other than images resolves
    /// to what the original resolved to and is absolute now; images are rewritten as without the
    /// option; every other byte stays; a second pass changes nothing more.
    @Test("every real page: each changed URL resolves where it did, images as before, a second pass changes nothing",
          .enabled(if: runsAlone, "runs in a step of its own: IMGCACHE_RUN_ALONE=1 (see .ci/run)"))
    func realPages() throws {
        guard let pages = try RealPagesTests.pages() else {
            print("note: \(RealPagesTests.folder.path) is not here; the real-page check is skipped")
            return
        }
        var compared = 0
        for (number, page) in pages.enumerated() {
            guard let url = page.url, let pageURL = BrowserURL(url) else { continue }
            let input = try [UInt8](Data(contentsOf: RealPagesTests.folder.appendingPathComponent(page.path)))
            var options = Self.options(.absolute)
            options.referenceStyle = .urlPrefix("imgcache://cache/")
            options.transportEncodingLabel = page.charset
            let result = ImageRewriter(options: options).rewrite(input, pageURL: pageURL)
            do {
                try RewriterProperties.checkSplice(input: input, result: result, prefix: options.referenceStyle.prefix,
                                                   editsWithoutImages: true)
            } catch {
                Issue.record("\(page.path): \(error.description)")
                continue
            }
            // Each of the two checks that rewrite the page again runs on every tenth page only: each
            // pass costs as much as the first, and the suite's tests with deadlines share two cores.
            let checksAgain = number % 10 == 0
            if checksAgain {
                options.otherURLs = .asWritten
                let images = ImageRewriter(options: options).rewrite(input, pageURL: pageURL)
                #expect(result.rewrittenReferences.map(\.localPath) == images.rewrittenReferences.map(\.localPath)
                        || result.warnings.contains { if case .referencesKeptForMetaCharset = $0 { true } else { false } },
                        "\(page.path): the images are rewritten otherwise")
            }
            // Without a base, and in an ASCII-compatible page, each edit's URL can be compared.
            let emptiedBase = result.warnings.contains { if case .baseEmptied = $0 { true } else { false } }
            if !emptiedBase, result.encoding.isASCIICompatible {
                for edit in result.otherEdits {
                    // CSS escapes (`\"`) are left to the rewriter's own tests of CSS.
                    guard !input[edit.range].contains(UInt8(ascii: "\\")) else { continue }
                    let before = Self.attributeText(input[edit.range])
                    let after = Self.attributeText(edit.replacement[...])
                    guard before.utf8.allSatisfy({ $0 < 0x80 }) else { continue }
                    let resolved = BrowserURL(before, relativeTo: pageURL)?.serialized
                    // A place in the page itself becomes its fragment alone.
                    let absoluteAfter = after.hasPrefix("#") ? pageURL.serializedWithoutFragment + after : after
                    #expect(BrowserURL(absoluteAfter)?.serialized == resolved,
                            "\(page.path): \(before) became \(after), which is not absolute or not where it led")
                    compared += 1
                }
            }
            guard checksAgain else { continue }
            options.otherURLs = .absolute
            let again = ImageRewriter(options: options).rewrite(result.bytes, pageURL: pageURL)
            let changed = again.otherEdits.filter { !result.bytes[$0.range].elementsEqual($0.replacement) }
            #expect(changed.isEmpty || again.encoding != result.encoding,
                    "\(page.path): a second pass changed \(changed.count) more URLs, the first \(changed.first.map { String(decoding: result.bytes[$0.range], as: UTF8.self) } ?? "")")
        }
        // The pages hold tens of thousands of relative links: a check that compared few would pass the rest.
        #expect(compared > 2_000, "\(compared) URLs compared")
    }

    /// An attribute value or CSS URL as the URL parser gets it: character references decoded, CSS
    /// escapes of the rewriter's own kind undone, surrounding spaces trimmed.
    static func attributeText(_ bytes: ArraySlice<UInt8>) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        let scalars = Array(text.unicodeScalars)
        let decoded = CharacterReferences.resolveInAttributeValue(scalars: scalars, offsets: Array(0...scalars.count)).scalars
        var result = String.UnicodeScalarView()
        result.append(contentsOf: decoded)
        return String(result).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
