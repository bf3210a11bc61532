@testable import ImgCache
import ImgCacheHTTPClient
import ImgCacheTestServer
import Testing
@testable import ImgCacheURLs
@testable import ImgCacheStore

/// Images through a real forward proxy that behaves like Squid's default configuration: `CONNECT`
/// only to the HTTPS origin's port. `http` images must arrive in absolute form, `https` ones
/// through a tunnel, both end to end.
@Suite("Images through an HTTP proxy")
struct ForwardProxyTests {
    @Test("http images are sent in absolute form, https ones through CONNECT; both are downloaded")
    func bothSchemesThroughTheProxy() async throws {
        let plain = try await TestImageServer.start()
        let secure = try await TestImageServer.start(tls: .valid)
        let png = TestImages.png(), gif = TestImages.gif()
        plain.route("/p.png", .image(bytes: png, contentType: "image/png"))
        secure.route("/s.gif", .image(bytes: gif, contentType: "image/gif"))
        // Squid's default: CONNECT only to "SSL ports" (here, the HTTPS origin's).
        let securePort = secure.port
        let proxy = try await TestProxyServer.start(refuseConnect: { _, port in port != securePort })
        let settings = ProxySettings(httpProxy: .init(host: "127.0.0.1", port: proxy.port),
                                     httpsProxy: .init(host: "127.0.0.1", port: proxy.port))
        let transport = try AsyncHTTPClientTransport(
            trust: CertificateTrust(additionalCAFiles: [TestCertificates.caPath]), proxy: settings)
        let folder = try TemporaryFolder()
        let store = try ImageCacheStore(directory: folder.path("images"))
        let downloader = ImageDownloader(transport: transport, store: store)

        let outcomes = await downloader.fetchAll([BrowserURL(plain.url("/p.png"))!, BrowserURL(secure.url("/s.gif"))!])
        #expect(outcomes.map(\.status) == [.downloaded, .downloaded], "\(outcomes.map { $0.failure?.description ?? "" })")
        #expect(store.contents(for: BrowserURL(plain.url("/p.png"))!)?.bytes == png)
        #expect(store.contents(for: BrowserURL(secure.url("/s.gif"))!)?.bytes == gif)

        let seen = proxy.recordedRequests.map(\.description)
        #expect(seen.contains("GET \(plain.url("/p.png"))"), "\(seen)")
        #expect(seen.contains("CONNECT 127.0.0.1:\(secure.port)"), "\(seen)")
        #expect(!seen.contains { $0.hasPrefix("CONNECT 127.0.0.1:\(plain.port)") }, "no tunnel for http: \(seen)")
        #expect(plain.requests("/p.png").first?.header("Host") == "127.0.0.1:\(plain.port)")
        // Through the tunnel, TLS and ALPN are end to end: the origin negotiated HTTP/2.
        #expect(secure.negotiatedProtocols == ["h2"])

        await transport.shutdown()
        try await proxy.shutdown()
        try await plain.shutdown()
        try await secure.shutdown()
    }

    @Test("keep-alive: many http images share a few connections to the proxy")
    func connectionsToTheProxyAreReused() async throws {
        let origin = try await TestImageServer.start()
        var urls: [BrowserURL] = []
        for index in 0..<30 {
            origin.route("/i\(index).png", .image(bytes: TestImages.png(), contentType: "image/png"))
            urls.append(BrowserURL(origin.url("/i\(index).png"))!)
        }
        let proxy = try await TestProxyServer.start()
        let transport = try AsyncHTTPClientTransport(
            trust: .system, proxy: ProxySettings(httpProxy: .init(host: "127.0.0.1", port: proxy.port)))
        let folder = try TemporaryFolder()
        let downloader = ImageDownloader(transport: transport, store: try ImageCacheStore(directory: folder.path("images")),
                                         policy: DownloadPolicy(perHostConcurrency: 4))
        let outcomes = await downloader.fetchAll(urls)
        #expect(outcomes.allSatisfy { $0.status == .downloaded })
        #expect(proxy.totalRequests == 30)
        #expect(proxy.totalConnections <= 4, "\(proxy.totalConnections) connections for 30 requests")
        await transport.shutdown()
        try await proxy.shutdown()
        try await origin.shutdown()
    }

    @Test("faults behind the proxy are reported as from the origin: 404, truncation, an image too large")
    func faultsThroughTheProxy() async throws {
        let origin = try await TestImageServer.start()
        let png = TestImages.png(byteCount: 3_000)
        origin.route("/missing.png", .status(404))
        origin.route("/cut.png", .truncated(bytes: Array(png.prefix(1_000)), declaredLength: png.count))
        origin.route("/big.png", .image(bytes: TestImages.png(byteCount: 50_000), contentType: "image/png"))
        let proxy = try await TestProxyServer.start()
        let transport = try AsyncHTTPClientTransport(
            trust: .system, proxy: ProxySettings(httpProxy: .init(host: "127.0.0.1", port: proxy.port)))
        let folder = try TemporaryFolder()
        let store = try ImageCacheStore(directory: folder.path("images"))
        let downloader = ImageDownloader(transport: transport, store: store,
                                         policy: DownloadPolicy(retries: 0, maxBytes: 10_000))
        let outcomes = await downloader.fetchAll(["/missing.png", "/cut.png", "/big.png"].map { BrowserURL(origin.url($0))! })
        #expect(outcomes[0].failure?.description == "HTTP 404")
        #expect(outcomes[1].failure?.description.contains("truncated") == true, "\(outcomes[1].failure?.description ?? "")")
        #expect(outcomes[2].failure?.description.contains("10000-byte limit") == true, "\(outcomes[2].failure?.description ?? "")")
        #expect(outcomes.allSatisfy { store.lookup(BrowserURL($0.url)!).metadata == nil })
        await transport.shutdown()
        try await proxy.shutdown()
        try await origin.shutdown()
    }
}
