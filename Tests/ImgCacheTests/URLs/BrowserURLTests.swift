// Expected serialisations come from the WHATWG URL Standard's examples and the
// web-platform-tests url/resources/urltestdata.json and toascii.json data sets.
import Testing
@testable import ImgCache
@testable import ImgCacheURLs

/// One parse: `input` against `base`; `href` nil means the parser must fail.
struct URLCase: Sendable, CustomTestStringConvertible {
    let input: String
    let base: String?
    let href: String?

    init(_ input: String, _ base: String?, _ href: String?) {
        self.input = input
        self.base = base
        self.href = href
    }

    var testDescription: String {
        "\(input.debugDescription) against \(base.debugDescription) -> \(href.debugDescription)"
    }

    func check(sourceLocation: SourceLocation = #_sourceLocation) {
        var baseURL: BrowserURL?
        if let base {
            baseURL = BrowserURL(base)
            #expect(baseURL != nil, "base \(base) must parse", sourceLocation: sourceLocation)
            if baseURL == nil { return }
        }
        let parsed = BrowserURL(input, relativeTo: baseURL)
        #expect(parsed?.serialized == href, sourceLocation: sourceLocation)
    }
}

private let pageBase = "https://example.com/a/b/page.html?x=1#top"
private let wptBase = "http://example.org/foo/bar"

@Suite("BrowserURL: preprocessing and schemes")
struct BrowserURLSchemeTests {
    static let preprocessing: [URLCase] = [
        URLCase("http://example\t.\norg", wptBase, "http://example.org/"),
        URLCase("\u{0}\u{1b}\u{4}\u{12} http://example.com/\u{1f} \r ", nil, "http://example.com/"),
        URLCase("h\tt\nt\rp://h\to\ns\rt:9\t0\n0\r0/p\ta\nt\rh?q\tu\ne\rry#f\tr\na\rg", nil, "http://host:9000/path?query#frag"),
        URLCase("  \t", wptBase, "http://example.org/foo/bar"),
        URLCase(" foo.com  ", wptBase, "http://example.org/foo/foo.com"),
        URLCase("\t   :foo.com   \n", wptBase, "http://example.org/foo/:foo.com"),
        URLCase("http://example.com/foo\tbar", nil, "http://example.com/foobar"),
        URLCase("  \t https://ex\nample.org/x\r  ", nil, "https://example.org/x"),
        URLCase("C|\n/", "file://host/dir/file", "file://host/C:/"),
    ]

    @Test("C0 controls and spaces are trimmed, tabs and newlines removed", arguments: preprocessing)
    func preprocessingCases(_ testCase: URLCase) { testCase.check() }

    static let schemes: [URLCase] = [
        URLCase("HTTPS://EXAMPLE.COM/A?B#C", nil, "https://example.com/A?B#C"),
        URLCase("HtTp://example.com/", nil, "http://example.com/"),
        URLCase("http:foo.com", wptBase, "http://example.org/foo/foo.com"),
        URLCase("https:example.org", nil, "https://example.org/"),
        URLCase("https:example.org", "https://example.com/", "https://example.com/example.org"),
        URLCase("hello:world", "https://example.com/", "hello:world"),
        URLCase("a1234567890-+.:foo/bar", "http://example.com/dir/file", "a1234567890-+.:foo/bar"),
        URLCase("10.0.0.7:8080/foo.html", "file:///some/dir/bar.html", "file:///some/dir/10.0.0.7:8080/foo.html"),
        URLCase("a!@$*=/foo.html", "file:///some/dir/bar.html", "file:///some/dir/a!@$*=/foo.html"),
        URLCase("http:/example.com/", wptBase, "http://example.org/example.com/"),
        URLCase("ftp:/example.com/", wptBase, "ftp://example.com/"),
        URLCase("https:/example.com/", wptBase, "https://example.com/"),
        URLCase("madeupscheme:/example.com/", wptBase, "madeupscheme:/example.com/"),
        URLCase("file:/example.com/", wptBase, "file:///example.com/"),
        URLCase("ftps:/example.com/", wptBase, "ftps:/example.com/"),
        URLCase("ws:/example.com/", wptBase, "ws://example.com/"),
        URLCase("wss:/example.com/", wptBase, "wss://example.com/"),
        URLCase("http:example.com/", wptBase, "http://example.org/foo/example.com/"),
        URLCase("ftp:example.com/", wptBase, "ftp://example.com/"),
        URLCase("madeupscheme:example.com/", wptBase, "madeupscheme:example.com/"),
        URLCase("ws:example.com/", wptBase, "ws://example.com/"),
        URLCase("http:/example.com/", nil, "http://example.com/"),
        URLCase("http:example.com/", nil, "http://example.com/"),
        URLCase("http:", wptBase, "http://example.org/foo/bar"),
        URLCase("http:", "https://example.org/foo/bar", nil),
        URLCase("sc:", "https://example.org/foo/bar", "sc:"),
        URLCase("foo://", wptBase, "foo://"),
        URLCase("c:/foo", wptBase, "c:/foo"),
        URLCase("abc:rootless", "abc://host/path", "abc:rootless"),
        URLCase("abc:/rooted", "abc://host/path", "abc:/rooted"),
        URLCase("https://////example.com///", nil, "https://example.com///"),
        URLCase("a", nil, nil),
        URLCase("a/", nil, nil),
        URLCase("", nil, nil),
        URLCase("?", nil, nil),
        URLCase("#", nil, nil),
        URLCase("example", nil, nil),
        URLCase("test-a-colon.html", "a:", nil),
        URLCase("test-a-colon-b.html", "a:b", nil),
        URLCase("test-a-colon-slash.html", "a:/", "a:/test-a-colon-slash.html"),
        URLCase("test-a-colon-slash-slash.html", "a://", "a:///test-a-colon-slash-slash.html"),
        URLCase("test-a-colon-slash-b.html", "a:/b", "a:/test-a-colon-slash-b.html"),
        URLCase("test-a-colon-slash-slash-b.html", "a://b", "a://b/test-a-colon-slash-slash-b.html"),
    ]

    @Test("Scheme detection, lower-casing and special-scheme handling", arguments: schemes)
    func schemeCases(_ testCase: URLCase) { testCase.check() }

    static let ports: [URLCase] = [
        URLCase("http://f:/c", wptBase, "http://f/c"),
        URLCase("http://f:0/c", wptBase, "http://f:0/c"),
        URLCase("http://f:00000000000000/c", wptBase, "http://f:0/c"),
        URLCase("http://f:00000000000000000000080/c", wptBase, "http://f/c"),
        URLCase("http://f:\n/c", wptBase, "http://f/c"),
        URLCase("http://f:65535/c", nil, "http://f:65535/c"),
        URLCase("http://foo:80/", nil, "http://foo/"),
        URLCase("http://foo:81/", nil, "http://foo:81/"),
        URLCase("httpa://foo:80/", nil, "httpa://foo:80/"),
        URLCase("https://foo:443/", nil, "https://foo/"),
        URLCase("https://foo:80/", nil, "https://foo:80/"),
        URLCase("ftp://foo:21/", nil, "ftp://foo/"),
        URLCase("ftp://foo:80/", nil, "ftp://foo:80/"),
        URLCase("gopher://foo:70/", nil, "gopher://foo:70/"),
        URLCase("ws://foo:80/", nil, "ws://foo/"),
        URLCase("ws://foo:443/", nil, "ws://foo:443/"),
        URLCase("wss://foo:443/", nil, "wss://foo/"),
        URLCase("wss://foo:80/", nil, "wss://foo:80/"),
        URLCase("w://x:0", nil, "w://x:0"),
        URLCase("http://f:b/c", wptBase, nil),
        URLCase("http://f: /c", wptBase, nil),
        URLCase("http://f:fifty-two/c", wptBase, nil),
        URLCase("http://f:999999/c", wptBase, nil),
        URLCase("http://f:65536/c", nil, nil),
        URLCase("non-special://f:999999/c", wptBase, nil),
        URLCase("http://f: 21 / b ? d # e ", wptBase, nil),
        URLCase("http://foo:-80/", nil, nil),
        URLCase("http://f:4294967377/c", "http://example.org/", nil),
        URLCase("http://f:18446744073709551697/c", "http://example.org/", nil),
        URLCase("http://f:340282366920938463463374607431768211537/c", "http://example.org/", nil),
        URLCase("https://example.com:demo", nil, nil),
        URLCase("http://[1::2]:3:4", wptBase, nil),
    ]

    @Test("Ports: default ports dropped, invalid or out-of-range ports fail", arguments: ports)
    func portCases(_ testCase: URLCase) { testCase.check() }
}

@Suite("BrowserURL: relative references")
struct BrowserURLRelativeTests {
    static let againstPage: [URLCase] = [
        URLCase("//host/x.png", pageBase, "https://host/x.png"),
        URLCase("//cdn.example.net/img/x.png?v=2", pageBase, "https://cdn.example.net/img/x.png?v=2"),
        URLCase("/abs/x.png", pageBase, "https://example.com/abs/x.png"),
        URLCase("rel/x.png", pageBase, "https://example.com/a/b/rel/x.png"),
        URLCase("x.png", pageBase, "https://example.com/a/b/x.png"),
        URLCase("../x.png", pageBase, "https://example.com/a/x.png"),
        URLCase("../../x.png", pageBase, "https://example.com/x.png"),
        URLCase("../../../../x.png", pageBase, "https://example.com/x.png"),
        URLCase("./x.png", pageBase, "https://example.com/a/b/x.png"),
        URLCase(".", pageBase, "https://example.com/a/b/"),
        URLCase("..", pageBase, "https://example.com/a/"),
        URLCase("?q=2", pageBase, "https://example.com/a/b/page.html?q=2"),
        URLCase("#f", pageBase, "https://example.com/a/b/page.html?x=1#f"),
        URLCase("", pageBase, "https://example.com/a/b/page.html?x=1"),
        URLCase("%2e%2E/x", pageBase, "https://example.com/a/x"),
        URLCase(".%2E/y", pageBase, "https://example.com/a/y"),
        URLCase("%2e/z", pageBase, "https://example.com/a/b/z"),
        URLCase(#"\\other\p\q"#, pageBase, "https://other/p/q"),
        URLCase(#"..\x.png"#, pageBase, "https://example.com/a/x.png"),
        URLCase("https:img.png", pageBase, "https://example.com/a/b/img.png"),
        URLCase("http:img.png", pageBase, "http://img.png/"),
        URLCase("http://other.org/y.png", pageBase, "http://other.org/y.png"),
        URLCase("a b.png", pageBase, "https://example.com/a/b/a%20b.png"),
        URLCase("data:image/png;base64,AAAA", pageBase, "data:image/png;base64,AAAA"),
    ]

    @Test("Resolution against https://example.com/a/b/page.html?x=1#top", arguments: againstPage)
    func pageCases(_ testCase: URLCase) { testCase.check() }

    static let wpt: [URLCase] = [
        URLCase(":foo.com/", wptBase, "http://example.org/foo/:foo.com/"),
        URLCase(#":foo.com\"#, wptBase, "http://example.org/foo/:foo.com/"),
        URLCase(":", wptBase, "http://example.org/foo/:"),
        URLCase(":a", wptBase, "http://example.org/foo/:a"),
        URLCase(":/", wptBase, "http://example.org/foo/:/"),
        URLCase(#":\"#, wptBase, "http://example.org/foo/:/"),
        URLCase(":#", wptBase, "http://example.org/foo/:#"),
        URLCase("#", wptBase, "http://example.org/foo/bar#"),
        URLCase("#/", wptBase, "http://example.org/foo/bar#/"),
        URLCase(#"#\"#, wptBase, #"http://example.org/foo/bar#\"#),
        URLCase("#;?", wptBase, "http://example.org/foo/bar#;?"),
        URLCase("?", wptBase, "http://example.org/foo/bar?"),
        URLCase("/", wptBase, "http://example.org/"),
        URLCase(":23", wptBase, "http://example.org/foo/:23"),
        URLCase("/:23", wptBase, "http://example.org/:23"),
        URLCase(#"\x"#, wptBase, "http://example.org/x"),
        URLCase(#"\\x\hello"#, wptBase, "http://x/hello"),
        URLCase("::", wptBase, "http://example.org/foo/::"),
        URLCase("::23", wptBase, "http://example.org/foo/::23"),
        URLCase("//foo/bar", wptBase, "http://foo/bar"),
        URLCase("[61:24:74]:98", wptBase, "http://example.org/foo/[61:24:74]:98"),
        URLCase("http:[61:27]/:foo", wptBase, "http://example.org/foo/[61:27]/:foo"),
        URLCase("/a/ /c", wptBase, "http://example.org/a/%20/c"),
        URLCase("/a%2fc", wptBase, "http://example.org/a%2fc"),
        URLCase("/a/%2f/c", wptBase, "http://example.org/a/%2f/c"),
        URLCase("#β", wptBase, "http://example.org/foo/bar#%CE%B2"),
        URLCase("?a=b&c=d", wptBase, "http://example.org/foo/bar?a=b&c=d"),
        URLCase("??a=b&c=d", wptBase, "http://example.org/foo/bar??a=b&c=d"),
        URLCase("/", "http://www.example.com/test", "http://www.example.com/"),
        URLCase("/test.txt", "http://www.example.com/test", "http://www.example.com/test.txt"),
        URLCase(".", "http://www.example.com/test", "http://www.example.com/"),
        URLCase("..", "http://www.example.com/test", "http://www.example.com/"),
        URLCase("test.txt", "http://www.example.com/test", "http://www.example.com/test.txt"),
        URLCase("./test.txt", "http://www.example.com/test", "http://www.example.com/test.txt"),
        URLCase("../test.txt", "http://www.example.com/test", "http://www.example.com/test.txt"),
        URLCase("../aaa/test.txt", "http://www.example.com/test", "http://www.example.com/aaa/test.txt"),
        URLCase("../../test.txt", "http://www.example.com/test", "http://www.example.com/test.txt"),
        URLCase("中/test.txt", "http://www.example.com/test", "http://www.example.com/%E4%B8%AD/test.txt"),
        URLCase("http://www.example2.com", "http://www.example.com/test", "http://www.example2.com/"),
        URLCase("//www.example2.com", "http://www.example.com/test", "http://www.example2.com/"),
        URLCase(#"\example\..\demo/.\"#, "https://example.com/", "https://example.com/demo/"),
        URLCase("example", "https://example.com/demo", "https://example.com/example"),
        URLCase("///test", "http://example.org/", "http://test/"),
        URLCase(#"///\//\//test"#, "http://example.org/", "http://test/"),
        URLCase("///example.org/path", "http://example.org/", "http://example.org/path"),
        URLCase("///example.org/../path", "http://example.org/", "http://example.org/path"),
        URLCase("///example.org/../../", "http://example.org/", "http://example.org/"),
        URLCase("///example.org/../path/../../path", "http://example.org/", "http://example.org/path"),
        URLCase(#"/\/\//example.org/../path"#, "http://example.org/", "http://example.org/path"),
        URLCase("#link", "https://example.org/##link", "https://example.org/#link"),
        URLCase("/some/path", "http://user@example.org/smth", "http://user@example.org/some/path"),
        URLCase("", "http://user:pass@example.org:21/smth", "http://user:pass@example.org:21/smth"),
        URLCase("/some/path", "http://user:pass@example.org:21/smth", "http://user:pass@example.org:21/some/path"),
    ]

    @Test("Relative references from the URL test data", arguments: wpt)
    func wptCases(_ testCase: URLCase) { testCase.check() }

    static let dotSegments: [URLCase] = [
        URLCase("http://example.com/././foo", nil, "http://example.com/foo"),
        URLCase("http://example.com/./.foo", nil, "http://example.com/.foo"),
        URLCase("http://example.com/foo/.", nil, "http://example.com/foo/"),
        URLCase("http://example.com/foo/./", nil, "http://example.com/foo/"),
        URLCase("http://example.com/foo/bar/..", nil, "http://example.com/foo/"),
        URLCase("http://example.com/foo/bar/../", nil, "http://example.com/foo/"),
        URLCase("http://example.com/foo/..bar", nil, "http://example.com/foo/..bar"),
        URLCase("http://example.com/foo/bar/../ton", nil, "http://example.com/foo/ton"),
        URLCase("http://example.com/foo/bar/../ton/../../a", nil, "http://example.com/a"),
        URLCase("http://example.com/foo/../../..", nil, "http://example.com/"),
        URLCase("http://example.com/foo/../../../ton", nil, "http://example.com/ton"),
        URLCase("http://example.com/foo/%2e", nil, "http://example.com/foo/"),
        URLCase("http://example.com/foo/%2e%2", nil, "http://example.com/foo/%2e%2"),
        URLCase("http://example.com/foo/%2e./%2e%2e/.%2e/%2e.bar", nil, "http://example.com/%2e.bar"),
        URLCase("http://example.com////../..", nil, "http://example.com//"),
        URLCase("http://example.com/foo/bar//../..", nil, "http://example.com/foo/"),
        URLCase("http://example.com/foo/bar//..", nil, "http://example.com/foo/bar/"),
        URLCase("https://example.com/aaa/bbb/%2e%2e?query", nil, "https://example.com/aaa/?query"),
        URLCase("http://www/foo%2Ehtml", nil, "http://www/foo%2Ehtml"),
        URLCase("http://www/foo/%2E/html", nil, "http://www/foo/html"),
        URLCase("https://EXAMPLE.com/../x", nil, "https://example.com/x"),
        URLCase("https://example.com/././foo", nil, "https://example.com/foo"),
    ]

    @Test("Dot segments, including percent-encoded ones, and clamping at the root", arguments: dotSegments)
    func dotSegmentCases(_ testCase: URLCase) { testCase.check() }
}

@Suite("BrowserURL: percent-encoding")
struct BrowserURLPercentEncodingTests {
    static let paths: [URLCase] = [
        URLCase("http://example.com/%20foo", nil, "http://example.com/%20foo"),
        URLCase("http://example.com/foo%", nil, "http://example.com/foo%"),
        URLCase("http://example.com/foo%2", nil, "http://example.com/foo%2"),
        URLCase("http://example.com/foo%2zbar", nil, "http://example.com/foo%2zbar"),
        URLCase("http://example.com/foo%2Â©zbar", nil, "http://example.com/foo%2%C3%82%C2%A9zbar"),
        URLCase("http://example.com/foo%41%7a", nil, "http://example.com/foo%41%7a"),
        URLCase("http://example.com/foo\t\u{91}%91", nil, "http://example.com/foo%C2%91%91"),
        URLCase("http://example.com/foo%00%51", nil, "http://example.com/foo%00%51"),
        URLCase("http://example.com/(%28:%3A%29)", nil, "http://example.com/(%28:%3A%29)"),
        URLCase("http://example.com/%3A%3a%3C%3c", nil, "http://example.com/%3A%3a%3C%3c"),
        URLCase(#"http://example.com\\foo\\bar"#, nil, "http://example.com//foo//bar"),
        URLCase("http://example.com/%7Ffp3%3Eju%3Dduvgw%3Dd", nil, "http://example.com/%7Ffp3%3Eju%3Dduvgw%3Dd"),
        URLCase("http://example.com/@asdf%40", nil, "http://example.com/@asdf%40"),
        URLCase("http://example.com/你好你好", nil, "http://example.com/%E4%BD%A0%E5%A5%BD%E4%BD%A0%E5%A5%BD"),
        URLCase("http://example.com/‥/foo", nil, "http://example.com/%E2%80%A5/foo"),
        URLCase("http://example.com/\u{FEFF}/foo", nil, "http://example.com/%EF%BB%BF/foo"),
        URLCase("http://example.com/\u{202E}/foo/\u{202D}/bar", nil, "http://example.com/%E2%80%AE/foo/%E2%80%AD/bar"),
        URLCase("https://example.com/\"quoted\"", nil, "https://example.com/%22quoted%22"),
        URLCase("https://example.org/foo bar", nil, "https://example.org/foo%20bar"),
        URLCase("https://example.com/[]?[]#[]", nil, "https://example.com/[]?[]#[]"),
        URLCase("https://example/%?%#%", nil, "https://example/%?%#%"),
        URLCase("https://example/%25?%25#%25", nil, "https://example/%25?%25#%25"),
        URLCase("https://x/\u{0}y", nil, "https://x/%00y"),
        URLCase("https://x/\u{FFFF}y", nil, "https://x/%EF%BF%BFy"),
        URLCase("https://x/\u{FFFD}?\u{FFFD}#\u{FFFD}", nil, "https://x/%EF%BF%BD?%EF%BF%BD#%EF%BF%BD"),
        URLCase("http://`{}:`{}@h/`{}?`{}", "http://doesnotmatter/", "http://%60%7B%7D:%60%7B%7D@h/%60%7B%7D?`{}"),
        URLCase(#"foo://host/ !"$%&'()*+,-./:;<=>@[\]^_`{|}~"#, nil,
                #"foo://host/%20!%22$%&'()*+,-./:;%3C=%3E@[\]%5E_%60%7B|%7D~"#),
        URLCase(#"wss://host/ !"$%&'()*+,-./:;<=>@[\]^_`{|}~"#, nil,
                #"wss://host/%20!%22$%&'()*+,-./:;%3C=%3E@[/]%5E_%60%7B|%7D~"#),
        URLCase("https://www.example.com/path{\u{7F}path.html?query'\u{7F}=query#fragment<\u{7F}fragment", nil,
                "https://www.example.com/path%7B%7Fpath.html?query%27%7F=query#fragment%3C%7Ffragment"),
        URLCase("http://f:21/ b ? d # e ", wptBase, "http://f:21/%20b%20?%20d%20#%20e"),
    ]

    @Test("Path percent-encode set; existing %XX kept", arguments: paths)
    func pathCases(_ testCase: URLCase) { testCase.check() }

    static let queriesAndFragments: [URLCase] = [
        URLCase("http://host/?'", nil, "http://host/?%27"),
        URLCase("notspecial://host/?'", nil, "notspecial://host/?'"),
        URLCase("http://example.org/test?\"", nil, "http://example.org/test?%22"),
        URLCase("http://example.org/test?#", nil, "http://example.org/test?#"),
        URLCase("http://example.org/test?<", nil, "http://example.org/test?%3C"),
        URLCase("http://example.org/test?>", nil, "http://example.org/test?%3E"),
        URLCase("http://example.org/test?\u{2323}", nil, "http://example.org/test?%E2%8C%A3"),
        URLCase("http://example.org/test?%23%23", nil, "http://example.org/test?%23%23"),
        URLCase("http://example.org/test?%GH", nil, "http://example.org/test?%GH"),
        URLCase("http://example.org/test?a#%EF", nil, "http://example.org/test?a#%EF"),
        URLCase("http://example.org/test?a#%GH", nil, "http://example.org/test?a#%GH"),
        URLCase("http://example.org/test?a#b\u{0}c", nil, "http://example.org/test?a#b%00c"),
        URLCase("non-spec://example.org/test?a#b\u{0}c", nil, "non-spec://example.org/test?a#b%00c"),
        URLCase("http://foo/path;a??e#f#g", wptBase, "http://foo/path;a??e#f#g"),
        URLCase("http://foo/abcd?efgh?ijkl", wptBase, "http://foo/abcd?efgh?ijkl"),
        URLCase("http://foo/abcd#foo?bar", wptBase, "http://foo/abcd#foo?bar"),
        URLCase("http://foo.bar/baz?qux#foo\u{8}bar", nil, "http://foo.bar/baz?qux#foo%08bar"),
        URLCase("http://foo.bar/baz?qux#foo\"bar", nil, "http://foo.bar/baz?qux#foo%22bar"),
        URLCase("http://foo.bar/baz?qux#foo<bar", nil, "http://foo.bar/baz?qux#foo%3Cbar"),
        URLCase("http://foo.bar/baz?qux#foo>bar", nil, "http://foo.bar/baz?qux#foo%3Ebar"),
        URLCase("http://foo.bar/baz?qux#foo`bar", nil, "http://foo.bar/baz?qux#foo%60bar"),
        URLCase("http://www.google.com/foo?bar=baz#", nil, "http://www.google.com/foo?bar=baz#"),
        URLCase("http://www.google.com/foo?bar=baz# »", nil, "http://www.google.com/foo?bar=baz#%20%C2%BB"),
        URLCase("https://x/?\u{0}y", nil, "https://x/?%00y"),
        URLCase("https://x/?#\u{0}y", nil, "https://x/?#%00y"),
        URLCase("https://x/?\u{FFFF}y", nil, "https://x/?%EF%BF%BFy"),
        URLCase("http://facebook.com/?foo=%7B%22abc%22", nil, "http://facebook.com/?foo=%7B%22abc%22"),
        URLCase(#"foo://host/dir/? !"$%&'()*+,-./:;<=>?@[\]^_`{|}~"#, nil,
                #"foo://host/dir/?%20!%22$%&'()*+,-./:;%3C=%3E?@[\]^_`{|}~"#),
        URLCase(#"wss://host/dir/? !"$%&'()*+,-./:;<=>?@[\]^_`{|}~"#, nil,
                #"wss://host/dir/?%20!%22$%&%27()*+,-./:;%3C=%3E?@[\]^_`{|}~"#),
        URLCase(##"foo://host/dir/# !"#$%&'()*+,-./:;<=>?@[\]^_`{|}~"##, nil,
                ##"foo://host/dir/#%20!%22#$%&'()*+,-./:;%3C=%3E?@[\]^_%60{|}~"##),
        URLCase(##"wss://host/dir/# !"#$%&'()*+,-./:;<=>?@[\]^_`{|}~"##, nil,
                ##"wss://host/dir/#%20!%22#$%&'()*+,-./:;%3C=%3E?@[\]^_%60{|}~"##),
    ]

    @Test("Query ((special-)query set) and fragment (fragment set) encoding", arguments: queriesAndFragments)
    func queryAndFragmentCases(_ testCase: URLCase) { testCase.check() }

    static let userinfo: [URLCase] = [
        URLCase("http://user:pass@foo:21/bar;par?b#c", wptBase, "http://user:pass@foo:21/bar;par?b#c"),
        URLCase("https://test:@test", nil, "https://test@test/"),
        URLCase("https://:@test", nil, "https://test/"),
        URLCase("non-special://test:@test/x", nil, "non-special://test@test/x"),
        URLCase("non-special://:@test/x", nil, "non-special://test/x"),
        URLCase("http://a:b@c:29/d", wptBase, "http://a:b@c:29/d"),
        URLCase("http::@c:29", wptBase, "http://example.org/foo/:@c:29"),
        URLCase("http://&a:foo(b]c@d:2/", wptBase, "http://&a:foo(b%5Dc@d:2/"),
        URLCase("http://::@c@d:2", wptBase, "http://:%3A%40c@d:2/"),
        URLCase("http://foo.com:b@d/", wptBase, "http://foo.com:b@d/"),
        URLCase(#"http://foo.com/\@"#, wptBase, "http://foo.com//@"),
        URLCase(#"http:\\foo.com\"#, wptBase, "http://foo.com/"),
        URLCase(#"http:\\a\b:c\d@foo.com\"#, wptBase, "http://a/b:c/d@foo.com/"),
        URLCase(#"http://a:b@c\"#, nil, "http://a:b@c/"),
        URLCase(#"ws://a@b\c"#, nil, "ws://a@b/c"),
        URLCase("http://%25DOMAIN:foobar@foodomain.com/", nil, "http://%25DOMAIN:foobar@foodomain.com/"),
        URLCase("http:@www.example.com", nil, "http://www.example.com/"),
        URLCase("http:/@www.example.com", nil, "http://www.example.com/"),
        URLCase("http://@www.example.com", nil, "http://www.example.com/"),
        URLCase("http:a:b@www.example.com", nil, "http://a:b@www.example.com/"),
        URLCase("http://@pple.com", nil, "http://pple.com/"),
        URLCase("http::b@www.example.com", nil, "http://:b@www.example.com/"),
        URLCase("http://:b@www.example.com", nil, "http://:b@www.example.com/"),
        URLCase("http:a:@www.example.com", nil, "http://a@www.example.com/"),
        URLCase("http://www.@pple.com", nil, "http://www.@pple.com/"),
        URLCase("http://:@www.example.com", nil, "http://www.example.com/"),
        URLCase("https://@test@test@example:800/", "http://doesnotmatter/", "https://%40test%40test@example:800/"),
        URLCase("https://@@@example", "http://doesnotmatter/", "https://%40%40@example/"),
        URLCase("http://foo:💩@example.com/bar", "http://other.com/", "http://foo:%F0%9F%92%A9@example.com/bar"),
        URLCase("https://user:pass[\u{7F}@foo/bar", "http://example.org", "https://user:pass%5B%7F@foo/bar"),
        URLCase("https://user:password@example.org/", nil, "https://user:password@example.org/"),
        URLCase(#"foo:// !"$%&'()*+,-.;<=>@[\]^_`{|}~@host/"#, nil,
                "foo://%20!%22$%&'()*+,-.%3B%3C%3D%3E%40%5B%5C%5D%5E_%60%7B%7C%7D~@host/"),
        URLCase(#"foo://joe: !"$%&'()*+,-.:;<=>@[\]^_`{|}~@host/"#, nil,
                "foo://joe:%20!%22$%&'()*+,-.%3A%3B%3C%3D%3E%40%5B%5C%5D%5E_%60%7B%7C%7D~@host/"),
        URLCase("wss://joe: !\"$%&'()*+,-.:;<=>@[]^_`{|}~@host/", nil,
                "wss://joe:%20!%22$%&'()*+,-.%3A%3B%3C%3D%3E%40%5B%5D%5E_%60%7B%7C%7D~@host/"),
        URLCase("http://user:pass@/", nil, nil),
        URLCase("http://user@/www.example.com", nil, nil),
        URLCase("http://@/www.example.com", nil, nil),
        URLCase("http://a:b@/www.example.com", nil, nil),
        URLCase("http://@:www.example.com", nil, nil),
        URLCase("sc://@/", nil, nil),
        URLCase("sc://te@s:t@/", nil, nil),
        URLCase("sc://:/", nil, nil),
        URLCase("sc://:12/", nil, nil),
        URLCase("http://?", nil, nil),
        URLCase("http://#", nil, nil),
    ]

    @Test("Userinfo: userinfo set, multiple @, missing hosts", arguments: userinfo)
    func userinfoCases(_ testCase: URLCase) { testCase.check() }
}

@Suite("BrowserURL: hosts")
struct BrowserURLHostTests {
    static let domains: [URLCase] = [
        URLCase("http://ExAmPlE.CoM", "http://other.com/", "http://example.com/"),
        URLCase("http://EXAMPLE.com./", nil, "http://example.com./"),
        URLCase("http://example.com%2E/", nil, "http://example.com./"),
        URLCase("http://bücher.example/x.png", nil, "http://xn--bcher-kva.example/x.png"),
        URLCase("http://BÜCHER.example/", nil, "http://xn--bcher-kva.example/"),
        URLCase("http://b%C3%BCcher.example/", nil, "http://xn--bcher-kva.example/"),
        URLCase("http://例え.テスト/", nil, "http://xn--r8jz45g.xn--zckzah/"),
        URLCase("http://你好你好", "http://other.com/", "http://xn--6qqa088eba/"),
        URLCase("https://faß.ExAmPlE/", nil, "https://xn--fa-hia.example/"),
        URLCase("sc://faß.ExAmPlE/", nil, "sc://fa%C3%9F.ExAmPlE/"),
        URLCase("ftp://%e2%98%83", nil, "ftp://xn--n3h/"),
        URLCase("https://%e2%98%83", nil, "https://xn--n3h/"),
        URLCase("http://☕.example/", nil, "http://xn--53h.example/"),
        URLCase("http://Ｇｏ.com", "http://other.com/", "http://go.com/"),
        URLCase("http://www.foo。bar.com", "http://other.com/", "http://www.foo.bar.com/"),
        URLCase("http://GOO\u{200b}\u{2060}\u{feff}goo.com", "http://other.com/", "http://googoo.com/"),
        URLCase("https://a%C2%ADb/", nil, "https://ab/"),
        URLCase("file://a\u{AD}b/p", nil, "file://ab/p"),
        URLCase("file://a%C2%ADb/p", nil, "file://ab/p"),
        URLCase("file://loC𝐀𝐋𝐇𝐨𝐬𝐭/usr/bin", nil, "file:///usr/bin"),
        URLCase("http://./", nil, "http://./"),
        URLCase("http://../", nil, "http://../"),
        URLCase("h://.", nil, "h://."),
        URLCase(#"http://!"$&'()*+,-.;=_`{}~/"#, nil, #"http://!"$&'()*+,-.;=_`{}~/"#),
        URLCase("http://ho\tst/", nil, "http://host/"),
        URLCase("foo://ho\nst/", nil, "foo://host/"),
        URLCase("http://example example.com", "http://other.com/", nil),
        URLCase("http://Goo%20 goo%7C|.com", "http://other.com/", nil),
        URLCase("http://GOO\u{a0}\u{3000}goo.com", "http://other.com/", nil),
        URLCase("http://\(Character(Unicode.Scalar(0xFDD0)!))zyx.com", "http://other.com/", nil),
        URLCase("http://%ef%b7%90zyx.com", "http://other.com/", nil),
        URLCase("https://\u{fffd}", nil, nil),
        URLCase("https://%EF%BF%BD", nil, nil),
        URLCase("http://a.b.c.xn--pokxncvks", nil, nil),
        URLCase("http://10.0.0.xn--pokxncvks", nil, nil),
        URLCase("http://a.b.c.XN--pokxncvks", nil, nil),
        URLCase("http://a.b.c.Xn--pokxncvks", nil, nil),
        URLCase("http://10.0.0.xN--pokxncvks", nil, nil),
        URLCase("http://％４１.com", "http://other.com/", nil),
        URLCase("http://%ef%bc%85%ef%bc%94%ef%bc%91.com", "http://other.com/", nil),
        URLCase("http://％００.com", "http://other.com/", nil),
        URLCase("http://%zz%66%a.com", "http://other.com/", nil),
        URLCase("http://%25", "http://other.com/", nil),
        URLCase("http://hello%00", "http://other.com/", nil),
        URLCase("http://192.168.0.1 hello", "http://other.com/", nil),
        URLCase("https://x x:12", nil, nil),
        URLCase("https://ex ample.org/", nil, nil),
        URLCase("ftp://example.com%80/", nil, nil),
        URLCase("ftp://example.com%A0/", nil, nil),
        URLCase("https://example.com%80/", nil, nil),
        URLCase("https://example.com%A0/", nil, nil),
        URLCase("https://\u{AD}/", nil, nil),
        URLCase("https://%C2%AD/", nil, nil),
        URLCase("https://xn--/", nil, nil),
        URLCase("file://\u{ad}/p", nil, nil),
        URLCase("file://%C2%AD/p", nil, nil),
        URLCase("file://xn--/p", nil, nil),
        URLCase("http://💩.123/", nil, nil),
    ]

    @Test("Domains: lower-casing, percent-decoding, IDNA, trailing dot", arguments: domains)
    func domainCases(_ testCase: URLCase) { testCase.check() }

    static let forbiddenCodePoints: [String] = {
        var inputs: [String] = []
        for value in 0x01...0x1F where value != 0x09 && value != 0x0A && value != 0x0D {
            inputs.append("http://a\(Character(Unicode.Scalar(UInt8(value))))b/")
        }
        inputs += ["http://a\u{0}b/", "http://a b/", "http://a%b/", "http://a<b", "http://a>b", "http://a[b/",
                   "http://a]b/", "http://a^b", "http://a|b/", "http://a\u{7F}b/"]
        for code in ["00", "01", "08", "09", "0A", "0D", "1F", "20", "23", "25", "2F", "3A", "3C", "3E", "3F",
                     "40", "5B", "5C", "5D", "7C", "7F"] {
            inputs.append("http://ho%\(code)st/")
        }
        inputs += ["sc://a\u{0}b/", "sc://a b/", "sc://a<b", "sc://a>b", "sc://a[b/", #"sc://a\b/"#, "sc://a]b/",
                   "sc://a^b", "sc://a|b/", "http://example^example/", "sc://example^example/"]
        return inputs
    }()

    @Test("Forbidden host and domain code points fail", arguments: forbiddenCodePoints)
    func forbiddenCodePointCases(_ input: String) {
        #expect(BrowserURL(input) == nil)
    }

    static let opaqueHosts: [URLCase] = [
        URLCase("sc://ñ.test/", nil, "sc://%C3%B1.test/"),
        URLCase("sc://%/", nil, "sc://%/"),
        URLCase("x", "sc://ñ", "sc://%C3%B1/x"),
        URLCase("non-special://%E2%80%A0/", nil, "non-special://%E2%80%A0/"),
        URLCase("non-special://H%4fSt/path", nil, "non-special://H%4fSt/path"),
        URLCase("sc://EXAMPLE.COM/", nil, "sc://EXAMPLE.COM/"),
        URLCase("sc://example%2Ecom/", nil, "sc://example%2Ecom/"),
        URLCase("sc://0/", nil, "sc://0/"),
        URLCase("sc://%30/", nil, "sc://%30/"),
        URLCase("sc://0x/", nil, "sc://0x/"),
        URLCase("sc://0xffffffff/", nil, "sc://0xffffffff/"),
        URLCase("sc://09/", nil, "sc://09/"),
        URLCase("sc://example.255/", nil, "sc://example.255/"),
        URLCase("sc://[0:0::1]/", nil, "sc://[::1]/"),
        URLCase(#"foo://!"$%&'()*+,-.;=_`{}~/"#, nil, #"foo://!"$%&'()*+,-.;=_`{}~/"#),
        URLCase("sc://\u{1}\u{2}\u{3}\u{4}\u{5}\u{6}\u{7}\u{8}\u{B}\u{C}\u{E}\u{F}\u{10}\u{11}\u{12}\u{13}\u{14}\u{15}\u{16}\u{17}\u{18}\u{19}\u{1A}\u{1B}\u{1C}\u{1D}\u{1E}\u{1F}\u{7F}!\"$%&'()*+,-.;=_`{}~/",
                nil,
                "sc://%01%02%03%04%05%06%07%08%0B%0C%0E%0F%10%11%12%13%14%15%16%17%18%19%1A%1B%1C%1D%1E%1F%7F!\"$%&'()*+,-.;=_`{}~/"),
        URLCase("asdf://%43%7C/", nil, "asdf://%43%7C/"),
        URLCase("asdf://%43|/", nil, nil),
        URLCase("non-special://host\\a", nil, nil),
    ]

    @Test("Opaque hosts of non-special URLs", arguments: opaqueHosts)
    func opaqueHostCases(_ testCase: URLCase) { testCase.check() }

    static let ipv4: [URLCase] = [
        URLCase("http://0x7f.1/", nil, "http://127.0.0.1/"),
        URLCase("http://127.1/", nil, "http://127.0.0.1/"),
        URLCase("http://0177.0.0.1/", nil, "http://127.0.0.1/"),
        URLCase("http://0/", nil, "http://0.0.0.0/"),
        URLCase("http://%30/", nil, "http://0.0.0.0/"),
        URLCase("http://0x/", nil, "http://0.0.0.0/"),
        URLCase("http://0xffffffff", "http://other.com/", "http://255.255.255.255/"),
        URLCase("http://192.0x00A80001", nil, "http://192.168.0.1/"),
        URLCase("http://%30%78%63%30%2e%30%32%35%30.01", "http://other.com/", "http://192.168.0.1/"),
        URLCase("http://%30%78%63%30%2e%30%32%35%30.01%2e", "http://other.com/", "http://192.168.0.1/"),
        URLCase("http://０Ｘｃ０．０２５０．０１", "http://other.com/", "http://192.168.0.1/"),
        URLCase("http://1.2.3.4/", "http://other.com/", "http://1.2.3.4/"),
        URLCase("http://1.2.3.4./", "http://other.com/", "http://1.2.3.4/"),
        URLCase("https://127.0.0.1./", nil, "https://127.0.0.1/"),
        URLCase("http://192.168.257", "http://other.com/", "http://192.168.1.1/"),
        URLCase("http://192.168.257.", "http://other.com/", "http://192.168.1.1/"),
        URLCase("http://192.168.257.com", "http://other.com/", "http://192.168.257.com/"),
        URLCase("http://256", "http://other.com/", "http://0.0.1.0/"),
        URLCase("http://256.com", "http://other.com/", "http://256.com/"),
        URLCase("http://999999999", "http://other.com/", "http://59.154.201.255/"),
        URLCase("http://999999999.", "http://other.com/", "http://59.154.201.255/"),
        URLCase("http://999999999.com", "http://other.com/", "http://999999999.com/"),
        URLCase("http://10000000000.com", "http://other.com/", "http://10000000000.com/"),
        URLCase("http://4294967295", "http://other.com/", "http://255.255.255.255/"),
        URLCase("https://0x.0x.0", nil, "https://0.0.0.0/"),
        URLCase("http://0x7f.0.0.0x7g", nil, "http://0x7f.0.0.0x7g/"),
        URLCase("http://0X7F.0.0.0X7G", nil, "http://0x7f.0.0.0x7g/"),
        URLCase("http://foo.09..", nil, "http://foo.09../"),
        URLCase("http://127.0.0.1:10100/relative_import.html", nil, "http://127.0.0.1:10100/relative_import.html"),
        URLCase("http://192.168.0.257", "http://other.com/", nil),
        URLCase("http://%3g%78%63%30%2e%30%32%35%30%2E.01", "http://other.com/", nil),
        URLCase("http://10000000000", "http://other.com/", nil),
        URLCase("http://4294967296", "http://other.com/", nil),
        URLCase("http://0xffffffff1", "http://other.com/", nil),
        URLCase("http://256.256.256.256", "http://other.com/", nil),
        URLCase("https://0x100000000/test", nil, nil),
        URLCase("https://256.0.0.1/test", nil, nil),
        URLCase("http://1.2.3.4.5", "http://other.com/", nil),
        URLCase("http://1.2.3.4.5.", "http://other.com/", nil),
        URLCase("http://0..0x300/", nil, nil),
        URLCase("http://0..0x300./", nil, nil),
        URLCase("http://256.256.256.256.256", "http://other.com/", nil),
        URLCase("http://1.2.3.08", nil, nil),
        URLCase("http://1.2.3.08.", nil, nil),
        URLCase("http://1.2.3.09", nil, nil),
        URLCase("http://09.2.3.4", nil, nil),
        URLCase("http://09.2.3.4.", nil, nil),
        URLCase("http://01.2.3.4.5", nil, nil),
        URLCase("http://0x100.2.3.4", nil, nil),
        URLCase("http://0x1.2.3.4.5", nil, nil),
        URLCase("http://foo.1.2.3.4", nil, nil),
        URLCase("http://foo.2.3.4", nil, nil),
        URLCase("http://foo.09", nil, nil),
        URLCase("http://foo.0x4", nil, nil),
        URLCase("http://foo.0x", nil, nil),
        URLCase("http://foo.0XFfFfFfFfFfFfFfFfFfAcE123", nil, nil),
        URLCase("http://0999999999999999999/", nil, nil),
        URLCase("http://09/", nil, nil),
        URLCase("http://example.255/", nil, nil),
    ]

    @Test("IPv4: hex, octal, fewer than four parts, range checks", arguments: ipv4)
    func ipv4Cases(_ testCase: URLCase) { testCase.check() }

    static let ipv6: [URLCase] = [
        URLCase("http://[0:0::1]/", nil, "http://[::1]/"),
        URLCase("http://[2001::1]", wptBase, "http://[2001::1]/"),
        URLCase("http://[2001::1]:80", wptBase, "http://[2001::1]/"),
        URLCase("http://[::127.0.0.1]", wptBase, "http://[::7f00:1]/"),
        URLCase("http://[0:0:0:0:0:0:13.1.68.3]", wptBase, "http://[::d01:4403]/"),
        URLCase("http://[1:0::]", "http://example.net/", "http://[1::]/"),
        URLCase("http://[::]/", nil, "http://[::]/"),
        URLCase("http://[0:f:0:0:f:f:0:0]/", nil, "http://[0:f::f:f:0:0]/"),
        URLCase("http://[1:0:0:2::3:0]/", nil, "http://[1::2:0:0:3:0]/"),
        URLCase("http://[0:1:0:1:0:1:0:1]", nil, "http://[0:1:0:1:0:1:0:1]/"),
        URLCase("http://[1:0:1:0:1:0:1:0]", nil, "http://[1:0:1:0:1:0:1:0]/"),
        URLCase("http://[ABCD:EF01:2345:6789:ABCD:EF01:2345:6789]/", nil, "http://[abcd:ef01:2345:6789:abcd:ef01:2345:6789]/"),
        URLCase("http://[::ffff:192.168.0.1]/", nil, "http://[::ffff:c0a8:1]/"),
        URLCase("non-special://[1:2:0:0:5:0:0:0]/", nil, "non-special://[1:2:0:0:5::]/"),
        URLCase("non-special://[1:2:0:0:0:0:0:3]/", nil, "non-special://[1:2::3]/"),
        URLCase("non-special://[1:2::3]:80/", nil, "non-special://[1:2::3]:80/"),
        URLCase("file://[1::8]/C:/", nil, "file://[1::8]/C:/"),
        URLCase("http://[::127.0.0.1.]", wptBase, nil),
        URLCase("http://2001::1", wptBase, nil),
        URLCase("http://2001::1]", wptBase, nil),
        URLCase("http://2001::1]:80", wptBase, nil),
        URLCase("http://[]", "http://other.com/", nil),
        URLCase("http://[:]", "http://other.com/", nil),
        URLCase("http://[www.google.com]/", nil, nil),
        URLCase("http://[google.com]", "http://other.com/", nil),
        URLCase("http://[::1.2.3.4x]", "http://other.com/", nil),
        URLCase("http://[::1.2.3.]", "http://other.com/", nil),
        URLCase("http://[::1.2.]", "http://other.com/", nil),
        URLCase("http://[::.1.2]", "http://other.com/", nil),
        URLCase("http://[::1.]", "http://other.com/", nil),
        URLCase("http://[::.1]", "http://other.com/", nil),
        URLCase("http://[::%31]", "http://other.com/", nil),
        URLCase("http://%5B::1]", "http://other.com/", nil),
        URLCase("http://[0:0::1%5D/", nil, nil),
        URLCase("http://[0:1:2:3:4:5:6:7:8]", "http://example.net/", nil),
        URLCase("https://[0::0::0]", nil, nil),
        URLCase("https://[0:.0]", nil, nil),
        URLCase("https://[0:0:]", nil, nil),
        URLCase("https://[0:1:2:3:4:5:6:7.0.0.0.1]", nil, nil),
        URLCase("https://[0:1.00.0.0.0]", nil, nil),
        URLCase("https://[0:1.290.0.0.0]", nil, nil),
        URLCase("https://[0:1.23.23]", nil, nil),
        URLCase("http://[::127.0.0.0.1]", nil, nil),
        URLCase("https://[::1", nil, nil),
        URLCase("https://[:1]", nil, nil),
        URLCase("https://[1:2:3!:4]", nil, nil),
        URLCase("https://[1:2:3:]", nil, nil),
        URLCase("https://[1:2:3]", nil, nil),
        URLCase("https://[1:1:1:1:1:1:1:127.0.0.1]", nil, nil),
        URLCase("https://[ffff::.0.0.1]", nil, nil),
        URLCase("https://[ffff::127.0.xyz.1]", nil, nil),
        URLCase("https://[ffff::127.0xyz]", nil, nil),
        URLCase("https://[ffff::127.00.0.1]", nil, nil),
        URLCase("https://[ffff::127.0.0.1.2]", nil, nil),
        URLCase("https://[ffff::127.0.0.4000]", nil, nil),
        URLCase("https://[ffff::127.0.0]", nil, nil),
        URLCase("non-special://[:80/", nil, nil),
        URLCase("http://[www.example.com]/", nil, nil),
    ]

    @Test("IPv6: parsing, IPv4-in-IPv6, canonical serialisation with :: compression", arguments: ipv6)
    func ipv6Cases(_ testCase: URLCase) { testCase.check() }

    /// WPT toascii.json, run through the host parser of an https: URL.
    static let toASCII: [(String, String?)] = [
        ("aa--", "aa--"), ("a†--", "xn--a---kp0a"), ("ab--c", "ab--c"), ("-x", "-x"), ("-†", "xn----xhn"),
        ("-x.xn--zca", "-x.xn--zca"), ("-x.ß", "-x.xn--zca"), ("x-.xn--zca", "x-.xn--zca"), ("x-.ß", "x-.xn--zca"),
        ("x..xn--zca", "x..xn--zca"), ("x..ß", "x..xn--zca"), ("xn--a", nil), ("xn--a.xn--zca", nil),
        ("xn--a.ß", nil), ("xn--ls8h=", nil), ("xn--tešla", nil), ("xn--zca.xn--zca", "xn--zca.xn--zca"),
        ("xn--zca.ß", "xn--zca.xn--zca"), ("ab--c.xn--zca", "ab--c.xn--zca"), ("ab--c.ß", "ab--c.xn--zca"),
        ("\u{200D}.example", nil), ("xn--1ug.example", nil), ("يa", nil), ("\u{064A}.", "xn--mhb."),
        ("1.\u{064A}", "1.xn--mhb"), ("\u{064A}.1", nil), ("xn--mhb.1", nil), ("xn--a-yoc", nil),
        ("ශ්‍රී", "xn--10cl1a0b660p"), ("نامه‌ای", "xn--mgba3gch31f060k"), ("\u{FFFD}.com", nil),
        ("xn--zn7c.com", nil),
        ("x01234567890123456789012345678901234567890123456789012345678901x",
         "x01234567890123456789012345678901234567890123456789012345678901x"),
        ("x01234567890123456789012345678901234567890123456789012345678901†",
         "xn--x01234567890123456789012345678901234567890123456789012345678901-6963b"),
        ("a\u{00AD}b", "ab"), ("≠", "xn--1ch"), ("≮", "xn--gdh"), ("≯", "xn--hdh"),
    ]

    @Test("UTS #46 ToASCII cases (WPT toascii.json)")
    func toASCIICases() {
        for (input, output) in Self.toASCII {
            let url = BrowserURL("https://\(input)/")
            #expect(url?.host == output, "\(input.debugDescription)")
        }
    }

    @Test("Host table from the standard: domain versus opaque-host parsing")
    func hostTable() {
        let rows: [(String, String?, String?)] = [
            ("EXAMPLE.COM", "example.com", "EXAMPLE.COM"),
            ("example%2Ecom", "example.com", "example%2Ecom"),
            ("faß.example", "xn--fa-hia.example", "fa%C3%9F.example"),
            ("0", "0.0.0.0", "0"),
            ("%30", "0.0.0.0", "%30"),
            ("0x", "0.0.0.0", "0x"),
            ("0xffffffff", "255.255.255.255", "0xffffffff"),
            ("[0:0::1]", "[::1]", "[::1]"),
            ("[0:0::1%5D", nil, nil),
            ("[0:0::%31]", nil, nil),
            ("09", nil, "09"),
            ("example.255", nil, "example.255"),
            ("example^example", nil, nil),
        ]
        for (input, special, opaque) in rows {
            #expect(BrowserURL("https://\(input)/")?.host == special, "\(input)")
            #expect(BrowserURL("sc://\(input)/")?.host == opaque, "\(input)")
        }
    }

    @Test("Punycode encodes RFC 3492 sample strings")
    func punycodeSamples() {
        let samples: [(String, String)] = [
            ("bücher", "bcher-kva"),
            ("例え", "r8jz45g"),
            ("テスト", "zckzah"),
            ("ü", "tda"),
            ("ß", "zca"),
            ("☕", "53h"),
            ("他们为什么不说中文", "ihqwcrb4cv8a8dqg056pqjye"),
            ("3年B組金八先生", "3B-ww4c5e180e575a65lsy2b"),
        ]
        for (unicode, encoded) in samples {
            let bytes = Punycode.encode(Array(unicode.unicodeScalars))
            #expect(bytes.map { String(decoding: $0, as: UTF8.self) } == encoded)
            let decoded = Punycode.decode(Array(encoded.utf8)[...])
            #expect(decoded.map { String(String.UnicodeScalarView($0)) } == unicode)
        }
    }

    /// RFC 3492's encoding loop, verbatim, to check the O(n log n) encoder against.
    static func referenceEncode(_ input: [Unicode.Scalar]) -> [UInt8] {
        func threshold(_ k: Int, _ bias: Int) -> Int { k <= bias ? 1 : (k >= bias + 26 ? 26 : k - bias) }
        func digit(_ d: Int) -> UInt8 { d < 26 ? UInt8(0x61 + d) : UInt8(0x30 + d - 26) }
        func adapt(_ delta: Int, _ numPoints: Int, _ first: Bool) -> Int {
            var delta = first ? delta / 700 : delta / 2
            delta += delta / numPoints
            var k = 0
            while delta > 455 { delta /= 35; k += 36 }
            return k + 36 * delta / (delta + 38)
        }
        let codePoints = input.map { Int($0.value) }
        var output = codePoints.filter { $0 < 0x80 }.map { UInt8($0) }
        let basicCount = output.count
        var handled = basicCount
        if basicCount > 0 { output.append(0x2D) }
        var n = 0x80, delta = 0, bias = 72
        while handled < codePoints.count {
            let m = codePoints.filter { $0 >= n }.min()!
            delta += (m - n) * (handled + 1)
            n = m
            for cp in codePoints {
                if cp < n { delta += 1 }
                if cp == n {
                    var q = delta
                    var k = 36
                    while true {
                        let t = threshold(k, bias)
                        if q < t { break }
                        output.append(digit(t + (q - t) % (36 - t)))
                        q = (q - t) / (36 - t)
                        k += 36
                    }
                    output.append(digit(q))
                    bias = adapt(delta, handled + 1, handled == basicCount)
                    delta = 0
                    handled += 1
                }
            }
            delta += 1
            n += 1
        }
        return output
    }

    @Test("Punycode encoder matches RFC 3492's loop and round-trips through the decoder")
    func punycodeAgainstReference() {
        var rng = BrowserURLRobustnessTests.SplitMix(state: 42)
        let alphabet: [Unicode.Scalar] = ["a", "b", "-", "0", "z", "ä", "ß", "é", "例", "え", "テ", "☕", "💩", "\u{0646}", "\u{10FFFD}"]
        for _ in 0..<2_000 {
            let length = Int.random(in: 1...24, using: &rng)
            let label = (0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &rng)] }
            let encoded = Punycode.encode(label)
            #expect(encoded == Self.referenceEncode(label))
            #expect(encoded.flatMap { Punycode.decode($0[...]) } == label)
        }
    }

    @Test("Long non-ASCII labels encode without quadratic blow-up")
    func longPunycodeLabel() throws {
        let label = (0..<20_000).map { Unicode.Scalar(UInt32(0x4E00 + $0))! }
        let encoded = try #require(Punycode.encode(label))
        #expect(Punycode.decode(encoded[...]) == label)
        let host = try #require(BrowserURL("https://" + String(String.UnicodeScalarView(label)) + "/")?.host)
        #expect(host.hasPrefix("xn--"))
    }
}

@Suite("BrowserURL: file URLs")
struct BrowserURLFileTests {
    static let cases: [URLCase] = [
        URLCase("img/a.png", "file:///tmp/page.html", "file:///tmp/img/a.png"),
        URLCase("../img/a.png", "file:///tmp/site/page.html", "file:///tmp/img/a.png"),
        URLCase("/abs.png", "file:///tmp/page.html", "file:///abs.png"),
        URLCase(#"file:c:\foo\bar.html"#, "file:///tmp/mock/path", "file:///c:/foo/bar.html"),
        URLCase(#"  File:c|////foo\bar.html"#, "file:///tmp/mock/path", "file:///c:////foo/bar.html"),
        URLCase("C|/foo/bar", "file:///tmp/mock/path", "file:///C:/foo/bar"),
        URLCase(#"/C|\foo\bar"#, "file:///tmp/mock/path", "file:///C:/foo/bar"),
        URLCase("//C|/foo/bar", "file:///tmp/mock/path", "file:///C:/foo/bar"),
        URLCase("//server/file", "file:///tmp/mock/path", "file://server/file"),
        URLCase(#"\\server\file"#, "file:///tmp/mock/path", "file://server/file"),
        URLCase(#"/\server/file"#, "file:///tmp/mock/path", "file://server/file"),
        URLCase("file:///foo/bar.txt", "file:///tmp/mock/path", "file:///foo/bar.txt"),
        URLCase("//", "file:///tmp/mock/path", "file:///"),
        URLCase("///", "file:///tmp/mock/path", "file:///"),
        URLCase("///test", "file:///tmp/mock/path", "file:///test"),
        URLCase("file://test", "file:///tmp/mock/path", "file://test/"),
        URLCase("file://localhost", "file:///tmp/mock/path", "file:///"),
        URLCase("file://localhost/test", "file:///tmp/mock/path", "file:///test"),
        URLCase("test", "file:///tmp/mock/path", "file:///tmp/mock/test"),
        URLCase("file:test", "file:///tmp/mock/path", "file:///tmp/mock/test"),
        URLCase("file:///w|m", nil, "file:///w|m"),
        URLCase("file:///w||m", nil, "file:///w||m"),
        URLCase("file:///w|/m", nil, "file:///w:/m"),
        URLCase("file:C|/m/", nil, "file:///C:/m/"),
        URLCase("file:C||/m/", nil, "file:///C||/m/"),
        URLCase("file:...", "http://www.example.com/test", "file:///..."),
        URLCase("file:..", "http://www.example.com/test", "file:///"),
        URLCase("file:a", "http://www.example.com/test", "file:///a"),
        URLCase("file:.", nil, "file:///"),
        URLCase("file:///C%3A/", nil, "file:///C%3A/"),
        URLCase("file:///C%7C/", nil, "file:///C%7C/"),
        URLCase("pix/submit.gif",
                "file:///C:/Users/Domenic/Dropbox/GitHub/tmpvar/jsdom/test/level2/html/files/anchor.html",
                "file:///C:/Users/Domenic/Dropbox/GitHub/tmpvar/jsdom/test/level2/html/files/pix/submit.gif"),
        URLCase("..", "file:///C:/", "file:///C:/"),
        URLCase("..", "file:///", "file:///"),
        URLCase("..", "file:///C:/demo", "file:///C:/"),
        URLCase("file:///C|/demo", nil, "file:///C:/demo"),
        URLCase("/", "file:///C:/a/b", "file:///C:/"),
        URLCase("/", "file://h/C:/a/b", "file://h/C:/"),
        URLCase("/", "file://h/a/b", "file://h/"),
        URLCase("//d:", "file:///C:/a/b", "file:///d:"),
        URLCase("//d:/..", "file:///C:/a/b", "file:///d:/"),
        URLCase("..", "file:///ab:/", "file:///"),
        URLCase("..", "file:///1:/", "file:///"),
        URLCase("", "file:///test?test#test", "file:///test?test"),
        URLCase("file:", "file:///test?test#test", "file:///test?test"),
        URLCase("?x", "file:///test?test#test", "file:///test?x"),
        URLCase("file:?x", "file:///test?test#test", "file:///test?x"),
        URLCase("#x", "file:///test?test#test", "file:///test?test#x"),
        URLCase("file:#x", "file:///test?test#test", "file:///test?test#x"),
        URLCase(#"file:\\//"#, nil, "file:////"),
        URLCase(#"file:\\\\"#, nil, "file:////"),
        URLCase(#"file:\\\\?fox"#, nil, "file:////?fox"),
        URLCase(##"file:\\\\#guppy"##, nil, "file:////#guppy"),
        URLCase("file://spider///", nil, "file://spider///"),
        URLCase(#"file:\\localhost//"#, nil, "file:////"),
        URLCase("file:///localhost//cat", nil, "file:///localhost//cat"),
        URLCase(#"file://\/localhost//cat"#, nil, "file:////localhost//cat"),
        URLCase("file://localhost//a//../..//", nil, "file://///"),
        URLCase("/////mouse", "file:///elephant", "file://///mouse"),
        URLCase(#"\//pig"#, "file://lion/", "file:///pig"),
        URLCase(#"\/localhost//pig"#, "file://lion/", "file:////pig"),
        URLCase("//localhost//pig", "file://lion/", "file:////pig"),
        URLCase("/..//localhost//pig", "file://lion/", "file://lion//localhost//pig"),
        URLCase("file://", "file://ape/", "file:///"),
        URLCase("/rooibos", "file://tea/", "file://tea/rooibos"),
        URLCase("/?chai", "file://tea/", "file://tea/?chai"),
        URLCase("C|", "file://host/dir/file", "file://host/C:"),
        URLCase("C|", "file://host/D:/dir1/dir2/file", "file://host/C:"),
        URLCase("C|#", "file://host/dir/file", "file://host/C:#"),
        URLCase("C|?", "file://host/dir/file", "file://host/C:?"),
        URLCase("C|/", "file://host/dir/file", "file://host/C:/"),
        URLCase(#"C|\"#, "file://host/dir/file", "file://host/C:/"),
        URLCase("C", "file://host/dir/file", "file://host/dir/C"),
        URLCase("C|a", "file://host/dir/file", "file://host/dir/C|a"),
        URLCase("/c:/foo/bar", "file:///c:/baz/qux", "file:///c:/foo/bar"),
        URLCase("/c|/foo/bar", "file:///c:/baz/qux", "file:///c:/foo/bar"),
        URLCase(#"file:\c:\foo\bar"#, "file:///c:/baz/qux", "file:///c:/foo/bar"),
        URLCase("/c:/foo/bar", "file://host/path", "file://host/c:/foo/bar"),
        URLCase("file://example.net/C:/", nil, "file://example.net/C:/"),
        URLCase("file://1.2.3.4/C:/", nil, "file://1.2.3.4/C:/"),
        URLCase("C|/", "file://host/", "file://host/C:/"),
        URLCase("/C:/", "file://host/", "file://host/C:/"),
        URLCase("file:C:/", "file://host/", "file://host/C:/"),
        URLCase("file:/C:/", "file://host/", "file://host/C:/"),
        URLCase("//C:/", "file://host/", "file:///C:/"),
        URLCase("file://C:/", "file://host/", "file:///C:/"),
        URLCase("///C:/", "file://host/", "file:///C:/"),
        URLCase("file:///C:/", "file://host/", "file:///C:/"),
        URLCase("file:/C|/", nil, "file:///C:/"),
        URLCase("file://C|/", nil, "file:///C:/"),
        URLCase("file:", nil, "file:///"),
        URLCase("file:?q=v", nil, "file:///?q=v"),
        URLCase("file:#frag", nil, "file:///#frag"),
        URLCase("file:///Y:", nil, "file:///Y:"),
        URLCase("file:///./Y", nil, "file:///Y"),
        URLCase("file:///./Y:", nil, "file:///Y:"),
        URLCase("file://localhost//a//../..//foo", nil, "file://///foo"),
        URLCase("file://localhost////foo", nil, "file://////foo"),
        URLCase("file:////foo", nil, "file:////foo"),
        URLCase("file:////one/two", "file:///", "file:////one/two"),
        URLCase("//one/two", "file:///", "file://one/two"),
        URLCase("///one/two", "file:///", "file:///one/two"),
        URLCase("////one/two", "file:///", "file:////one/two"),
        URLCase("file:///.//", "file:////", "file:////"),
        URLCase("file:.//p", nil, "file:////p"),
        URLCase("file:/.//p", nil, "file:////p"),
        URLCase("///abcdef/../", "file:///", "file:///"),
        URLCase(#"/\//\/a/../"#, "file:///", "file://////"),
        URLCase("//a/../", "file:///", "file://a/"),
        URLCase("file://loc%61lhost/", nil, "file:///"),
        URLCase("file://example:1/", nil, nil),
        URLCase("file://example:test/", nil, nil),
        URLCase("file://example%/", nil, nil),
        URLCase("file://[example]/", nil, nil),
        URLCase("file://%43%3A", nil, nil),
        URLCase("file://%43%7C", nil, nil),
        URLCase("file://%43|", nil, nil),
        URLCase("file://C%7C", nil, nil),
        URLCase("file://%43%7C/", nil, nil),
        URLCase("https://%43%7C/", nil, nil),
    ]

    @Test("file: URLs, including the Windows drive letter quirks", arguments: cases)
    func fileCases(_ testCase: URLCase) { testCase.check() }
}

@Suite("BrowserURL: non-special and opaque-path URLs")
struct BrowserURLNonSpecialTests {
    static let cases: [URLCase] = [
        URLCase("data:image/png;base64,AAA=", nil, "data:image/png;base64,AAA="),
        URLCase("data:text/html,test#test", wptBase, "data:text/html,test#test"),
        URLCase("data:test# »", nil, "data:test#%20%C2%BB"),
        URLCase("javascript:alert(1)", pageBase, "javascript:alert(1)"),
        URLCase("about:blank", nil, "about:blank"),
        URLCase("mailto:someone@example.com?subject=Hi there", nil, "mailto:someone@example.com?subject=Hi%20there"),
        URLCase("tel:1234567890", wptBase, "tel:1234567890"),
        URLCase("blob:https://example.com:443/", nil, "blob:https://example.com:443/"),
        URLCase("blob:d3958f5c-0777-0845-9dcf-2cb28783acaf", nil, "blob:d3958f5c-0777-0845-9dcf-2cb28783acaf"),
        URLCase("blob:", nil, "blob:"),
        URLCase("urn:ietf:rfc:2648", nil, "urn:ietf:rfc:2648"),
        URLCase("tag:joe@example.org,2001:foo/bar", nil, "tag:joe@example.org,2001:foo/bar"),
        URLCase("ssh://example.com/foo/bar.git", "http://example.org/", "ssh://example.com/foo/bar.git"),
        URLCase("lolscheme:x x#x x", nil, "lolscheme:x x#x%20x"),
        URLCase("a:\t foo.com", wptBase, "a: foo.com"),
        URLCase("non-special:opaque  ", nil, "non-special:opaque"),
        URLCase("non-special:opaque  ?hi", nil, "non-special:opaque %20?hi"),
        URLCase("non-special:opaque  #hi", nil, "non-special:opaque %20#hi"),
        URLCase("non-special:opaque  x?hi", nil, "non-special:opaque  x?hi"),
        URLCase("non-special:opaque  x#hi", nil, "non-special:opaque  x#hi"),
        URLCase("non-special:cannot-be-a-base-url-\u{0}\u{1}\u{1F}\u{1E}\u{7E}\u{7F}\u{80}", nil,
                "non-special:cannot-be-a-base-url-%00%01%1F%1E~%7F%C2%80"),
        URLCase(#"non-special:cannot-be-a-base-url-!"$%&'()*+,-.;<=>@[\]^_`{|}~@/"#, nil,
                #"non-special:cannot-be-a-base-url-!"$%&'()*+,-.;<=>@[\]^_`{|}~@/"#),
        URLCase("#", "test:test", "test:test#"),
        URLCase("#x", "mailto:x@x.com", "mailto:x@x.com#x"),
        URLCase("#x", "data:,", "data:,#x"),
        URLCase("#x", "about:blank", "about:blank#x"),
        URLCase("#x:y", "about:blank", "about:blank#x:y"),
        URLCase("#", "test:test?test", "test:test?test#"),
        URLCase("i", "sc:sd", nil),
        URLCase("i", "sc:sd/sd", nil),
        URLCase("i", "sc:/pa/pa", "sc:/pa/i"),
        URLCase("i", "sc://ho/pa", "sc://ho/i"),
        URLCase("i", "sc:///pa/pa", "sc:///pa/i"),
        URLCase("../i", "sc:sd", nil),
        URLCase("../i", "sc:/pa/pa", "sc:/i"),
        URLCase("../i", "sc://ho/pa", "sc://ho/i"),
        URLCase("../i", "sc:///pa/pa", "sc:///i"),
        URLCase("/i", "sc:sd/sd", nil),
        URLCase("/i", "sc:/pa/pa", "sc:/i"),
        URLCase("/i", "sc://ho/pa", "sc://ho/i"),
        URLCase("?i", "sc:sd", nil),
        URLCase("?i", "sc:/pa/pa", "sc:/pa/pa?i"),
        URLCase("?i", "sc://ho/pa", "sc://ho/pa?i"),
        URLCase("#i", "sc:sd", "sc:sd#i"),
        URLCase("#i", "sc:sd/sd", "sc:sd/sd#i"),
        URLCase("#i", "sc://ho/pa", "sc://ho/pa#i"),
        URLCase("about:/../", nil, "about:/"),
        URLCase("data:/../", nil, "data:/"),
        URLCase("javascript:/../", nil, "javascript:/"),
        URLCase("mailto:/../", nil, "mailto:/"),
        URLCase(#"sc:\../"#, nil, #"sc:\../"#),
        URLCase("sc::a@example.net", nil, "sc::a@example.net"),
        URLCase("wow:%NBD", nil, "wow:%NBD"),
        URLCase("wow:%1G", nil, "wow:%1G"),
        URLCase("wow:\u{FFFF}", nil, "wow:%EF%BF%BF"),
        URLCase("non-special:\u{0}y", nil, "non-special:%00y"),
        URLCase("non-special:x/?\u{0}y", nil, "non-special:x/?%00y"),
        URLCase("non-special:x/?#\u{FFFF}y", nil, "non-special:x/?#%EF%BF%BFy"),
        URLCase("non-spec:/.//", nil, "non-spec:/.//"),
        URLCase("non-spec:/..//", nil, "non-spec:/.//"),
        URLCase("non-spec:/a/..//", nil, "non-spec:/.//"),
        URLCase("non-spec:/.//path", nil, "non-spec:/.//path"),
        URLCase("non-spec:/..//path", nil, "non-spec:/.//path"),
        URLCase("non-spec:/a/..//path", nil, "non-spec:/.//path"),
        URLCase("/.//path", "non-spec:/p", "non-spec:/.//path"),
        URLCase("/..//path", "non-spec:/p", "non-spec:/.//path"),
        URLCase("..//path", "non-spec:/p", "non-spec:/.//path"),
        URLCase("a/..//path", "non-spec:/p", "non-spec:/.//path"),
        URLCase("", "non-spec:/..//p", "non-spec:/.//p"),
        URLCase("path", "non-spec:/..//p", "non-spec:/.//path"),
        URLCase("../path", "non-spec:/.//p", "non-spec:/path"),
        URLCase("data://example.com:8080/pathname?search#hash", nil, "data://example.com:8080/pathname?search#hash"),
        URLCase("data:///test", nil, "data:///test"),
        URLCase("data://test/a/../b", nil, "data://test/b"),
        URLCase("data://:443", nil, nil),
        URLCase("data://test:test", nil, nil),
        URLCase("data://[:1]", nil, nil),
        URLCase("javascript://test/a/../b", nil, "javascript://test/b"),
        URLCase("javascript://test:test", nil, nil),
        URLCase("mailto://test/a/../b", nil, "mailto://test/b"),
        URLCase("sc://ñ", nil, "sc://%C3%B1"),
        URLCase("sc://ñ?x", nil, "sc://%C3%B1?x"),
        URLCase("sc://ñ#x", nil, "sc://%C3%B1#x"),
        URLCase("#x", "sc://ñ", "sc://%C3%B1#x"),
        URLCase("?x", "sc://ñ", "sc://%C3%B1?x"),
        URLCase("sc://?", nil, "sc://?"),
        URLCase("sc://#", nil, "sc://#"),
        URLCase("///", "sc://x/", "sc:///"),
        URLCase("////", "sc://x/", "sc:////"),
        URLCase("////x/", "sc://x/", "sc:////x/"),
        URLCase("tftp://foobar.com/someconfig;mode=netascii", nil, "tftp://foobar.com/someconfig;mode=netascii"),
        URLCase("telnet://user:pass@foobar.com:23/", nil, "telnet://user:pass@foobar.com:23/"),
        URLCase("redis://foo:bar@somehost:6379/0?baz=bam&qux=baz", nil, "redis://foo:bar@somehost:6379/0?baz=bam&qux=baz"),
        URLCase(#"non-special:\\opaque"#, nil, #"non-special:\\opaque"#),
        URLCase(#"non-special:/\path"#, nil, #"non-special:/\path"#),
        URLCase(#"non-special://host/a\b"#, nil, #"non-special://host/a\b"#),
    ]

    @Test("Non-special schemes, opaque paths and the /. serialisation guard", arguments: cases)
    func nonSpecialCases(_ testCase: URLCase) { testCase.check() }
}

@Suite("BrowserURL: API")
struct BrowserURLAPITests {
    @Test("Components of a full URL")
    func components() throws {
        let url = try #require(BrowserURL("HTTPS://user:pa%20ss@Example.COM:8443/a/b.png?x=1&y=%20#frag"))
        #expect(url.scheme == "https")
        #expect(url.username == "user")
        #expect(url.password == "pa%20ss")
        #expect(url.host == "example.com")
        #expect(url.port == 8443)
        #expect(url.path == "/a/b.png")
        #expect(url.pathSegments == ["a", "b.png"])
        #expect(url.query == "x=1&y=%20")
        #expect(url.fragment == "frag")
        #expect(url.isHTTP)
        #expect(url.isSpecial)
        #expect(!url.hasOpaquePath)
        #expect(url.serialized == "https://user:pa%20ss@example.com:8443/a/b.png?x=1&y=%20#frag")
        #expect(url.description == url.serialized)
        #expect(url.serializedWithoutFragment == "https://user:pa%20ss@example.com:8443/a/b.png?x=1&y=%20")
    }

    @Test("Absent components are nil; default ports are nil")
    func absentComponents() throws {
        let url = try #require(BrowserURL("http://example.com:80"))
        #expect(url.port == nil)
        #expect(url.query == nil)
        #expect(url.fragment == nil)
        #expect(url.path == "/")
        #expect(url.serializedWithoutFragment == "http://example.com/")
        let empty = try #require(BrowserURL("http://example.com/?#"))
        #expect(empty.query == "")
        #expect(empty.fragment == "")
        #expect(empty.serializedWithoutFragment == "http://example.com/?")
    }

    @Test("Non-HTTP schemes", arguments: ["data:image/png;base64,AAA=", "blob:https://a.example/uuid",
                                          "javascript:void(0)", "about:blank", "mailto:a@b.c",
                                          "ftp://example.com/x.png", "file:///tmp/x.png", "wss://example.com/"])
    func nonHTTP(_ input: String) throws {
        let url = try #require(BrowserURL(input))
        #expect(!url.isHTTP)
    }

    @Test("Opaque paths")
    func opaquePath() throws {
        let url = try #require(BrowserURL("data:image/svg+xml,<svg xmlns='x'/>#frag"))
        #expect(url.hasOpaquePath)
        #expect(url.host == nil)
        #expect(url.path == "image/svg+xml,<svg xmlns='x'/>")
        #expect(url.pathSegments.isEmpty)
        #expect(url.fragment == "frag")
    }

    @Test("file: URLs have an empty host")
    func fileHost() throws {
        let url = try #require(BrowserURL("file:///tmp/page.html"))
        #expect(url.host == "")
        #expect(url.resolve("img/a.png")?.serialized == "file:///tmp/img/a.png")
    }

    @Test("Equality and hashing follow the serialisation")
    func equality() throws {
        let first = try #require(BrowserURL("HTTP://EXAMPLE.com:80/a/./b"))
        let second = try #require(BrowserURL("http://example.com/a/b"))
        #expect(first == second)
        #expect(Set([first, second]).count == 1)
        #expect(first != BrowserURL("http://example.com/a/b#x"))
    }

    @Test("Foundation URL conversion")
    func foundationURL() throws {
        let url = try #require(BrowserURL("https://bücher.example/ä b.png?q=ü"))
        #expect(url.foundationURL?.absoluteString == "https://xn--bcher-kva.example/%C3%A4%20b.png?q=%C3%BC")
    }

    @Test("Query encoding override for legacy-encoded documents")
    func queryEncoding() throws {
        let latin1: @Sendable (String) -> [UInt8] = { text in
            var bytes: [UInt8] = []
            for scalar in text.unicodeScalars {
                guard scalar.value <= 0xFF else { return [] }
                bytes.append(UInt8(scalar.value))
            }
            return bytes
        }
        let base = try #require(BrowserURL("http://example.com/dir/page.html"))
        // The standard's windows-1252 example: the query is encoded, the path and fragment are not.
        let url = try #require(BrowserURL("ö?smörgåsbord#ö", relativeTo: base, queryEncoding: latin1))
        #expect(url.serialized == "http://example.com/dir/%C3%B6?sm%F6rg%E5sbord#%C3%B6")
        // Unrepresentable characters become an escaped numeric character reference.
        #expect(BrowserURL("?a‽b", relativeTo: base, queryEncoding: latin1)?.query == "a%26%238253%3Bb")
        // Not used for ws/wss or non-special URLs.
        #expect(BrowserURL("ws://h/?ö", queryEncoding: latin1)?.query == "%C3%B6")
        #expect(BrowserURL("sc://h/?ö", queryEncoding: latin1)?.query == "%C3%B6")
        #expect(BrowserURL("?ö", relativeTo: base)?.query == "%C3%B6")
    }
}

@Suite("BrowserURL: robustness")
struct BrowserURLRobustnessTests {
    /// A small deterministic generator (SplitMix64), so failures reproduce.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476C_E5B9_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let pieces: [String] = [
        "http:", "https:", "file:", "ws:", "sc:", "data:", "mailto:", "javascript:", "blob:", "//", "/", "\\", "///",
        ".", "..", "%2e", "%2E.", "?", "#", "@", ":", "::", "[", "]", "[::1]", "[0:0::1", "0x7f", "0X", "1.2.3.4",
        "255", "4294967296", "09", ".", "example", "EXAMPLE", "com", "xn--", "xn--zca", "xn--a", "bücher", "例え",
        "ß", "\u{200D}", "\u{AD}", "\u{FFFD}", "\u{0}", " ", "\t", "\n", "%", "%zz", "%41", "%C3%A4", "%ff", "C|",
        "c:", "|", "^", "<", ">", "\"", "'", "`", "{", "}", "~", "💩", "\u{064A}", "1", "80", "65536", "-", "_",
        "localhost", "user", "pass", "\u{3000}", "。", "Ｇ", "\u{0301}", "\u{094D}", "\u{200C}", "ℌ", "ẞ",
    ]

    static func randomInput(_ rng: inout SplitMix) -> String {
        var text = ""
        let count = Int.random(in: 0...12, using: &rng)
        for _ in 0..<count {
            text += pieces[Int.random(in: 0..<pieces.count, using: &rng)]
        }
        return text
    }

    @Test("Parsing 100,000 varied inputs never crashes, and re-parsing a result is stable")
    func fuzz() async {
        await offPool {
            var rng = SplitMix(state: 0x5EED)
            let bases = [
                "https://example.com/a/b/page.html?x=1#top", "file:///tmp/page.html", "sc://host/p", "sc:opaque",
                "http://[::1]:8080/", "file://host/C:/dir/",
            ].compactMap { BrowserURL($0) }
            #expect(bases.count == 6)
            var parsed = 0
            var unstable: [String] = []
            for index in 0..<100_000 {
                let input = Self.randomInput(&rng)
                let base = index % 4 == 0 ? nil : bases[index % bases.count]
                guard let url = BrowserURL(input, relativeTo: base) else { continue }
                parsed += 1
                _ = (url.host, url.path, url.query, url.fragment, url.port, url.serializedWithoutFragment)
                if BrowserURL(url.serialized)?.serialized != url.serialized, unstable.count < 10 {
                    unstable.append("\(input.debugDescription) -> \(url.serialized)")
                }
            }
            #expect(parsed > 10_000)
            #expect(unstable.isEmpty, "\(unstable)")
        }
    }

    @Test("Long inputs are handled without blowing up")
    func longInputs() throws {
        let segments = String(repeating: "a/", count: 20_000)
        let url = try #require(BrowserURL("https://example.com/" + segments + String(repeating: "../", count: 30_000)))
        #expect(url.serialized == "https://example.com/")
        let longHost = String(repeating: "a", count: 50_000) + ".example"
        #expect(BrowserURL("https://\(longHost)/")?.host == longHost)
        let longQuery = String(repeating: "ä", count: 50_000)
        #expect(BrowserURL("https://h/?\(longQuery)")?.query?.utf8.count == 50_000 * 6)
        #expect(BrowserURL("https://h:" + String(repeating: "0", count: 10_000) + "80/")?.serialized == "https://h:80/")
    }
}
