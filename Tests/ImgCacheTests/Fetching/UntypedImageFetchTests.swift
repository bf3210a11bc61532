import Foundation
import ImgCacheTestServer
import Testing
@testable import ImgCache
@testable import ImgCacheURLs
@testable import ImgCacheMarkup
@testable import ImgCacheStore

/// `imgcache fetch` on pages whose image URLs name no format, end to end.
@Suite("imgcache fetch: images whose URL does not say so")
struct UntypedImageFetchTests {
    private static let page = """
        <img src="/img?id=1" alt=a>
        <img srcset="/photo/7 2x, /img?id=1 1x">
        <div style="background: #000 url('/pixel.php') no-repeat">x</div>
        <img data-src="/media/abc.img">
        <img src="/thumb?id=9">
        <a href="/img?id=1">a link is not an image</a><script src="/app"></script>
        <style>@font-face { font-family: F; src: url(/font) } .x { cursor: url(/cursor) }</style>
        """

    private func serve(_ server: TestImageServer) {
        server.route("/img", .image(bytes: TestImages.png(), contentType: "image/png"))
        server.route("/photo/7", .image(bytes: TestImages.jpeg(), contentType: "image/jpeg"))
        server.route("/pixel.php", .image(bytes: TestImages.gif(), contentType: "image/gif"))
        server.route("/media/abc.img", .image(bytes: TestImages.png(width: 2), contentType: "application/octet-stream"))
        server.route("/thumb", .status(200, body: Array("<html>thumbnail page</html>".utf8), contentType: "text/html"))
        for path in ["/font", "/cursor", "/app"] { server.route(path, .image(bytes: TestImages.png(), contentType: "image/png")) }
    }

    private func name(_ server: TestImageServer, _ path: String, _ format: ImageFormat) -> String {
        LocalImageNaming().localName(for: BrowserURL(server.url(path))!, format: format)!
    }

    private func expectedPage(_ server: TestImageServer) -> String {
        Self.page
            .replacingOccurrences(of: "\"/img?id=1\" alt", with: "\"images/\(name(server, "/img?id=1", .png))\" alt")
            .replacingOccurrences(of: "/photo/7 2x, /img?id=1 1x", with: "images/\(name(server, "/photo/7", .jpeg)) 2x, images/\(name(server, "/img?id=1", .png)) 1x")
            .replacingOccurrences(of: "'/pixel.php'", with: "'images/\(name(server, "/pixel.php", .gif))'")
            .replacingOccurrences(of: "\"/media/abc.img\"", with: "\"images/\(name(server, "/media/abc.img", .png))\"")
    }

    @Test("build mode: each is fetched once and rewritten to SHA-256(url).<its format>; a page stays remote with its type; fonts, cursors, links and scripts are never fetched")
    func buildMode() async throws {
        let server = try await TestImageServer.start()
        serve(server)
        let folder = try TemporaryFolder()
        try folder.write("page.html", Self.page)
        let outcome = try await CommandRunner.runOffPool(["fetch", "page.html", "--base-url", server.url("/"), "--out", "out", "--quiet"], in: folder.url)
        #expect(outcome.status == 2, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("/thumb?id=9: not an image: text/html"), "\(outcome.stderr)")
        #expect(try String(contentsOfFile: folder.path("out/page.html"), encoding: .utf8) == expectedPage(server))
        for (path, format) in [("/img?id=1", ImageFormat.png), ("/photo/7", .jpeg), ("/pixel.php", .gif), ("/media/abc.img", .png)] {
            #expect(FileManager.default.fileExists(atPath: folder.path("out/images/\(name(server, path, format))")), "\(path)")
        }
        #expect(server.requestCount("/img") == 1)
        for path in ["/font", "/cursor", "/app"] { #expect(server.requestCount(path) == 0, "\(path) must not be fetched") }
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.url.appendingPathComponent("out/imgcache-manifest.json"))) as? [String: Any]
        let references = (manifest?["pages"] as? [[String: Any]])?.first?["references"] as? [[String: Any]] ?? []
        let pixel = references.first { $0["original"] as? String == "/pixel.php" }
        #expect(pixel?["localPath"] as? String == "images/\(name(server, "/pixel.php", .gif))")
        #expect(pixel?["status"] as? String == "downloaded")
        let thumb = references.first { $0["original"] as? String == "/thumb?id=9" }
        #expect(thumb?["status"] as? String == "failed")
        #expect((manifest?["images"] as? [String: String])?[server.url("/photo/7")] == name(server, "/photo/7", .jpeg))

        // --extensions-only: none of them is an image.
        let strict = try await CommandRunner.runOffPool(["fetch", "page.html", "--base-url", server.url("/"), "--out", "strict", "--cache-dir", "strict-cache", "--extensions-only", "--quiet"], in: folder.url)
        #expect(strict.status == 0, "\(strict.stderr)")
        #expect(try String(contentsOfFile: folder.path("strict/page.html"), encoding: .utf8) == Self.page)
        try await server.shutdown()
    }

    @Test("live mode: the page is written at once, again once the bytes have named the images, and the one refresh comes after that")
    func liveMode() async throws {
        let server = try await TestImageServer.start()
        serve(server)
        server.route("/photo/7", .image(bytes: TestImages.jpeg(), contentType: "image/jpeg", delay: .milliseconds(300)))
        let folder = try TemporaryFolder()
        try folder.write("page.html", Self.page)
        let outcome = try await CommandRunner.runOffPool(["fetch", "page.html", "--base-url", server.url("/"), "--out", "out", "--mode", "live",
                                                          "--events", "ndjson", "--debounce", "0", "--quiet"], in: folder.url)
        #expect(outcome.status == 2, "\(outcome.stderr)")
        let events = String(decoding: outcome.stdout, as: UTF8.self).split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.compactMap { $0["event"] as? String }
        #expect(events.filter { $0 == "page" }.count == 2, "\(events)")
        #expect(events.filter { $0 == "refresh" }.count == 1, "\(events)")
        #expect(events.lastIndex(of: "page")! < events.firstIndex(of: "refresh")!, "\(events)")
        #expect(try String(contentsOfFile: folder.path("out/page.html"), encoding: .utf8) == expectedPage(server))
        try await server.shutdown()
    }

    @Test("two processes fetching the same extensionless image at once agree on one file and one name")
    func twoProcesses() async throws {
        let server = try await TestImageServer.start()
        server.route("/photo/7", .image(bytes: TestImages.jpeg(), contentType: "image/jpeg", delay: .milliseconds(100)))
        let folder = try TemporaryFolder()
        try folder.write("one.html", "<img src=/photo/7>")
        try folder.write("two.html", "<img src='/photo/7'>")
        async let first = CommandRunner.runOffPool(["fetch", "one.html", "--base-url", server.url("/"), "--out", "out1", "--cache-dir", "shared", "--quiet"], in: folder.url)
        async let second = CommandRunner.runOffPool(["fetch", "two.html", "--base-url", server.url("/"), "--out", "out2", "--cache-dir", "shared", "--quiet"], in: folder.url)
        let (a, b) = try await (first, second)
        #expect(a.status == 0, "\(a.stderr)")
        #expect(b.status == 0, "\(b.stderr)")
        let expected = name(server, "/photo/7", .jpeg)
        #expect(try String(contentsOfFile: folder.path("out1/one.html"), encoding: .utf8) == "<img src=../shared/\(expected)>")
        #expect(try String(contentsOfFile: folder.path("out2/two.html"), encoding: .utf8) == "<img src='../shared/\(expected)'>")
        let images = try FileManager.default.contentsOfDirectory(atPath: folder.path("shared")).filter { !$0.hasPrefix(".") }
        #expect(images == [expected])
        let store = try ImageCacheStore(directory: folder.path("shared"))
        #expect(store.localName(for: BrowserURL(server.url("/photo/7"))!) == expected)
        #expect(store.verify().isEmpty)
        try await server.shutdown()
    }
}
