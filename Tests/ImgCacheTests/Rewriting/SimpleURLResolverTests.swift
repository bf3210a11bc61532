import Testing
@testable import ImgCache
@testable import ImgCacheURLs
@testable import ImgCacheMarkup

@Suite("Fast URL resolution")
struct SimpleURLResolverTests {
    let bases = [
        "https://example.com/a/b/page.html?x=1#top", "http://example.com", "https://user:pw@host.example:8443/dir/",
        "https://example.com/a/b?q=/c/d", "https://example.com/site/docs/deep/index.html",
    ]

    @Test("whenever the fast path answers, it answers exactly what the URL Standard parser does")
    func agreesWithParser() async {
        await offPool {
            var generator = SystemRandomNumberGenerator()
            let pieces = ["a", "img", ".", "..", "/", "//", "?", "#", "%2e", "%41", ":", "@", "http:", "https:", "//", "HTTP://",
                          "Example.COM", "example.com", "1.2.3.4", "0x7f", "xn--bcher-kva", "b\u{fc}cher", " ", "\t", "\\",
                          "png", ".png", "//cdn.example.net", "//cdn.example.net:443", "//h:80/", "'", "\"", "<", "{", "|", "^", "`", "=", "&", ",", "-", "~", "8080", "[::1]", "..png", "a.", "../", "./", "../../", ".../"]
            var checked = 0, fast = 0
            for _ in 0..<30_000 {
                let input = (0..<Int.random(in: 1...7, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
                for baseText in bases {
                    let base = BrowserURL(baseText)!
                    checked += 1
                    guard let answer = SimpleURLResolver(base: base)?.resolve(input) else { continue }
                    fast += 1
                    #expect(answer == BrowserURL(input, relativeTo: base)?.serialized, "input \(input) against \(baseText)")
                }
            }
            #expect(fast > checked / 20)
        }
    }

    @Test("a path's bytes and dot segments read in one pass answer as the two checks do")
    func onePassPathCheck() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["a", ".", "..", "...", "/", "?", "#", "%", " ", "b.png", "\u{E9}", "~", "=", "q", ".a", "a."]
        for _ in 0..<50_000 {
            let text = (0..<Int.random(in: 0...8, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let bytes = Array(text.utf8)
            bytes.withUnsafeBufferPointer { buffer in
                #expect(PlainURLText.isPlainWithoutDotSegments(buffer)
                    == (PlainURLText.isPlain(buffer) && PlainURLText.hasNoDotSegments(buffer)), "\(text)")
            }
        }
    }

    @Test("typical page URLs take the fast path")
    func typicalURLs() {
        let resolver = SimpleURLResolver(base: BrowserURL("https://example.com/blog/post.html"))!
        #expect(resolver.resolve("/img/a.png") == "https://example.com/img/a.png")
        #expect(resolver.resolve("img/a.png?w=300&h=2") == "https://example.com/blog/img/a.png?w=300&h=2")
        #expect(resolver.resolve("https://cdn.example.net/w_300,c_fill/a.jpg") == "https://cdn.example.net/w_300,c_fill/a.jpg")
        #expect(resolver.resolve("https://cdn.example.net") == "https://cdn.example.net/")
        #expect(resolver.resolve("http://127.0.0.1:8080/a.png") == "http://127.0.0.1:8080/a.png")
        #expect(resolver.resolve("//cdn.example.net/a.png?w=1") == "https://cdn.example.net/a.png?w=1")
        #expect(resolver.resolve("//cdn.example.net:8443") == "https://cdn.example.net:8443/")
        #expect(resolver.resolve("//CDN.example.net/a.png") == nil)
        #expect(resolver.resolve("../a.png") == "https://example.com/a.png")
        #expect(resolver.resolve("./../img/a.png") == "https://example.com/img/a.png")
        #expect(resolver.resolve("../../../a.png") == "https://example.com/a.png", "never above the root")
        #expect(resolver.resolve("../img/../a.png") == nil, "a dot segment after the start takes the parser")
        #expect(resolver.resolve("..") == nil)
        #expect(resolver.resolve("HTTPS://CDN.example.net/a.png") == nil)
    }
}
