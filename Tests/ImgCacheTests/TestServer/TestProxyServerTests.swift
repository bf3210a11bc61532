import Foundation
import ImgCacheTestServer
import Testing

/// Starts an origin server and a proxy, runs `body`, and always shuts both down.
private func withProxy(
    originTLS: TestTLSIdentity? = nil,
    refuseConnect: @escaping @Sendable (String, Int) -> Bool = { _, _ in false },
    _ body: (TestProxyServer, TestImageServer) async throws -> Void
) async throws {
    let origin = try await TestImageServer.start(tls: originTLS)
    let proxy: TestProxyServer
    do {
        proxy = try await TestProxyServer.start(refuseConnect: refuseConnect)
    } catch {
        try await origin.shutdown()
        throw error
    }
    do {
        try await body(proxy, origin)
    } catch {
        try await proxy.shutdown()
        try await origin.shutdown()
        throw error
    }
    try await proxy.shutdown()
    try await origin.shutdown()
}

@Suite("TestProxyServer")
struct TestProxyServerTests {
    @Test(.enabled(if: Curl.isAvailable, "needs /usr/bin/curl"))
    func forwardsAbsoluteFormRequestsOnAKeptAliveConnection() async throws {
        try await withProxy { proxy, origin in
            let png = TestImages.png(width: 4, height: 4)
            let gif = TestImages.gif()
            origin.route("/a.png", .image(bytes: png, contentType: "image/png"))
            origin.route("/b.gif", .image(bytes: gif, contentType: "image/gif"))
            let outcome = try await Curl.fetch(
                [origin.url("/a.png"), origin.url("/b.gif?x=1"), origin.url("/missing")],
                ["--proxy", proxy.url, "-H", "Proxy-Authorization: Basic Zm9vOmJhcg=="])
            #expect(outcome.exitCode == 0, "\(outcome.stderr)")
            #expect(outcome.transfers.map(\.status) == [200, 200, 404])
            #expect(outcome.transfers[0].body == png)
            #expect(outcome.transfers[1].body == gif)

            #expect(proxy.recordedRequests == [
                ProxiedRequest(method: "GET", target: origin.url("/a.png")),
                ProxiedRequest(method: "GET", target: origin.url("/b.gif?x=1")),
                ProxiedRequest(method: "GET", target: origin.url("/missing")),
            ])
            #expect(proxy.totalConnections == 1, "curl keeps its connection to the proxy alive")

            // The origin sees ordinary origin-form requests, without the proxy's own headers.
            let seen = try #require(origin.requests("/b.gif").first)
            #expect(seen.uri == "/b.gif?x=1")
            #expect(seen.header("Host") == "127.0.0.1:\(origin.port)")
            #expect(seen.header("Via") == "1.1 imgcache-test-proxy")
            #expect(seen.header("Proxy-Authorization") == nil)
            #expect(seen.header("Proxy-Connection") == nil)
        }
    }

    @Test(.enabled(if: Curl.isAvailable, "needs /usr/bin/curl"), arguments: CurlProtocol.allCases)
    func tunnelsHTTPSThroughConnect(_ proto: CurlProtocol) async throws {
        try await withProxy(originTLS: .valid) { proxy, origin in
            let png = TestImages.png(width: 5, height: 5)
            origin.route("/a.png", .image(bytes: png, contentType: "image/png"))
            let outcome = try await Curl.fetch(
                [origin.url("/a.png"), origin.url("/a.png?2")], proto.options + ["--proxy", proxy.url])
            #expect(outcome.exitCode == 0, "\(outcome.stderr)")
            #expect(outcome.transfers.map(\.status) == [200, 200])
            #expect(outcome.transfers.allSatisfy { $0.body == png && $0.httpVersion == proto.curlVersion })
            // One tunnel, reused: TLS and ALPN went through it end to end.
            #expect(proxy.recordedRequests == [ProxiedRequest(method: "CONNECT", target: "127.0.0.1:\(origin.port)")])
            #expect(origin.negotiatedProtocols == [proto.alpn])
            #expect(origin.totalConnections == 1)
        }
    }

    @Test(.enabled(if: Curl.isAvailable, "needs /usr/bin/curl"))
    func refusedConnectAnswers403() async throws {
        let refusedPort = LockedPort()
        try await withProxy(originTLS: .valid, refuseConnect: { _, port in port == refusedPort.value }) { proxy, origin in
            refusedPort.value = origin.port
            origin.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
            let outcome = try await Curl.fetch(origin.url("/a.png"), Curl.trustTestCA + ["--proxy", proxy.url])
            #expect(outcome.exitCode == 56, "\(outcome.stderr)")
            #expect(outcome.stderr.contains("403"))
            #expect(proxy.recordedRequests.map(\.description) == ["CONNECT 127.0.0.1:\(origin.port)"])
            #expect(origin.totalConnections == 0)
        }
    }

    @Test func answersWhatItCannotProxy() async throws {
        try await withProxy(refuseConnect: { _, port in port == 80 }) { proxy, origin in
            let refusing = try RefusingPort()
            defer { refusing.release() }
            let closedPort = refusing.port
            let port = proxy.port
            let originPort = origin.port
            let statuses = try await runBlocking { () -> [Int] in
                var statuses: [Int] = []
                for (request, noBody) in [
                    ("GET /a.png HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", false),
                    ("GET https://127.0.0.1:\(originPort)/a.png HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", false),
                    ("GET http://127.0.0.1:\(closedPort)/a.png HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", false),
                    ("CONNECT example.com:80 HTTP/1.1\r\nHost: example.com:80\r\n\r\n", false),
                    ("CONNECT 127.0.0.1:\(closedPort) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", false),
                    ("CONNECT nonsense HTTP/1.1\r\nHost: nonsense\r\n\r\n", false),
                ] {
                    let c = try RawHTTPConnection(port: port)
                    try c.send(request)
                    statuses.append(try c.readResponse(noBody: noBody).status)
                }
                return statuses
            }
            #expect(statuses == [400, 501, 502, 403, 502, 400])
            #expect(proxy.totalRequests == 6)
            #expect(origin.totalRequests == 0)
        }
    }

    @Test func originFailuresReachTheClient() async throws {
        try await withProxy { proxy, origin in
            let png = TestImages.png(width: 16, height: 16)
            origin.route("/t.png", .truncated(bytes: Array(png.prefix(20)), declaredLength: png.count))
            origin.route("/r.png", .reset)
            origin.route("/ok.png", .image(bytes: png, contentType: "image/png"))
            let port = proxy.port
            let (truncated, reset, ok) = try await runBlocking {
                let c = try RawHTTPConnection(port: port)
                try c.get(origin.url("/t.png"))
                let truncated = try c.readResponse()
                let d = try RawHTTPConnection(port: port)
                try d.get(origin.url("/r.png"))
                let reset = try d.readResponse()
                try d.get(origin.url("/ok.png"))
                let ok = try d.readResponse()
                return (truncated, reset, ok)
            }
            #expect(truncated.status == 200)
            #expect(truncated.body == Array(png.prefix(20)))
            #expect(!truncated.complete)
            #expect(reset.status == 502)
            #expect(ok.status == 200)
            #expect(ok.body == png)
        }
    }

    @Test func aTunnelClosesWithEitherSide() async throws {
        try await withProxy { proxy, origin in
            let gif = TestImages.gif()
            origin.route("/k.gif", .image(bytes: gif, contentType: "image/gif"))
            let port = proxy.port
            let originPort = origin.port
            let (established, first, last, closed) = try await runBlocking {
                let c = try RawHTTPConnection(port: port)
                // A plain HTTP origin through CONNECT, as `curl --proxytunnel` does it.
                try c.send("CONNECT 127.0.0.1:\(originPort) HTTP/1.1\r\nHost: 127.0.0.1:\(originPort)\r\n\r\n")
                let established = try c.readResponse(noBody: true)
                try c.get("/k.gif")
                let first = try c.readResponse()
                try c.get("/k.gif", ["Connection: close"])
                let last = try c.readResponse()
                // The origin closed after `Connection: close`, so the proxy closed the client's side.
                let closed = (try? c.receiveSome()) == []
                return (established, first, last, closed)
            }
            #expect(established.status == 200)
            #expect(established.header("Content-Length") == nil)
            #expect(established.header("Transfer-Encoding") == nil)
            #expect(first.body == gif)
            #expect(last.body == gif)
            #expect(closed)
            #expect(origin.totalConnections == 1)
            #expect(origin.requestCount("/k.gif") == 2)
        }
    }

    @Test func shutdownClosesOpenTunnelsAndIsIdempotent() async throws {
        let origin = try await TestImageServer.start()
        let proxy = try await TestProxyServer.start()
        let port = proxy.port
        let originPort = origin.port
        let connection = try await runBlocking {
            let c = try RawHTTPConnection(port: port)
            try c.send("CONNECT 127.0.0.1:\(originPort) HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = try c.readResponse(noBody: true)
            return UncheckedBox(c)
        }
        try await proxy.shutdown()
        try await proxy.shutdown()
        let closed = try await runBlocking { (try? connection.value.receiveSome()) == [] }
        #expect(closed)
        #expect(try await RawHTTPConnection.isRefused(port: port))
        try await origin.shutdown()
    }
}

/// A port number set after the proxy starts, read by its `refuseConnect`.
private final class LockedPort: @unchecked Sendable {
    private let lock = NSLock()
    private var port = -1

    var value: Int {
        get { lock.withLock { port } }
        set { lock.withLock { port = newValue } }
    }
}

/// Carries a non-Sendable value from one blocking closure to another; used only sequentially.
private struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A port on 127.0.0.1 that refuses connections for as long as this is held: a socket bound
/// there that never listens. A server's port freed and read back could be taken meanwhile by a
/// server of a test running in parallel (CI once saw the proxy's CONNECT to it succeed).
private final class RefusingPort: Sendable {
    let port: Int
    private let descriptor: Int32

    init() throws {
        (descriptor, port) = try loopbackSocket(listeningWithBacklog: nil)
    }

    func release() {
        close(descriptor)
    }
}
