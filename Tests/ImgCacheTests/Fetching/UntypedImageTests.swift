import Foundation
import ImgCacheTestServer
import Testing
@testable import ImgCache
@testable import ImgCacheURLs
@testable import ImgCacheMarkup
@testable import ImgCacheStore

/// Images whose URL names no format (`/img?id=1`, `/photo/7`, `/pixel.php`): the bytes decide,
/// and the cache names the file after them.
@Suite("Images whose URL names no format")
struct UntypedImageTests {
    @Test("the bytes name the file: SHA-256(url) with the real format's extension; a page stays remote with its type; a script is not requested",
          arguments: Wire.allCases)
    func namedByTheirBytes(wire: Wire) async throws {
        let fixture = try await DownloadFixture.make(wire: wire)
        fixture.server.route("/img", .image(bytes: TestImages.png(), contentType: "image/png"))
        fixture.server.route("/photo/7", .image(bytes: TestImages.jpeg(), contentType: "application/octet-stream"))
        fixture.server.route("/pixel.php", .image(bytes: TestImages.gif(), contentType: "image/gif"))
        fixture.server.route("/thumb", .status(200, body: Array("<html>no</html>".utf8), contentType: "text/html"))
        fixture.server.route("/app.js", .image(bytes: TestImages.png(), contentType: "image/png"))
        let naming = LocalImageNaming()
        for (path, format) in [("/img?id=1", ImageFormat.png), ("/photo/7", .jpeg), ("/pixel.php", .gif)] {
            let url = BrowserURL(fixture.server.url(path))!
            let outcome = await fixture.downloader.fetch(url)
            #expect(outcome.status == .downloaded, "\(path): \(outcome.failure?.description ?? "")")
            let expected = naming.localName(for: url, format: format)!
            #expect(outcome.localName == expected)
            #expect(expected.hasSuffix("." + format.fileExtension))
            #expect(FileManager.default.fileExists(atPath: fixture.folder.path("images/\(expected)")))
            #expect(fixture.store.localName(for: url) == expected)
        }
        let page = await fixture.downloader.fetch(BrowserURL(fixture.server.url("/thumb?id=9"))!)
        #expect(page.status == .failed)
        #expect(page.failure?.description.hasPrefix("not an image: text/html") == true, "\(page.failure?.description ?? "")")
        #expect(!fixture.isCached("/thumb?id=9"))
        let script = await fixture.downloader.fetch(BrowserURL(fixture.server.url("/app.js"))!)
        #expect(script.status == .failed)
        #expect(fixture.server.requestCount("/app.js") == 0, "a URL naming another kind of file is never requested")
        try await fixture.close()
    }

    @Test("once stored, such an image is found by its URL: no new request, by this store and by another on the folder")
    func foundAgainThroughTheIndex() async throws {
        let fixture = try await DownloadFixture.make()
        fixture.server.route("/photo/7", .image(bytes: TestImages.jpeg(), contentType: "image/jpeg"))
        let url = BrowserURL(fixture.server.url("/photo/7"))!
        let first = await fixture.downloader.fetch(url)
        #expect(first.status == .downloaded)
        let again = await fixture.downloader.fetchAll([url])
        #expect(again.first?.status == .cached)
        #expect(again.first?.localName == first.localName)
        #expect(fixture.server.requestCount("/photo/7") == 1)
        // Another store on the same folder (another process would do the same) reads the name from the index.
        let other = try ImageCacheStore(directory: fixture.folder.path("images"))
        #expect(other.localName(for: url) == first.localName)
        #expect(other.contents(for: url)?.bytes == TestImages.jpeg())
        #expect(other.lookup(url).metadata?.localName == first.localName)
        try await fixture.close()
    }

    @Test("stored again in another format, the image takes the new name and the old file goes")
    func anotherFormatSupersedes() throws {
        let folder = try TemporaryFolder()
        let store = try ImageCacheStore(directory: folder.path("images"))
        let url = BrowserURL("https://cdn.example/resize/840x560/photo")!
        let webp = Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WEBPVP8 ".utf8) + [UInt8](repeating: 0, count: 24)
        let png = try store.storeEntry(TestImages.png(), for: url, contentType: "image/png", etag: nil, lastModified: nil)
        #expect(png.localName.hasSuffix(".png"))
        let again = try store.storeEntry(webp, for: url, contentType: "image/webp", etag: nil, lastModified: nil)
        #expect(again.localName.hasSuffix(".webp"))
        #expect(store.localName(for: url) == again.localName)
        #expect(!FileManager.default.fileExists(atPath: folder.path("images/\(png.localName)")))
        #expect(try ImageCacheStore(directory: folder.path("images")).contents(for: url)?.bytes == webp)
        #expect(store.verify().isEmpty)
    }

    @Test("a CDN that negotiates the format answers with one that is kept: JPEG by default, WebP once it is enabled")
    func negotiatedFormat() async throws {
        let webp = Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WEBPVP8 ".utf8) + [UInt8](repeating: 0, count: 24)
        for (formats, expected) in [(Set<ImageFormat>([.jpeg, .png, .gif]), ImageFormat.jpeg), ([.jpeg, .png, .gif, .webp], .webp)] {
            let fixture = try await DownloadFixture.make(policy: DownloadPolicy(acceptedFormats: formats))
            // WebP unless the Accept header leaves it out (and when there is none).
            fixture.server.route("/auto/photo", .negotiated(variants: [("image/webp", webp), ("image/jpeg", TestImages.jpeg())],
                                                            fallback: .image(bytes: webp, contentType: "image/webp")))
            let url = BrowserURL(fixture.server.url("/auto/photo?w=800"))!
            let outcome = await fixture.downloader.fetch(url)
            #expect(outcome.status == .downloaded, "\(outcome.failure?.description ?? "")")
            #expect(outcome.localName == LocalImageNaming().localName(for: url, format: expected))
            #expect(outcome.contentType == expected.mediaType)
            try await fixture.close()
        }
    }

    @Test("what a URL's path says it is")
    func pathKinds() {
        let naming = LocalImageNaming()
        let cases: [(String, LocalImageNaming.PathKind)] = [
            ("https://a.example/x.PNG?w=2", .image("png")),
            ("https://a.example/photo/123?w=800&fm=jpg", .untyped),
            ("https://a.example/image.php?id=7", .untyped),
            ("https://a.example/media/abc.img", .untyped),
            ("https://a.example/resize/840x560!/quality/90/?url=x", .untyped),
            ("https://a.example/", .untyped),
            ("https://a.example/app.js", .other),
            ("https://a.example/font.woff2", .other),
            ("https://a.example/page.html", .other),
            ("https://a.example/icon.svg", .other),
            ("https://a.example/pic.webp", .image("webp")),
            ("https://a.example/pic.AVIF", .image("avif")),
            ("https://a.example/pic.jxl", .other),
            ("https://a.example/x%2EPng", .image("png")),
            ("https://a.example/a%20b.jpeg#frag.js", .image("jpeg")),
            ("https://a.example/dir.png/name", .untyped),
            ("https://a.example/name?file=a.png", .untyped),
            ("https://a.example/a.b/c.gif", .image("gif")),
            ("https://a.example/c.", .untyped),
        ]
        for (url, kind) in cases { #expect(naming.pathKind(ofHTTPURL: url) == kind, "\(url)") }
        #expect(LocalImageNaming(extensions: ["png", "svg"]).pathKind(ofHTTPURL: "https://a.example/icon.svg") == .image("svg"))
        #expect(LocalImageNaming(extensions: ["png"]).pathKind(ofHTTPURL: "https://a.example/pic.jpg") == .other)
        // Every other kind, in any case; a lookalike padded with a decoded NUL, or spelled with
        // a non-ASCII letter that lowercases to no ASCII one, is not one.
        let onlyPNG = LocalImageNaming(extensions: ["png"])
        for ext in LocalImageNaming.otherKinds where ext != "png" {
            #expect(onlyPNG.pathKind(ofHTTPURL: "https://a.example/f.\(ext)") == .other, "\(ext)")
            #expect(onlyPNG.pathKind(ofHTTPURL: "https://a.example/f.\(ext.uppercased())") == .other, "\(ext)")
        }
        #expect(naming.pathKind(ofHTTPURL: "https://a.example/f.gz%00") == .untyped)
        #expect(naming.pathKind(ofHTTPURL: "https://a.example/f.g%C3%BC") == .untyped)
        #expect(naming.pathKind(ofHTTPURL: "https://a.example/f.woff2woff") == .untyped)
    }

    @Test("an extension matches in any case, its percent-encoded letters as Unicode lowercases them")
    func extensionCase() {
        let naming = LocalImageNaming(extensions: ["jpg", "png", "mk"])
        #expect(naming.imageExtension(ofHTTPURL: "https://a.example/A.JPG?x=1#f") == "jpg")
        #expect(naming.imageExtension(ofHTTPURL: "https://a.example/b.pNg") == "png")
        #expect(naming.imageExtension(ofHTTPURL: "https://a.example/c.jpgx") == nil)
        #expect(naming.imageExtension(ofHTTPURL: "https://a.example/c.jp") == nil)
        #expect(naming.imageExtension(ofHTTPURL: "https://a.example/d.png/") == nil)
        // KELVIN SIGN (U+212A) lowercases to an ASCII k.
        #expect(naming.imageExtension(ofHTTPURL: "https://a.example/e.M%E2%84%AA") == "mk")
        #expect(naming.imageExtension(ofHTTPURL: "https://a.example/f.p%4Eg") == "png")
        // Extensions of eight bytes and more, and a list changed after the naming was made.
        var other = LocalImageNaming(extensions: [".JPEG2000", "jpegxl123", "Heic"])
        #expect(other.imageExtension(ofHTTPURL: "https://a.example/g.jpeg2000") == "jpeg2000")
        #expect(other.imageExtension(ofHTTPURL: "https://a.example/g.JPEGXL123") == "jpegxl123")
        #expect(other.imageExtension(ofHTTPURL: "https://a.example/g.jpegxl12") == nil)
        #expect(other.imageExtension(ofHTTPURL: "https://a.example/g.heic") == "heic")
        other.extensions = ["gif"]
        #expect(other.imageExtension(ofHTTPURL: "https://a.example/g.heic") == nil)
        #expect(other.imageExtension(ofHTTPURL: "https://a.example/g.GIF") == "gif")
        #expect(other == LocalImageNaming(extensions: ["gif"]))
    }
}
