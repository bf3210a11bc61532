@testable import ImgCache
import ImgCacheTestServer
import Testing

/// What comes back when the server answers: bodies, headers and statuses, unchanged.
@Suite("Transport responses")
struct TransportResponseTests {
    @Test(arguments: TransportKind.allCases)
    func imageBytesAndHeadersComeBack(kind: TransportKind) async throws {
        try await withTransport(kind) { server, transport in
            let png = TestImages.png(width: 3, height: 2)
            server.route("/a.png", .image(bytes: png, contentType: "image/png", etag: "\"v1\""))
            let response = try await transport.send(.get(server.url("/a.png")))
            #expect(response.status == 200)
            #expect(response.body == png)
            #expect(response.header("content-type") == "image/png")
            #expect(response.header("ETag") == "\"v1\"")
            #expect(response.header("Content-Length") == String(png.count))
        }
    }

    @Test(arguments: TransportKind.allCases, [404, 500])
    func errorStatusesAreResponsesNotErrors(kind: TransportKind, status: Int) async throws {
        try await withTransport(kind) { server, transport in
            server.route("/e.png", .status(status, body: Array("nope".utf8)))
            let response = try await transport.send(.get(server.url("/e.png")))
            #expect(response.status == status)
            #expect(response.body == Array("nope".utf8))
        }
    }

    @Test(arguments: TransportKind.allCases)
    func redirectIsReturnedNotFollowed(kind: TransportKind) async throws {
        try await withTransport(kind) { server, transport in
            server.route("/old.png", .redirect(to: "/new.png"))
            server.route("/new.png", .image(bytes: TestImages.gif(), contentType: "image/gif"))
            let response = try await transport.send(.get(server.url("/old.png")))
            #expect(response.status == 302)
            #expect(response.header("Location") == "/new.png")
            #expect(response.body.isEmpty)
            #expect(server.requestCount("/new.png") == 0)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func conditionalRequestGets304AndHeadersReachTheServer(kind: TransportKind) async throws {
        try await withTransport(kind) { server, transport in
            server.route("/c.jpg", .image(bytes: TestImages.jpeg(), contentType: "image/jpeg", etag: "\"abc\""))
            let response = try await transport.send(.get(
                server.url("/c.jpg"),
                headers: [(name: "User-Agent", value: "imgcache-test/1"), (name: "If-None-Match", value: "\"abc\"")]))
            #expect(response.status == 304)
            #expect(response.body.isEmpty)
            #expect(response.header("ETag") == "\"abc\"")
            let seen = try #require(server.requests("/c.jpg").first)
            #expect(seen.header("User-Agent") == "imgcache-test/1")
            #expect(seen.header("If-None-Match") == "\"abc\"")
        }
    }

    @Test(arguments: TransportKind.allCases)
    func fiftyConcurrentSendsAllSucceed(kind: TransportKind) async throws {
        try await withTransport(kind) { server, transport in
            let images = (0..<50).map { TestImages.png(width: $0 + 1, height: 1) }
            for (index, bytes) in images.enumerated() {
                server.route(
                    "/many/\(index).png", .image(bytes: bytes, contentType: "image/png", delay: .milliseconds(20)))
            }
            let results = try await withThrowingTaskGroup(of: (Int, TransportResponse).self) { group in
                for index in images.indices {
                    group.addTask {
                        (index, try await transport.send(.get(server.url("/many/\(index).png"))))
                    }
                }
                var results: [Int: TransportResponse] = [:]
                for try await (index, response) in group { results[index] = response }
                return results
            }
            #expect(results.count == 50)
            for (index, bytes) in images.enumerated() {
                #expect(results[index]?.status == 200)
                #expect(results[index]?.body == bytes)
            }
            #expect(server.maxConcurrentRequests > 1)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func urlThatIsNotHTTPIsAnInvalidRequest(kind: TransportKind) async throws {
        try await withTransport(kind) { _, transport in
            let error = await transportError { try await transport.send(.get("ftp://example.invalid/a.png")) }
            guard case .invalidRequest = error as? TransportError else {
                Issue.record("expected .invalidRequest, got \(String(describing: error))")
                return
            }
        }
    }
}

/// Which HTTP version each response reports, for the downloader's per-host limits.
@Suite("Transport HTTP versions")
struct TransportHTTPVersionTests {
    @Test("over plain HTTP every transport reports HTTP/1.1 (URLSession where the platform collects metrics)",
          arguments: TransportKind.allCases)
    func plainHTTPIsHTTP1(kind: TransportKind) async throws {
        try await withTransport(kind) { server, transport in
            server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
            let response = try await transport.send(.get(server.url("/a.png")))
            switch kind {
            case .asyncHTTPClient:
                #expect(response.httpVersion == .http1)
            #if os(Linux)
            case .curl:
                #expect(response.httpVersion == .http1)
            #endif
            case .urlSession:
                // FoundationNetworking on Linux does not always deliver task metrics; Apple's
                // URLSession does. Either way it must never claim a multiplexed protocol here.
                #expect(response.httpVersion == .http1 || response.httpVersion == nil)
            }
        }
    }

    @Test("AsyncHTTPClient reports HTTP/2 when ALPN chose h2, and HTTP/1.1 when the server offered only that",
          arguments: [true, false])
    func tlsVersions(http2: Bool) async throws {
        let server = try await TestImageServer.start(tls: .valid, http2: http2)
        server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        let transport = try Wire.https2.makeTransport()
        let response = try await transport.send(.get(server.url("/a.png")))
        #expect(response.httpVersion == (http2 ? .http2 : .http1))
        await transport.shutdown()
        try await server.shutdown()
    }

    @Test func protocolNamesMapToVersions() {
        #expect(HTTPVersion(protocolName: "h2") == .http2)
        #expect(HTTPVersion(protocolName: "http/1.1") == .http1)
        #expect(HTTPVersion(protocolName: "HTTP/1.0") == .http1)
        #expect(HTTPVersion(protocolName: "h3") == .http3)
        #expect(HTTPVersion(protocolName: "h3-29") == .http3)
        #expect(HTTPVersion(protocolName: "spdy/3") == nil)
        #expect(HTTPVersion.http2.multiplexes && HTTPVersion.http3.multiplexes && !HTTPVersion.http1.multiplexes)
    }
}
