import Foundation
import ImgCacheHTTPClient
import ImgCacheTestServer
import Testing
@testable import ImgCache
@testable import ImgCacheURLs
@testable import ImgCacheMarkup
@testable import ImgCacheStore

/// Localising pages for devices (`--device`, `Configuration.devices`), end to end: only what the
/// devices show is fetched, and a failed image is replaced by the one the device would pick next.
@Suite("fetching for devices")
struct DeviceFetchTests {
    private static let page = """
        <img src="/a-640.jpg" srcset="/a-320.jpg 320w, /a-640.jpg 640w, /a-1280.jpg 1280w, /a-2560.jpg 2560w" sizes="100vw" alt="">
        <picture><source type="image/avif" srcset="/p.avif"><img src="/p.jpg" alt=""></picture>
        <img src="/logo.png" alt="">
        """
    private static let images = ["/a-320.jpg", "/a-640.jpg", "/a-1280.jpg", "/a-2560.jpg", "/p.jpg"]

    private func serve(_ server: TestImageServer, failing: Set<String> = []) {
        for path in Self.images + ["/logo.png"] {
            server.route(path, failing.contains(path) ? .status(404)
                : .image(bytes: path.hasSuffix("png") ? TestImages.png() : TestImages.jpeg(), contentType: "image/x"))
        }
        let avif: [UInt8] = [0, 0, 0, 0x1C] + Array("ftypavif".utf8) + [0, 0, 0, 0] + Array("avifmif1miaf".utf8)
        server.route("/p.avif", .image(bytes: avif, contentType: "image/avif"))
    }

    private func name(_ server: TestImageServer, _ path: String) -> String {
        LocalImageNaming().localName(for: BrowserURL(server.url(path))!)!
    }

    @Test("fetch --device: each device's pick is downloaded, nothing else; the page offers only those; the manifest says who shows what")
    func fetchForTwoDevices() async throws {
        let server = try await TestImageServer.start()
        serve(server)
        let folder = try TemporaryFolder()
        try folder.write("page.html", Self.page)
        let outcome = try await CommandRunner.runOffPool(
            ["fetch", "page.html", "--base-url", server.url("/page.html"), "--out", "out", "--device", "390x844@1", "--device", "1280x800@2"],
            in: folder.url)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(["/a-640.jpg", "/a-2560.jpg", "/p.avif", "/logo.png"].map(server.requestCount) == [1, 1, 1, 1])
        #expect(["/a-320.jpg", "/a-1280.jpg", "/p.jpg"].map(server.requestCount) == [0, 0, 0])
        let page = try String(contentsOfFile: folder.path("out/page.html"), encoding: .utf8)
        let (a640, a2560, avif, logo) = (name(server, "/a-640.jpg"), name(server, "/a-2560.jpg"), name(server, "/p.avif"), name(server, "/logo.png"))
        #expect(page == """
            <img src="images/\(a640)" srcset="images/\(a640) 640w, images/\(a2560) 2560w" sizes="100vw" alt="">
            <picture><source type="image/avif" srcset="images/\(avif)"><img src="images/\(avif)" alt=""></picture>
            <img src="images/\(logo)" alt="">
            """)
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.url.appendingPathComponent("out/imgcache-manifest.json")))
        let entries = ((manifest as? [String: Any])?["pages"] as? [[String: Any]])?.first?["references"] as? [[String: Any]] ?? []
        let shown = entries.map { ($0["original"] as? String ?? "", $0["shownOn"] as? [String], $0["error"] as? String) }
        #expect(shown.first { $0.0 == "/a-2560.jpg" }?.1 == ["1280x800@2"])
        #expect(shown.first { $0.0 == "/p.avif" }?.1 == ["390x844@1", "1280x800@2"])
        #expect(shown.first { $0.0 == "/a-320.jpg" }.map { $0.1 == [] && $0.2 == "not-shown" } == true)
        #expect(shown.first { $0.0 == "/logo.png" }.map { $0.1 == nil } == true, "an image that offers no choice says nothing")
        try await server.shutdown()
    }

    @Test("build mode: when a device's pick fails, the next one it would pick is fetched and the page uses it; the failure is reported")
    func failedPickIsReplaced() async throws {
        let server = try await TestImageServer.start()
        serve(server, failing: ["/a-2560.jpg"])
        let folder = try TemporaryFolder()
        try folder.write("page.html", Self.page)
        let outcome = try await CommandRunner.runOffPool(
            ["fetch", "page.html", "--base-url", server.url("/page.html"), "--out", "out", "--device", "1280x800@2", "--retries", "0"],
            in: folder.url)
        #expect(outcome.status == 2, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("/a-2560.jpg: HTTP 404"), "\(outcome.stderr)")
        #expect(["/a-2560.jpg", "/a-1280.jpg", "/a-640.jpg", "/a-320.jpg"].map(server.requestCount) == [1, 1, 0, 0])
        let page = try String(contentsOfFile: folder.path("out/page.html"), encoding: .utf8)
        let a1280 = name(server, "/a-1280.jpg")
        #expect(page.hasPrefix("""
            <img src="images/\(a1280)" srcset="images/\(a1280) 1280w" sizes="100vw" alt="">
            """), "\(page)")
        try await server.shutdown()
    }

    @Test("live mode through the library: the page points at each pick at once, and is written again with the next pick when one fails")
    func liveModeReplacesAFailedPick() async throws {
        let server = try await TestImageServer.start()
        serve(server, failing: ["/a-2560.jpg"])
        let folder = try TemporaryFolder()
        var configuration = LocalizationSession.Configuration(store: try ImageCacheStore(directory: folder.path("images")),
                                                              transport: AsyncHTTPClientTransport(),
                                                              downloadPolicy: DownloadPolicy(retries: 0), debounce: .milliseconds(50))
        configuration.devices = [DeviceProfile(viewportWidth: 1280, viewportHeight: 800, pixelRatio: 2)]
        #expect(configuration.rewriting.devices == configuration.devices)
        let writes = ThreadSafeLog<String>()
        let refreshes = ThreadSafeLog<Int>()
        let session = LocalizationSession(configuration) { event in
            if case .refresh = event { refreshes.append(writes.values.count) }
        }
        _ = try await session.localize(.bytes(Array(Self.page.utf8), url: BrowserURL(server.url("/page.html"))), mode: .live,
                                       pageReady: { writes.append(String(decoding: $0.bytes, as: UTF8.self)) })
        await session.finish()
        let (a1280, a2560) = (name(server, "/a-1280.jpg"), name(server, "/a-2560.jpg"))
        #expect(writes.values.count == 2)
        #expect(writes.values.first?.contains(#"srcset="images/\#(a2560) 2560w""#) == true, "\(writes.values)")
        #expect(writes.values.last?.hasPrefix(#"<img src="images/\#(a1280)" srcset="images/\#(a1280) 1280w""#) == true, "\(writes.values)")
        #expect(!refreshes.values.isEmpty && refreshes.values.allSatisfy { $0 == 2 }, "the refresh comes after the page was written again")
        try await server.shutdown()
    }

    @Test("OfflinePageLoader for a turning phone: each way up gets its pick, a failed pick is replaced, the page written again before the refresh")
    func offlinePageLoaderForAScreen() async throws {
        let server = try await TestImageServer.start()
        serve(server, failing: ["/a-1280.jpg"])
        let folder = try TemporaryFolder()
        let store = try ImageCacheStore(directory: folder.path("cache"))
        let refreshed = ThreadSafeLog<[String]>()
        // 390x844 at 2x needs 780 pixels upright (a-1280) and 1688 turned (a-2560).
        let loader = OfflinePageLoader(store: store, transport: AsyncHTTPClientTransport(), policy: DownloadPolicy(retries: 0),
                                       debounce: .milliseconds(50), notificationCenter: nil,
                                       devices: DeviceProfile.screen(width: 390, height: 844, scale: 2, turns: true))
        let listener = Task { for await event in loader.notifier.events() { if let summary = event.refreshSummary { refreshed.append(summary.rewrittenPages) } } }
        let page = try await loader.open(html: Array(Self.page.utf8), pageURL: BrowserURL(server.url("/page.html")), pageName: "page.html")
        let a2560 = name(server, "/a-2560.jpg")
        _ = await page.downloads.value
        await loader.session.finish()
        listener.cancel()
        let written = try String(contentsOf: page.fileURL, encoding: .utf8)
        // Upright, without a-1280 the phone takes the next denser, which the turned phone shows.
        #expect(written.hasPrefix(#"<img src="\#(a2560)" srcset="\#(a2560) 2560w" sizes="100vw" alt="">"#), "\(written)")
        #expect(["/a-1280.jpg", "/a-2560.jpg", "/a-640.jpg", "/a-320.jpg"].map(server.requestCount) == [1, 1, 0, 0])
        #expect(refreshed.values.contains { $0 == [page.fileURL.path] }, "the refresh lists the page written again: \(refreshed.values)")
        try await server.shutdown()
    }
}
