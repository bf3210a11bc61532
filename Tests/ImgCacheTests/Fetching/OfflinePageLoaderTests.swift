import Foundation
import ImgCacheHTTPClient
import ImgCacheTestServer
import Testing
@testable import ImgCache
@testable import ImgCacheURLs
@testable import ImgCacheMarkup
@testable import ImgCacheStore

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
        let page = try await loader.open(html: html, pageURL: BrowserURL(server.url("/article.html")))
        let png = LocalImageNaming().localName(for: BrowserURL(server.url("/a.png"))!)!
        let jpeg = LocalImageNaming().localName(for: BrowserURL(server.url("/photo/7"))!, format: .jpeg)!
        // Until its bytes name it, the image is shown from the web: an absolute URL, not one into the cache folder.
        #expect(try String(contentsOf: page.fileURL, encoding: .utf8) == "<img src=\(png)><img src=\(server.url("/photo/7"))>",
                "the known name at once")
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
        let again = try await loader.open(html: html, pageURL: BrowserURL(server.url("/article.html")), pageName: "again.html")
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

        let page = try await loader.open(html: Array("<img src=slow.png><p style='background:url(fast.gif)'>".utf8),
                                         pageURL: BrowserURL(server.url("/article.html")))
        let naming = LocalImageNaming()
        let slow = naming.localName(for: BrowserURL(server.url("/slow.png"))!)!
        let fast = naming.localName(for: BrowserURL(server.url("/fast.gif"))!)!
        #expect(page.fileURL.path == folder.path("cache/" + OfflinePageLoader.defaultPageName(for: BrowserURL(server.url("/article.html")))))
        #expect(try String(contentsOf: page.fileURL, encoding: .utf8) == "<img src=\(slow)><p style='background:url(\(fast))'>")
        #expect(!FileManager.default.fileExists(atPath: folder.path("cache/\(slow)")), "not downloaded yet")

        var summary: RefreshSummary?
        for await event in refreshes {
            if case .refresh(let found) = event {
                summary = found
                break
            }
        }
        #expect(summary?.downloaded == 2)
        #expect(loader.session.outstandingCount == 0)
        let image = try await loader.image(forLocalName: slow)
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
        #expect(try await loader.image(forLocalName: name).contentType == "image/png")
        await transport.shutdown()
        try await server.shutdown()
    }

    @Test("a scheme handler's request for an image still downloading is answered once it lands; a failed one with its failure; a cancelled one at once")
    func waitingForImages() async throws {
        let server = try await TestImageServer.start()
        server.route("/slow.png", .image(bytes: TestImages.png(width: 2, height: 2), contentType: "image/png", delay: .milliseconds(600)))
        server.route("/gone.png", .status(404, body: [], contentType: "text/plain"))
        server.route("/later.gif", .image(bytes: TestImages.gif(), contentType: "image/gif", delay: .seconds(60)))
        let folder = try TemporaryFolder()
        let transport = AsyncHTTPClientTransport()
        let loader = OfflinePageLoader(store: try ImageCacheStore(directory: folder.path("cache")), transport: transport,
                                       referenceStyle: .urlPrefix("imgcache://"), notificationCenter: nil)
        let naming = LocalImageNaming()
        let slow = naming.localName(for: BrowserURL(server.url("/slow.png"))!)!
        let gone = naming.localName(for: BrowserURL(server.url("/gone.png"))!)!
        let later = naming.localName(for: BrowserURL(server.url("/later.gif"))!)!
        let page = try await loader.open(html: Array("<img src=slow.png><img src=gone.png><img src=later.gif>".utf8),
                                         pageURL: BrowserURL(server.url("/page.html")))

        let asked = ContinuousClock.now
        let image = try await loader.image(forLocalName: slow)
        #expect(image.bytes == TestImages.png(width: 2, height: 2))
        #expect(image.contentType == "image/png")
        #expect(ContinuousClock.now - asked >= .milliseconds(300), "answered when the download landed, not before")

        await #expect(throws: OfflineImageError(.downloadFailed(gone, DownloadFailure(.httpStatus(404))))) { try await loader.image(forLocalName: gone) }
        await #expect(throws: OfflineImageError(.notCached("nothing.png"))) { try await loader.image(forLocalName: "nothing.png") }

        let waiting = Task { try await loader.image(forLocalName: later) }
        try await Task.sleep(for: .milliseconds(100))
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        // The server holds later.gif for a minute: were the cancelled request to end with its
        // download, that download would no longer be outstanding here. (A time bound instead
        // failed once on a loaded CI machine.)
        #expect(loader.session.outstandingCount == 1, "the cancelled request ends at once, not with the download")

        await loader.session.cancelDownloads()
        _ = await page.downloads.value
        await transport.shutdown()
        try await server.shutdown()
    }

    @Test("a request that waits ends with the download: a failure while it waits, an image named with a fragment, a download two pages share")
    func waitsEndWithTheirDownloads() async throws {
        let server = try await TestImageServer.start()
        server.route("/failing.png", .status(404, body: [], contentType: "text/plain", delay: .milliseconds(500)))
        server.route("/sprite.png", .image(bytes: TestImages.png(width: 3, height: 1), contentType: "image/png", delay: .milliseconds(1_500)))
        server.route("/shared.gif", .status(410, body: [], contentType: "text/plain", delay: .milliseconds(700)))
        let folder = try TemporaryFolder()
        let transport = AsyncHTTPClientTransport()
        let loader = OfflinePageLoader(store: try ImageCacheStore(directory: folder.path("cache")), transport: transport,
                                       referenceStyle: .urlPrefix("imgcache://"), notificationCenter: nil)
        let naming = LocalImageNaming()
        func name(_ path: String) -> String { naming.localName(for: BrowserURL(server.url(path))!)! }

        let first = try await loader.open(html: Array("<img src=failing.png><img src='sprite.png#icon'><img src=shared.gif>".utf8),
                                          pageURL: BrowserURL(server.url("/one.html")))
        // A second page asks for the same image while the first page's download of it runs: it
        // shares that download, and gets no event of its own for it.
        let second = try await loader.open(html: Array("<img src=shared.gif>".utf8), pageURL: BrowserURL(server.url("/two.html")))
        let page = try String(contentsOf: first.fileURL, encoding: .utf8)
        #expect(page.contains("imgcache://\(name("/sprite.png"))"), "the fragment is not part of the local name: \(page)")

        let asked = ContinuousClock.now
        await #expect(throws: OfflineImageError(.downloadFailed(name("/failing.png"), DownloadFailure(.httpStatus(404))))) {
            try await loader.image(forLocalName: name("/failing.png"))
        }
        #expect(ContinuousClock.now - asked >= .milliseconds(250), "the request waited for the download that failed")
        #expect(try await loader.image(forLocalName: name("/sprite.png")).bytes == TestImages.png(width: 3, height: 1))

        let whileDownloading = Task { try await loader.image(forLocalName: name("/shared.gif")) }
        _ = await first.downloads.value
        _ = await second.downloads.value
        await #expect(throws: OfflineImageError(.downloadFailed(name("/shared.gif"), DownloadFailure(.httpStatus(410))))) { try await whileDownloading.value }
        // Asked again once both pages have their downloads back: the failure, at once (it waited
        // for ever when the second page's share of the download was still counted as to come).
        let afterwards = Task { try await loader.image(forLocalName: name("/shared.gif")) }
        let timeout = Task {
            try await Task.sleep(for: .seconds(10))
            afterwards.cancel()
        }
        await #expect(throws: OfflineImageError(.downloadFailed(name("/shared.gif"), DownloadFailure(.httpStatus(410))))) { try await afterwards.value }
        timeout.cancel()

        await transport.shutdown()
        try await server.shutdown()
    }

    @Test("pages get a file of their own by URL; their stylesheets, scripts and links stay reachable from the cache folder")
    func distinctPagesWithAbsoluteLinks() async throws {
        let server = try await TestImageServer.start()
        server.route("/blog/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        let folder = try TemporaryFolder()
        let transport = AsyncHTTPClientTransport()
        let loader = OfflinePageLoader(store: try ImageCacheStore(directory: folder.path("cache")), transport: transport,
                                       notificationCenter: nil)
        let html = Array("<link rel=stylesheet href=css/site.css><script src=/js/app.js></script><a href=#top>top</a><img src=a.png>".utf8)
        let first = try await loader.open(html: html, pageURL: BrowserURL(server.url("/blog/index.html")))
        let second = try await loader.open(html: html, pageURL: BrowserURL(server.url("/blog/other/index.html")))
        let again = try await loader.open(html: html, pageURL: BrowserURL(server.url("/blog/index.html#comments")))
        #expect(first.fileURL != second.fileURL)
        #expect(first.fileURL == again.fileURL, "the same page, whatever its fragment, is the same file")
        #expect(first.fileURL.lastPathComponent.hasPrefix("index-"))
        let name = LocalImageNaming().localName(for: BrowserURL(server.url("/blog/a.png"))!)!
        #expect(try String(contentsOf: first.fileURL, encoding: .utf8)
                == "<link rel=stylesheet href=\(server.url("/blog/css/site.css"))><script src=\(server.url("/js/app.js"))></script><a href=#top>top</a><img src=\(name)>")
        _ = await first.downloads.value
        _ = await second.downloads.value
        _ = await again.downloads.value
        await transport.shutdown()
        try await server.shutdown()
    }
}
