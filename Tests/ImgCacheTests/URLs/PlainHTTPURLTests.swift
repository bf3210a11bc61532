import Testing
@testable import ImgCache
@testable import ImgCacheURLs

@Suite("Plain http(s) URLs read without the parser")
struct PlainHTTPURLTests {
    /// What the URL Standard's parser makes of `text`, without the fast path.
    private func parsed(_ text: String, relativeTo base: BrowserURL? = nil) -> BrowserURL? {
        var parser = BasicURLParser(input: BasicURLParser.preprocess(text), base: base, queryEncoding: nil)
        return parser.parse()
    }

    private func expectSameParts(_ fast: BrowserURL, _ slow: BrowserURL?, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(fast.serialized == slow?.serialized, "\(text)", sourceLocation: sourceLocation)
        #expect(fast.scheme == slow?.scheme, "\(text)", sourceLocation: sourceLocation)
        #expect(fast.hostValue == slow?.hostValue, "\(text)", sourceLocation: sourceLocation)
        #expect(fast.port == slow?.port, "\(text)", sourceLocation: sourceLocation)
        #expect(fast.username == slow?.username && fast.password == slow?.password, "\(text)", sourceLocation: sourceLocation)
        #expect(fast.pathValue == slow?.pathValue, "\(text)", sourceLocation: sourceLocation)
        #expect(fast.query == slow?.query, "\(text)", sourceLocation: sourceLocation)
        #expect(fast.fragment == slow?.fragment, "\(text)", sourceLocation: sourceLocation)
    }

    @Test("whenever the fast path answers, every part is what the URL Standard parser gives, against any base")
    func agreesWithParser() async {
        await offPool {
            var generator = SystemRandomNumberGenerator()
            let starts = ["http://", "https://", "HTTP://", "http:", "https:/", "http://user@", "ftp://"]
            let hosts = ["example.com", "cdn.example.net", "a", "a.", "a..b", "-a.com", "1.2.3.4", "a.0x1", "xn--bcher-kva.de",
                         "Example.com", "host:8080", "b\u{fc}cher.de", "[::1]", "a_b.com", "", "127.0.0.1:18080", "127.0.0.1",
                         "1.2.3.04", "256.1.1.1", "1.2.3", "1.2.3.4.", "0.0.0.0", "0x7f.0.0.1", "example.com:80", "example.com:443",
                         "example.com:", "example.com:08080", "example.com:65535", "example.com:65536", "example.com:0",
                         "10.0.0.255:8443"]
            // Mostly what plain URLs are made of, with a few of everything the parser would change.
            let plainPieces = ["/", "/", "/", "a", "img", "png", ".png", "?", "=", "&", ",", ";", ":", "@", "~", "-", "_", "!",
                               "$", "(", "*", "+", "w=300", "x/y"]
            let otherPieces = ["//", ".", "..", "#", "%2e", "%41", "'", " ", "\\", "\u{e9}", "/./", "/../"]
            let bases = [nil, BrowserURL("https://example.org/dir/page.html?q#f"), BrowserURL("http://other.example/")]
            var fast = 0
            for _ in 0..<30_000 {
                let rest = (0..<Int.random(in: 0...7, using: &generator)).map { _ in
                    Int.random(in: 0..<6, using: &generator) == 0 ? otherPieces.randomElement(using: &generator)!
                        : plainPieces.randomElement(using: &generator)!
                }.joined()
                let path = Bool.random(using: &generator) ? "/" + rest : rest
                let text = starts.randomElement(using: &generator)! + hosts.randomElement(using: &generator)! + path
                guard let plain = BrowserURL.plainHTTP(text) else { continue }
                fast += 1
                for base in bases { expectSameParts(plain, parsed(text, relativeTo: base), text) }
            }
            #expect(fast > 500)
        }
    }

    @Test("image URLs as the rewriter writes them take the fast path; the rest go to the parser")
    func typicalURLs() throws {
        for text in ["https://cdn.example.net/w_300,c_fill/a.jpg", "http://example.com/", "https://example.com/a//b/?",
                     "http://127.0.0.1:18080/assets/img00001.jpg", "https://10.1.2.3/a.png", "http://example.com:8080/a.png",
                     "https://example.com/img/a.png?w=300&h=2", "https://example.com/a.png?x=/y/../z"] {
            let plain = try #require(BrowserURL.plainHTTP(text), "\(text)")
            expectSameParts(plain, parsed(text), text)
            #expect(BrowserURL(text)?.pathSegments == plain.pathSegments)
        }
        for text in ["https://example.com", "https://example.com/a/../b.png", "https://example.com:443/a.png",
                     "http://127.0.0.01/a.png", "http://example.com:/a.png",
                     "https://EXAMPLE.com/a.png", "https://example.com/a%20b.png", "https://example.com/a.png#top",
                     "https://user@example.com/a.png", "/relative.png", "mailto:a@example.com"] {
            #expect(BrowserURL.plainHTTP(text) == nil, "\(text)")
        }
    }
}
