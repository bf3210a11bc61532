import Foundation
import ImgCacheHTTPClient
import ImgCacheTestServer
import Testing
@testable import ImgCache

@Suite("Offline pages for apps")
struct OfflinePageLoaderTests {
    @Test("an image whose URL names no format: the page is written again once its bytes named it, and the one refresh, after that write, lists the page")
    func untypedImagesRewriteThePageBeforeTheRefresh() async throws {
        let server = try await TestImageServer.start()
        server.route("/photo/7", .image(bytes: TestImages.jpeg(), contentType: "image/jpeg", delay: .milliseconds(200)))
        server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        let folder = try TemporaryFolder()
        let store = try ImageCacheStore(directory: folder.path("cache"))
        let transport = AsyncHTTPClientTransport()
        // No debounce: without the hold the refresh would fire before the second write.
        let loader = OfflinePageLoader(store: store, transport: transport, debounce: .zero, notificationCenter: nil)
        let refreshes = loader.notifier.events()
        let html = Array("<img src=a.png><img src=/photo/7>".utf8)
        let page = try loader.open(html: html, pageURL: BrowserURL(server.url("/article.html")))
        let png = LocalImageNaming().localName(for: BrowserURL(server.url("/a.png"))!)!
        let jpeg = LocalImageNaming().localName(for: BrowserURL(server.url("/photo/7"))!, format: .jpeg)!
        #expect(try String(contentsOf: page.fileURL, encoding: .utf8) == "<img src=\(png)><img src=/photo/7>", "the known name at once")
        var summary: RefreshSummary?
        for await event in refreshes {
            if case .refresh(let found) = event {
                summary = found
                // The page on disk is already the final one when the refresh arrives.
                #expect(try String(contentsOf: page.fileURL, encoding: .utf8) == "<img src=\(png)><img src=\(jpeg)>")
                break
            }
        }
        #expect(summary?.downloaded == 2)
        #expect(summary?.rewrittenPages == [page.fileURL.path])
        // Opened again, the name comes from the cache at once.
        let again = try loader.open(html: html, pageURL: BrowserURL(server.url("/article.html")), pageName: "again.html")
        #expect(try String(contentsOf: again.fileURL, encoding: .utf8) == "<img src=\(png)><img src=\(jpeg)>")
        _ = await again.downloads.value
        #expect(server.requestCount("/photo/7") == 1)
        await transport.shutdown()
        try await server.shutdown()
    }

    @Test("the page is written into the cache folder at once, fully rewritten; the refresh comes when the images are in")
    func liveOpen() async throws {
        let server = try await TestImageServer.start()
        server.route("/slow.png", .image(bytes: TestImages.png(width: 3, height: 3), contentType: "image/png", delay: .milliseconds(400)))
        server.route("/fast.gif", .image(bytes: TestImages.gif(), contentType: "image/gif"))
        let folder = try TemporaryFolder()
        let store = try ImageCacheStore(directory: folder.path("cache"))
        let transport = AsyncHTTPClientTransport()
        let loader = OfflinePageLoader(store: store, transport: transport, debounce: .milliseconds(50), notificationCenter: nil)
        let refreshes = loader.notifier.events()

        let page = try loader.open(html: Array("<img src=slow.png><p style='background:url(fast.gif)'>".utf8),
                                   pageURL: BrowserURL(server.url("/article.html")))
        let naming = LocalImageNaming()
        let slow = naming.localName(for: BrowserURL(server.url("/slow.png"))!)!
        let fast = naming.localName(for: BrowserURL(server.url("/fast.gif"))!)!
        #expect(page.fileURL.path == folder.path("cache/index.html"))
        #expect(try String(contentsOf: page.fileURL, encoding: .utf8) == "<img src=\(slow)><p style='background:url(\(fast))'>")
        #expect(loader.image(for: BrowserURL(server.url("/slow.png"))!) == nil, "not downloaded yet")

        var summary: RefreshSummary?
        for await event in refreshes {
            if case .refresh(let found) = event {
                summary = found
                break
            }
        }
        #expect(summary?.downloaded == 2)
        #expect(loader.outstandingCount == 0)
        let image = try #require(loader.image(forLocalName: slow))
        #expect(image.bytes == TestImages.png(width: 3, height: 3))
        #expect(image.contentType == "image/png")
        #expect(FileManager.default.fileExists(atPath: folder.path("cache/\(fast)")))
        #expect(await page.downloads.value.allSatisfy { $0.status == .downloaded })
        await transport.shutdown()
        try await server.shutdown()
    }

    @Test("a page opened by URL uses its final URL as the base")
    func openURL() async throws {
        let server = try await TestImageServer.start()
        server.route("/go", .redirect(to: "/docs/page.html"))
        server.route("/docs/page.html", .status(200, body: Array("<img src=a.png>".utf8), contentType: "text/html; charset=utf-8"))
        server.route("/docs/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        let folder = try TemporaryFolder()
        let transport = AsyncHTTPClientTransport()
        let loader = OfflinePageLoader(store: try ImageCacheStore(directory: folder.path("cache")), transport: transport,
                                       referenceStyle: .urlPrefix("imgcache://"), notificationCenter: nil)
        let page = try await loader.open(url: BrowserURL(server.url("/go"))!, pageName: "docs.html")
        let name = LocalImageNaming().localName(for: BrowserURL(server.url("/docs/a.png"))!)!
        #expect(try String(contentsOf: page.fileURL, encoding: .utf8) == "<img src=imgcache://\(name)>")
        #expect(await page.downloads.value.map(\.status) == [.downloaded])
        #expect(loader.image(forLocalName: name)?.contentType == "image/png")
        await transport.shutdown()
        try await server.shutdown()
    }
}
