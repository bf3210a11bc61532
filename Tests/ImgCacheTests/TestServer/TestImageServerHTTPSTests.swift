import Foundation
import ImgCacheTestServer
import Testing

/// Starts an HTTPS server, runs `body`, and always shuts the server down.
private func withHTTPSServer(
    _ identity: TestTLSIdentity = .valid, http2: Bool = true, maxConcurrentStreams: Int = 128,
    _ body: (TestImageServer) async throws -> Void
) async throws {
    try await withServer(tls: identity, http2: http2, maxConcurrentStreams: maxConcurrentStreams, body)
}

/// What curl asks for: `--http2` offers h2 and http/1.1 in ALPN, `--http1.1` only http/1.1.
enum CurlProtocol: String, CaseIterable, CustomTestStringConvertible {
    case http2 = "--http2"
    case http1 = "--http1.1"

    var options: [String] { Curl.trustTestCA + [rawValue] }
    /// curl's `%{http_version}` for it.
    var curlVersion: String { self == .http2 ? "2" : "1.1" }
    var alpn: String { self == .http2 ? "h2" : "http/1.1" }
    var recordedVersion: String { self == .http2 ? "HTTP/2" : "HTTP/1.1" }
    var testDescription: String { self == .http2 ? "HTTP/2" : "HTTP/1.1 over TLS" }
}

@Suite("TestImageServer over HTTPS and HTTP/2", .enabled(if: Curl.isAvailable, "needs /usr/bin/curl"))
struct TestImageServerHTTPSTests {
    @Test(arguments: CurlProtocol.allCases)
    func servesAnImageOverTheNegotiatedProtocol(_ proto: CurlProtocol) async throws {
        try await withHTTPSServer { server in
            #expect(server.isTLS)
            #expect(server.baseURL == "https://127.0.0.1:\(server.port)")
            let png = TestImages.png(width: 3, height: 2)
            server.route("/a.png", .image(bytes: png, contentType: "image/png", etag: "\"v1\""))

            let outcome = try await Curl.fetch(server.url("/a.png"), proto.options + ["-H", "User-Agent: imgcache-test/2"])
            #expect(outcome.exitCode == 0, "\(outcome.stderr)")
            #expect(outcome.transfer.status == 200)
            #expect(outcome.transfer.httpVersion == proto.curlVersion)
            #expect(outcome.transfer.body == png)

            #expect(server.negotiatedProtocols == [proto.alpn])
            let recorded = try #require(server.requests("/a.png").first)
            #expect(recorded.version == proto.recordedVersion)
            #expect(recorded.header("host") == "127.0.0.1:\(server.port)")
            #expect(recorded.header("user-agent") == "imgcache-test/2")
            #expect(server.totalConnections == 1)
        }
    }

    @Test func withoutHTTP2OnlyHTTP1IsNegotiated() async throws {
        try await withHTTPSServer(http2: false) { server in
            server.route("/a.gif", .image(bytes: TestImages.gif(), contentType: "image/gif"))
            let outcome = try await Curl.fetch(server.url("/a.gif"), CurlProtocol.http2.options)
            #expect(outcome.exitCode == 0, "\(outcome.stderr)")
            #expect(outcome.transfer.httpVersion == "1.1")
            #expect(outcome.transfer.body == TestImages.gif())
            #expect(server.negotiatedProtocols == ["http/1.1"])
        }
    }

    /// Every behaviour, over both protocols, through one client connection where the protocol allows.
    @Test(arguments: CurlProtocol.allCases)
    func everyBehaviourWorks(_ proto: CurlProtocol) async throws {
        try await withHTTPSServer { server in
            let png = TestImages.png(width: 16, height: 16)
            let jpeg = TestImages.jpeg()
            server.route("/c.png", .image(bytes: png, contentType: "image/png", etag: "\"abc\""))
            server.route("/error.png", .status(500, body: Array("boom".utf8)))
            server.route("/start", .redirect(to: "/final.jpg", status: 301))
            server.route("/final.jpg", .image(bytes: jpeg, contentType: "image/jpeg"))
            server.route("/flaky.png", .sequence([.status(503), .image(bytes: png, contentType: "image/png")]))
            server.route("/drip.png", .drip(bytes: Array(png.prefix(6)), interval: .milliseconds(20)))

            let conditional = try await Curl.fetch(server.url("/c.png"), proto.options + ["-H", "If-None-Match: \"abc\""])
            #expect(conditional.transfer.status == 304)
            #expect(conditional.transfer.body.isEmpty)

            let plain = try await Curl.fetch(
                [server.url("/c.png"), server.url("/error.png"), server.url("/missing"), server.url("/drip.png")],
                proto.options)
            #expect(plain.exitCode == 0, "\(plain.stderr)")
            #expect(plain.transfers.map(\.status) == [200, 500, 404, 200])
            #expect(plain.transfers.map(\.httpVersion) == Array(repeating: proto.curlVersion, count: 4))
            #expect(plain.transfers[0].body == png)
            #expect(plain.transfers[1].body == Array("boom".utf8))
            #expect(plain.transfers[3].body == Array(png.prefix(6)))

            let redirected = try await Curl.fetch(server.url("/start"), proto.options + ["--location"])
            #expect(redirected.transfer.status == 200)
            #expect(redirected.transfer.body == jpeg)
            #expect(server.requestCount("/final.jpg") == 1)

            let flaky = try await Curl.fetch([server.url("/flaky.png"), server.url("/flaky.png?again")], proto.options)
            #expect(flaky.transfers.map(\.status) == [503, 200])

            #expect(server.allRequests.allSatisfy { $0.version == proto.recordedVersion })
            #expect(Set(server.negotiatedProtocols) == [proto.alpn])
        }
    }

    @Test(arguments: CurlProtocol.allCases)
    func truncatedBodyIsIncomplete(_ proto: CurlProtocol) async throws {
        try await withHTTPSServer { server in
            let png = TestImages.png(width: 16, height: 16)
            let half = Array(png.prefix(png.count / 2))
            server.route("/t.png", .truncated(bytes: half, declaredLength: png.count))
            let outcome = try await Curl.fetch(server.url("/t.png"), proto.options)
            // 18: the connection closed early; 92: the stream was reset (INTERNAL_ERROR).
            #expect(outcome.exitCode == (proto == .http2 ? 92 : 18), "curl must notice the missing bytes: \(outcome.stderr)")
            #expect(outcome.transfer.body == half)
            #expect(server.requestCount("/t.png") == 1)
        }
    }

    @Test(arguments: CurlProtocol.allCases)
    func resetGivesNoAnswer(_ proto: CurlProtocol) async throws {
        try await withHTTPSServer { server in
            server.route("/r.png", .reset)
            server.route("/ok.png", .image(bytes: TestImages.png(), contentType: "image/png"))
            let outcome = try await Curl.fetch(server.url("/r.png"), proto.options)
            #expect(outcome.exitCode != 0)
            #expect(outcome.transfer.body.isEmpty)
            switch proto {
            case .http2:
                // RST_STREAM, not a closed connection.
                #expect(outcome.stderr.contains("INTERNAL_ERROR"), "\(outcome.stderr)")
            case .http1:
                // A TCP RST, with no TLS close_notify before it.
                #expect(outcome.stderr.contains("reset by peer"), "\(outcome.stderr)")
            }
            // The server is fine afterwards.
            let after = try await Curl.fetch(server.url("/ok.png"), proto.options)
            #expect(after.transfer.status == 200)
        }
    }

    /// Over HTTP/2 a reset or truncated stream leaves the connection's other streams alone.
    @Test func aResetStreamDoesNotDisturbItsNeighbours() async throws {
        try await withHTTPSServer { server in
            let png = TestImages.png()
            server.route("/slow.png", .image(bytes: png, contentType: "image/png", delay: .milliseconds(300)))
            server.route("/r.png", .reset)
            server.route("/t.png", .truncated(bytes: Array(png.prefix(10)), declaredLength: png.count))
            let outcome = try await Curl.fetch(
                [server.url("/slow.png"), server.url("/r.png"), server.url("/t.png"), server.url("/slow.png?2")],
                CurlProtocol.http2.options + ["--parallel", "--parallel-max", "10"])
            #expect(outcome.transfers[0].status == 200)
            #expect(outcome.transfers[0].body == png)
            #expect(outcome.transfers[3].body == png)
            #expect(outcome.transfers[1].body.isEmpty)
            // What curl keeps of a stream reset mid-body varies (the 10 bytes, or none); never all of it.
            #expect(outcome.transfers[2].body.count <= 10)
            #expect(server.totalConnections == 1)
        }
    }

    @Test func manyStreamsShareOneConnection() async throws {
        try await withHTTPSServer { server in
            server.route("/x.png", .image(bytes: TestImages.png(), contentType: "image/png", delay: .milliseconds(500)))
            let urls = (0..<30).map { server.url("/x.png?n=\($0)") }
            let outcome = try await Curl.fetch(urls, CurlProtocol.http2.options + ["--parallel", "--parallel-max", "30"])
            #expect(outcome.exitCode == 0, "\(outcome.stderr)")
            #expect(outcome.transfers.allSatisfy { $0.status == 200 && $0.httpVersion == "2" })
            #expect(server.requestCount("/x.png") == 30)
            #expect(server.totalConnections == 1)
            #expect(server.maxConcurrentStreamsOnOneConnection > 8)
            #expect(server.maxConcurrentRequests >= server.maxConcurrentStreamsOnOneConnection)
            #expect(Set(server.allRequests.map(\.connectionID)).count == 1)

            server.resetCounters()
            #expect(server.maxConcurrentStreamsOnOneConnection == 0)
            #expect(server.negotiatedProtocols.isEmpty)
        }
    }

    @Test func http1CarriesOneRequestAtATimePerConnection() async throws {
        try await withHTTPSServer { server in
            server.route("/x.png", .image(bytes: TestImages.png(), contentType: "image/png", delay: .milliseconds(200)))
            let urls = (0..<4).map { server.url("/x.png?n=\($0)") }
            let outcome = try await Curl.fetch(urls, CurlProtocol.http1.options + ["--parallel"])
            #expect(outcome.transfers.allSatisfy { $0.status == 200 && $0.httpVersion == "1.1" })
            #expect(server.maxConcurrentStreamsOnOneConnection == 1)
            #expect(server.maxConcurrentConnections >= 2)
            #expect(Set(server.negotiatedProtocols) == ["http/1.1"])
        }
    }

    @Test(arguments: [TestTLSIdentity.expired, .wrongHost, .untrusted])
    func aRejectedCertificateJustClosesTheConnection(_ identity: TestTLSIdentity) async throws {
        try await withHTTPSServer(identity) { server in
            server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
            for host in ["127.0.0.1", "localhost"] {
                let url = "https://\(host):\(server.port)/a.png"
                let rejected = try await Curl.fetch(url, CurlProtocol.http2.options)
                #expect(rejected.exitCode == 60, "\(identity.name) at \(host): \(rejected.stderr)")
                #expect(rejected.transfer.status == 0)
            }
            #expect(server.totalRequests == 0)
            if identity != .wrongHost {
                #expect(server.negotiatedProtocols.isEmpty, "the handshake failed")
            }
            // (curl checks the host name only after the handshake, which the server saw succeed.)

            // Nothing broke: a client that does not check the certificate is served.
            let insecure = try await Curl.fetch(server.url("/a.png"), ["--insecure", "--http2"])
            #expect(insecure.transfer.status == 200)
            #expect(server.negotiatedProtocols.last == "h2")
        }
    }

    /// The broken identities are broken only in their one way.
    @Test func brokenIdentitiesAreOtherwiseSound() async throws {
        try await withHTTPSServer(.wrongHost) { server in
            server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
            let outcome = try await Curl.fetch(
                "https://other.example:\(server.port)/a.png",
                CurlProtocol.http2.options + ["--resolve", "other.example:\(server.port):127.0.0.1"])
            #expect(outcome.transfer.status == 200, "\(outcome.stderr)")
        }
        try await withHTTPSServer(.untrusted) { server in
            server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
            let outcome = try await Curl.fetch(server.url("/a.png"), ["--cacert", TestCertificates.untrustedCAPath])
            #expect(outcome.transfer.status == 200, "\(outcome.stderr)")
        }
    }

    @Test func certificateFixturesLoad() throws {
        for identity in [TestTLSIdentity.valid, .expired, .wrongHost, .untrusted] {
            #expect(FileManager.default.fileExists(atPath: identity.certificatePath))
            #expect(try identity.certificateChain().count == 1)
            _ = try identity.privateKey()
        }
        #expect(try TestCertificates.caCertificates().count == 1)
        #expect(FileManager.default.fileExists(atPath: TestCertificates.untrustedCAPath))
        #expect(TestCertificates.caPath.hasSuffix("/fixtures/tls/ca.pem"))
    }

    @Test func shutdownClosesOpenHTTP2Connections() async throws {
        let server = try await TestImageServer.start(tls: .valid)
        server.route("/forever", .drip(bytes: [UInt8](repeating: 0, count: 1_000), interval: .seconds(1)))
        let running = Task { try await Curl.fetch(server.url("/forever"), CurlProtocol.http2.options) }
        #expect(try await serverEventually { server.totalRequests == 1 })
        try await server.shutdown()
        let outcome = try await running.value
        #expect(outcome.exitCode != 0)
        #expect(outcome.transfer.body.count < 1_000)
    }
}
