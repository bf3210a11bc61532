import Foundation
import Testing
@testable import ImgCache

@Suite("Strings compared and split by their bytes")
struct StringBytesTests {
    @Test("ASCII letters compare regardless of case, and nothing else does", arguments: [
        ("Content-Length", "content-length", true, true),
        ("content-length", "CONTENT-LENGTH", true, true),
        ("Content-Length", "Content-Type", false, false),
        ("ETag", "etag", true, true),
        ("https://example.com/", "HTTPS://", false, true),
        ("http://example.com/", "https://", false, false),
        ("", "", true, true),
        ("abc", "", false, true),
        ("", "a", false, false),
        ("ab", "abc", false, false),
        // Only ASCII letters fold: not É/é, not the bytes of other scripts, not `[` against `{`.
        ("CAFÉ", "café", false, false),
        ("café", "CAFé", true, true),
        ("Straße", "STRASSE", false, false),
        ("[x]", "{x}", false, false),
        ("@", "`", false, false),
    ] as [(String, String, Bool, Bool)])
    func asciiCase(string: String, other: String, equal: Bool, prefix: Bool) {
        #expect(string.equalsIgnoringASCIICase(other) == equal)
        #expect(string.hasPrefixIgnoringASCIICase(other) == prefix)
        // The same answer a byte at a time, the plain way.
        let folded = { (text: String) in text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 } }
        #expect(string.hasPrefixIgnoringASCIICase(other) == folded(string).starts(with: folded(other)))
    }

    @Test("a path splits after its last slash, whatever characters come before or after it", arguments: [
        ("/var/cache/images/abc.png", "/var/cache/images/", "abc.png"),
        ("abc.png", "", "abc.png"),
        ("/abc.png", "/", "abc.png"),
        ("folder/", "folder/", ""),
        ("/", "/", ""),
        ("", "", ""),
        ("/données/été/🖼️ image.png", "/données/été/", "🖼️ image.png"),
        ("a/é/", "a/é/", ""),
        ("é/e\u{301}", "é/", "e\u{301}"),
        ("日本/語/ファイル", "日本/語/", "ファイル"),
    ] as [(String, String, String)])
    func lastSlash(path: String, folder: String, name: String) {
        let parts = path.splitAtLastSlash()
        #expect(String(parts.folder) == folder)
        #expect(String(parts.name) == name)
        #expect(String(parts.folder) + String(parts.name) == path)
    }

    @Test("a path's parent is the one NSString gives, for paths with and without doubled or trailing slashes", arguments: [
        "/var/cache/images/abc.png", "abc.png", "/abc.png", "/", "", "out/page.html", "out//page.html",
        "out/docs/", "/out/docs//", "./page.html", "../out/page.html", "/données/été/🖼️ image.png",
        "é/e\u{301}", "a/b/c/d/e/f/g.html", "//x",
    ])
    func parentPath(path: String) {
        #expect(path.parentPath == (path as NSString).deletingLastPathComponent)
    }
}
