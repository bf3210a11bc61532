import Foundation
import ImgCacheTestServer
import Testing
@testable import ImgCache
@testable import ImgCacheSupport
@testable import ImgCacheURLs
@testable import ImgCacheStore

/// Nothing is written outside `--out` and `--cache-dir`, whatever the page, its URLs, the server's
/// headers or the cache index say.
@Suite("Writes stay inside --out and --cache-dir")
struct WritesStayInsideTests {
    private func run(_ arguments: [String], in folder: TemporaryFolder) async throws -> CommandRunner.Outcome {
        try await CommandRunner.runOffPool(arguments, in: folder.url)
    }

    /// Every regular file under `folder`, as paths relative to it.
    private func files(under folder: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: folder)
        var result: [String] = []
        while let path = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue {
                result.append(path)
            }
        }
        return result.sorted()
    }

    @Test("image URLs with .., encoded slashes, NUL, backslashes and very long names are cached under hashed names inside the cache folder")
    func hostileImageURLs() async throws {
        let server = try await TestImageServer.start()
        let paths = ["/a/..%2F..%2F..%2Fescape.png", "/%00nul.png", "/" + String(repeating: "x", count: 400) + ".png",
                     "/..%5C..%5Cwin.png", "/a/%2e%2e/%2e%2e/up.png", "/name%2Fwith%2Fslashes/..%252F.png"]
        let png = TestImages.png()
        for path in paths {
            // As the server receives it: the URL as a browser (and imgcache) serialises it.
            server.route(try #require(BrowserURL(server.url(path))).path, .image(bytes: png, contentType: "image/png"))
        }
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path("work"), withIntermediateDirectories: true)
        try folder.write("work/page.html", paths.map { "<img src='\($0)'>" }.joined())
        let outcome = try await run(["fetch", "work/page.html", "--base-url", server.url("/page.html"),
                                     "--out", "work/out", "--cache-dir", "work/cache"], in: folder)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        // Nothing beside the work folder, and inside it only the input, the output and the cache.
        #expect(files(under: folder.path("")).allSatisfy { $0.hasPrefix("work/") })
        let written = files(under: folder.path("work"))
        #expect(written.allSatisfy { $0 == "page.html" || $0.hasPrefix("out/") || $0.hasPrefix("cache/") }, "\(written)")
        let images = written.filter { $0.hasPrefix("cache/") && $0.hasSuffix(".png") }
        #expect(images.count == paths.count)
        #expect(images.allSatisfy { ($0 as NSString).lastPathComponent.utf8.count == 68 }, "\(images)")
        try await server.shutdown()
    }

    @Test("a page fetched by URL is written inside --out whatever its last path segment says",
          arguments: [("..%2F..%2Fescape.html", ".._.._escape.html"), ("%00x.html", "_x.html"), ("a%2F..%2F..%2Fb.html", "a_.._.._b.html")])
    func pageNames(segment: String, expected: String) async throws {
        let server = try await TestImageServer.start()
        let url = try #require(BrowserURL(server.url("/dir/\(segment)")))
        server.route(url.path, .status(200, body: Array("<p>hi</p>".utf8), contentType: "text/html"))
        let folder = try TemporaryFolder()
        let outcome = try await run(["fetch", url.serialized, "--out", "work/out"], in: folder)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(files(under: folder.path("")).filter { !$0.hasPrefix("work/out/images/") } == ["work/out/\(expected)", "work/out/imgcache-manifest.json"].sorted())
        try await server.shutdown()
    }

    @Test("a page URL whose last segment is longer than a file name may be is written under a shortened name that keeps its extension")
    func longPageName() async throws {
        let server = try await TestImageServer.start()
        let segment = String(repeating: "é", count: 200) + ".html"
        let url = try #require(BrowserURL(server.url("/\(segment)")))
        server.route(url.path, .status(200, body: Array("<p>hi</p>".utf8), contentType: "text/html"))
        let folder = try TemporaryFolder()
        let outcome = try await run(["fetch", url.serialized, "--out", "out"], in: folder)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let pages = files(under: folder.path("out")).filter { $0.hasSuffix(".html") }
        #expect(pages.count == 1)
        let name = try #require(pages.first)
        #expect(name.utf8.count <= 255 && name.hasPrefix("éé") && name.hasSuffix(".html"), "\(name)")
        try await server.shutdown()
    }

    @Test("a tampered index naming files outside the cache never gets them deleted: clear, prune and eviction")
    func tamperedIndex() async throws {
        let folder = try TemporaryFolder()
        let victim = folder.path("victim.png")
        try folder.write("victim.png", "precious")
        let store = try ImageCacheStore(directory: folder.path("cache"), policy: CachePolicy(maxTotalBytes: 1_000))
        try folder.write("cache/inner.png", "precious too")
        try store.storeEntry(TestImages.png(), for: BrowserURL("http://example.com/a.png")!, contentType: "image/png", etag: nil, lastModified: nil)
        let index = folder.path("cache/\(CacheFileLayout.indexFileName)")
        let handle = try #require(FileHandle(forWritingAtPath: index))
        handle.seekToEndOfFile()
        let digest = String(repeating: "a", count: 64)
        let hostile = [
            #"{"removed":"../victim.png"}"#,
            #"{"used":"../victim.png","lastUsedAt":1}"#,
            #"{"removed":"inner.png"}"#,
            #"{"byteCount":8,"contentType":"image/png","etag":null,"fetchedAt":1,"formatVersion":1,"imageFile":{"inode":1,"modifiedAtNanoseconds":1,"size":8},"lastModified":null,"lastUsedAt":1,"localName":"../victim.png","sha256":"\#(digest)","url":"http://example.com/v.png"}"#,
            #"{"byteCount":8,"contentType":"image/png","etag":null,"fetchedAt":1,"formatVersion":1,"imageFile":{"inode":1,"modifiedAtNanoseconds":1,"size":8},"lastModified":null,"lastUsedAt":1,"localName":"/etc/\#(digest).png","sha256":"\#(digest)","url":"http://example.com/w.png"}"#,
        ]
        handle.write(Data((hostile.joined(separator: "\n") + "\n").utf8))
        try handle.close()

        for arguments in [["cache", "prune", "--cache-dir", "cache", "--max-age", "0"], ["cache", "clear", "--cache-dir", "cache"]] {
            let outcome = try await run(arguments, in: folder)
            #expect(outcome.status == 0, "\(arguments): \(outcome.stderr)")
        }
        // Eviction under a tiny cap, with the tampered records still read.
        handle.closeFile()
        let again = try #require(FileHandle(forWritingAtPath: index))
        again.seekToEndOfFile()
        again.write(Data((hostile.joined(separator: "\n") + "\n").utf8))
        try again.close()
        let small = try ImageCacheStore(directory: folder.path("cache"), policy: CachePolicy(maxTotalBytes: 200))
        try small.storeEntry(TestImages.png(width: 2, height: 2), for: BrowserURL("http://example.com/b.png")!, contentType: "image/png", etag: nil, lastModified: nil)
        try small.storeEntry(TestImages.png(width: 3, height: 3), for: BrowserURL("http://example.com/c.png")!, contentType: "image/png", etag: nil, lastModified: nil)

        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
        #expect(try String(contentsOfFile: folder.path("cache/inner.png"), encoding: .utf8) == "precious too")
    }

    @Test("an app's page name cannot climb out of the cache folder")
    func offlinePageName() async throws {
        let folder = try TemporaryFolder()
        let loader = OfflinePageLoader(store: try ImageCacheStore(directory: folder.path("cache")), transport: UnreachableTransport(),
                                       notificationCenter: nil)
        for name in ["../escape.html", "a/b.html", "..", "", "x\0y.html"] {
            await #expect(throws: FileError.self, "\(name)") { try await loader.open(html: Array("<p>".utf8), pageURL: nil, pageName: name) }
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path("escape.html")))
    }
}

/// A transport for pages whose images are never fetched.
private struct UnreachableTransport: ImageTransport {
    func send(_ request: TransportRequest) async throws -> TransportResponse {
        throw TransportError.connection("unreachable")
    }

    func shutdown() async {}
}
