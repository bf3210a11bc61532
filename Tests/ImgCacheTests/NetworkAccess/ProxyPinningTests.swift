import Foundation
@testable import ImgCache
@testable import ImgCacheHTTPClient
@testable import ImgCacheCurl
import ImgCacheTestServer
import Testing

/// With private networks denied and a proxy in the way, the address checked is the address the
/// proxy connects to: it is told the address, never the name, which it would look up again (and
/// a DNS answer that changes, or a split horizon, would then lead it anywhere).
@Suite("Denying private networks through a proxy")
struct ProxyPinningTests {
    #if os(Linux)
    @Test("libcurl asks the proxy to connect to the checked address, for https and plain http alike")
    func curlPinsTheCheckedAddress() async throws {
        let server = try await TestImageServer.start()
        server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        // A proxy that would reach only loopback (whatever its own DNS says of any name), and
        // never connects anywhere else.
        let proxy = try await TestProxyServer.start { host, _ in host != "127.0.0.1" }
        let settings = ProxySettings(httpProxy: .init(host: "127.0.0.1", port: proxy.port), httpsProxy: .init(host: "127.0.0.1", port: proxy.port))
        // To imgcache, `rebind.test` is at a public address; `images.test` at 127.0.0.1, allowed as an exception.
        let transport = try CurlTransport(trust: CertificateTrust(additionalCAFiles: [TestCertificates.caPath]), proxy: settings,
                                          connectTimeout: .seconds(10), readTimeout: .seconds(30),
                                          resolvedNames: ["rebind.test": IPAddress("93.184.215.14")!, "images.test": IPAddress("127.0.0.1")!])

        var toPublic = TransportRequest.get("http://rebind.test:\(server.port)/a.png")
        toPublic.privateNetworks = .denied()
        _ = try? await transport.send(toPublic)
        var allowed = TransportRequest.get("http://images.test:\(server.port)/a.png")
        allowed.privateNetworks = .denied(except: [AddressRange("127.0.0.1")!])
        let response = try await transport.send(allowed)

        #expect(response.status == 200)
        #expect(response.body == TestImages.png())
        let lines = proxy.recordedRequests.map(\.description)
        #expect(lines.contains("CONNECT 93.184.215.14:\(server.port)"), "\(lines)")
        #expect(lines.contains("CONNECT 127.0.0.1:\(server.port)"), "\(lines)")
        #expect(!lines.contains { $0.contains("rebind.test") || $0.contains("images.test") }, "the proxy is never given a name: \(lines)")
        // Through the tunnel, the origin still sees the URL's host.
        #expect(server.requests("/a.png").map { $0.header("Host") } == ["images.test:\(server.port)"])
        await transport.shutdown()
        try await proxy.shutdown()
        try await server.shutdown()
    }

    @Test("libcurl refuses, before asking the proxy anything, a host whose address is refused")
    func curlRefusesBeforeTheProxy() async throws {
        let proxy = try await TestProxyServer.start { _, _ in true }
        let settings = ProxySettings(httpProxy: .init(host: "127.0.0.1", port: proxy.port))
        let transport = try CurlTransport(trust: .system, proxy: settings, connectTimeout: .seconds(10), readTimeout: .seconds(30),
                                          resolvedNames: ["internal.test": IPAddress("10.1.2.3")!])
        var request = TransportRequest.get("http://internal.test/a.png")
        request.privateNetworks = .denied()
        let error = await transportError { try await transport.send(request) }
        #expect(error as? TransportError == .deniedAddress(host: "internal.test", address: "10.1.2.3", kind: "a private address"))
        #expect(proxy.totalRequests == 0)
        await transport.shutdown()
        try await proxy.shutdown()
    }
    #endif

    @Test("AsyncHTTPClient, which cannot tell a proxy which address to connect to, refuses proxied requests")
    func asyncHTTPClientRefuses() async throws {
        let proxy = try await TestProxyServer.start { _, _ in true }
        let settings = ProxySettings(httpProxy: .init(host: "127.0.0.1", port: proxy.port), httpsProxy: .init(host: "127.0.0.1", port: proxy.port))
        let transport = AsyncHTTPClientTransport(proxy: settings)
        for url in ["http://images.example.com/a.png", "https://images.example.com/a.png"] {
            var request = TransportRequest.get(url)
            request.privateNetworks = .denied()
            let error = await transportError { try await transport.send(request) }
            guard case .invalidRequest(let reason)? = error as? TransportError else {
                Issue.record("\(url): \(String(describing: error))")
                continue
            }
            #expect(reason.contains("proxy"))
        }
        #expect(proxy.totalRequests == 0)
        await transport.shutdown()
        try await proxy.shutdown()
    }
}
