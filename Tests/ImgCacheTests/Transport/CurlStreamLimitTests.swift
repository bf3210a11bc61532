#if os(Linux)
import ImgCacheTestServer
@testable import ImgCache
@testable import ImgCacheHTTPClient
import Testing

/// Past 100 requests at once to an HTTP/2 host, libcurl's transport sends them one at a time and
/// holds back the first for which libcurl would open a second connection; what is held must still
/// end on cancellation and when the transport shuts down, and nothing goes over another connection.
@Suite("libcurl requests held for a free stream")
struct CurlStreamLimitTests {
    @Test("a request held for a free stream ends at once when its caller gives up, and the transport's shutdown ends the rest")
    func heldRequestIsCancelled() async throws {
        let server = try await Wire.https2.startServer(maxConcurrentStreams: 100)
        let transport = try CommandLineTransport.curl.make(trust: CertificateTrust(additionalCAFiles: [TestCertificates.caPath]))
        server.route("/first.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        // The connection answers first: the requests past 100 wait for that.
        _ = try await transport.send(TransportRequest(url: server.url("/first.png"), maxBytes: 100_000, deadline: .now + .seconds(60)))
        let slow = (0..<100).map { index in
            server.route("/s\(index).png", .image(bytes: TestImages.png(), contentType: "image/png", delay: .seconds(60)))
            return server.url("/s\(index).png")
        }
        let filling = slow.map { url in
            Task { try await transport.send(TransportRequest(url: url, maxBytes: 100_000, deadline: .now + .seconds(90))) }
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while server.totalRequests < 101, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(server.totalRequests == 101, "the connection holds its server's 100 streams (and the first request)")
        server.route("/held.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        let held = Task {
            try await transport.send(TransportRequest(url: server.url("/held.png"), maxBytes: 100_000, deadline: .now + .seconds(90)))
        }
        try await Task.sleep(for: .milliseconds(500))
        #expect(server.totalRequests == 101, "the request past the server's limit was held, not sent")
        #expect(server.negotiatedProtocols == ["h2"], "one connection")
        let (elapsed, stalled) = await elapsedExcludingStalls {
            held.cancel()
            await #expect(throws: CancellationError.self) { try await held.value }
        }
        // Not held until a stream comes free, a minute away; loose, for a machine busy with other tests.
        #expect(elapsed - stalled < .seconds(20), "took \(elapsed), of which the process was stalled \(stalled)")

        await transport.shutdown()
        for request in filling {
            await #expect(throws: TransportError.connection("the transport is shut down")) { try await request.value }
        }
        #expect(server.negotiatedProtocols == ["h2"], "one connection")
        try await server.shutdown()
    }
}
#endif
