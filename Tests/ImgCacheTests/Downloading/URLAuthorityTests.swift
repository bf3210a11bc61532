import Testing
@testable import ImgCache
@testable import ImgCacheURLs

@Suite("The scheme, host and port of a URL")
struct URLAuthorityTests {
    @Test("hosts are lowercased without brackets or trailing dots; ports default by scheme; anything else is refused")
    func readings() {
        let cases: [(String, (String, String, Int)?)] = [
            ("https://Example.COM/a.png", ("https", "example.com", 443)),
            ("HTTP://example.com", ("http", "example.com", 80)),
            ("http://example.com:8080/x?y#z", ("http", "example.com", 8080)),
            ("http://example.com:/x", ("http", "example.com", 80)),
            ("http://example.com.:0081", ("http", "example.com", 81)),
            ("http://user:p@ss@Host:99/", ("http", "host", 99)),
            ("http://[::1]:8443/", ("http", "::1", 8443)),
            ("https://[FE80::1]", ("https", "fe80::1", 443)),
            ("http://a?b@c/", ("http", "a", 80)),
            ("http://example.com:65536/", nil),
            ("http://example.com:0/", nil),
            ("http://example.com:+80/", nil),
            ("http://example.com:99999999999999999999999/", nil),
            ("http://[::1]x/", nil),
            ("http://[::1/", nil),
            ("http://exa mple.com/", nil),
            ("http://.../", nil),
            ("http:///x", nil),
            ("ftp://example.com/", nil),
            ("https:/example.com/", nil),
            ("example.com", nil),
            ("", nil),
        ]
        for (url, expected) in cases {
            let authority = URLAuthority(url)
            #expect(authority.map { [$0.scheme, $0.host, String($0.port)] } == expected.map { [$0.0, $0.1, String($0.2)] }, "\(url)")
        }
    }

    @Test("an ASCII URL read as bytes gives what reading its Characters gives", arguments: 0..<4)
    func bytesAgreeWithCharacters(seed: UInt64) {
        let pieces = ["http", "HTTPS", "https", "ftp", "://", ":", "/", "//", "@", "[", "]", "::1", "?", "#", ".", "..",
                      "Example.com", "a", "80", "0", "443", "65535", "65536", "0008", "99999999999999999999", " ", "\t",
                      "\r\n", "x-y", "%41", "+1", "-1"]
        let starts = ["http://", "HTTPS://", "https://", "hTtP://user:pass@", "ftp://", "http:/", ""]
        var generator = BrowserURLRobustnessTests.SplitMix(state: seed)
        for _ in 0..<5_000 {
            let count = Int(generator.next() % 9) + 1
            let start = starts[Int(generator.next() % UInt64(starts.count))]
            let url = start + (0..<count).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined()
            let bytes = URLAuthority(url)
            let characters = URLAuthority(characters: url)
            #expect(bytes == characters, "\(url.debugDescription)")
        }
    }

    @Test("a URL that is not ASCII is read as Characters")
    func notASCII() {
        #expect(URLAuthority("https://Ünïcode.example/") == URLAuthority(characters: "https://Ünïcode.example/"))
        #expect(URLAuthority("https://Ünïcode.example/")?.host == "ünïcode.example")
        #expect(URLAuthority("https://é@example.com:81/")?.port == 81)
    }
}
