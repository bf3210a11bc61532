import Foundation
import ImgCacheTestServer
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A URLSession with no cache, so conditional headers and answers pass through untouched.
private func makeSession(timeout: TimeInterval = 10) -> URLSession {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.timeoutIntervalForRequest = timeout
    configuration.httpMaximumConnectionsPerHost = 8
    return URLSession(configuration: configuration)
}

private func fetch(
    _ session: URLSession, _ url: String, headers: [String: String] = [:]
) async throws -> (data: Data, response: HTTPURLResponse) {
    var request = URLRequest(url: URL(string: url)!)
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let (data, response) = try await session.data(for: request)
    return (data, response as! HTTPURLResponse)
}

/// Starts a server (plain HTTP unless `tls` is given), runs `body`, and always shuts the server down.
func withServer(
    tls: TestTLSIdentity? = nil, http2: Bool = true, maxConcurrentStreams: Int = 128,
    _ body: (TestImageServer) async throws -> Void
) async throws {
    let server = try await TestImageServer.start(tls: tls, http2: http2, maxConcurrentStreams: maxConcurrentStreams)
    do {
        try await body(server)
    } catch {
        try await server.shutdown()
        throw error
    }
    try await server.shutdown()
}

@Suite("TestImageServer")
struct TestImageServerTests {
    @Test func servesImageBytesAndContentType() async throws {
        try await withServer { server in
            #expect(server.port > 0)
            #expect(server.baseURL == "http://127.0.0.1:\(server.port)")
            #expect(server.url("a.png") == server.url("/a.png"))
            let png = TestImages.png(width: 3, height: 2)
            server.route("/a.png", .image(bytes: png, contentType: "image/png", etag: "\"v1\""))
            let session = makeSession()
            defer { session.invalidateAndCancel() }

            let (data, response) = try await fetch(session, server.url("/a.png"), headers: ["User-Agent": "imgcache-test/1"])
            #expect(response.statusCode == 200)
            #expect(Array(data) == png)
            #expect(response.value(forHTTPHeaderField: "Content-Type") == "image/png")
            #expect(response.value(forHTTPHeaderField: "Content-Length") == String(png.count))
            #expect(response.value(forHTTPHeaderField: "ETag") == "\"v1\"")

            #expect(server.requestCount("/a.png") == 1)
            #expect(server.totalRequests == 1)
            let recorded = try #require(server.requests("/a.png").first)
            #expect(recorded.method == "GET")
            #expect(recorded.path == "/a.png")
            #expect(recorded.header("user-agent") == "imgcache-test/1")
        }
    }

    @Test func conditionalRequestsGet304() async throws {
        try await withServer { server in
            let lastModified = "Wed, 21 Oct 2015 07:28:00 GMT"
            let png = TestImages.png()
            server.route("/c.png", .image(bytes: png, contentType: "image/png", etag: "\"abc\"", lastModified: lastModified))
            let port = server.port
            let answers = try await runBlocking {
                let c = try RawHTTPConnection(port: port)
                var out: [RawHTTPConnection.Response] = []
                for headers in [
                    ["If-None-Match: \"abc\""],
                    ["If-None-Match: \"zzz\", W/\"abc\""],
                    ["If-None-Match: *"],
                    ["If-None-Match: \"other\""],
                    ["If-None-Match: \"other\"", "If-Modified-Since: \(lastModified)"],  // INM wins
                    ["If-Modified-Since: \(lastModified)"],
                    ["If-Modified-Since: Thu, 22 Oct 2015 00:00:00 GMT"],
                    ["If-Modified-Since: Tue, 20 Oct 2015 00:00:00 GMT"],
                    [],
                ] {
                    try c.get("/c.png", headers)
                    out.append(try c.readResponse())
                }
                return out.map { ($0.status, $0.body.count, $0.header("ETag"), $0.header("Last-Modified")) }
            }
            #expect(answers.map(\.0) == [304, 304, 304, 200, 200, 304, 304, 200, 200])
            for answer in answers where answer.0 == 304 {
                #expect(answer.1 == 0)
                #expect(answer.2 == "\"abc\"")
                #expect(answer.3 == lastModified)
            }
            #expect(server.requestCount("/c.png") == 9)
            #expect(server.requests("/c.png")[0].header("If-None-Match") == "\"abc\"")

            // Through URLSession as well.
            let session = makeSession()
            defer { session.invalidateAndCancel() }
            let (data, response) = try await fetch(session, server.url("/c.png"), headers: ["If-None-Match": "\"abc\""])
            #expect(response.statusCode == 304)
            #expect(data.isEmpty)
        }
    }

    @Test func statusesAndBodies() async throws {
        try await withServer { server in
            let html = Array("<html><body>not an image</body></html>".utf8)
            server.route("/error.png", .status(500, body: Array("boom".utf8)))
            server.route("/busy.png", .status(503))
            server.route("/page.png", .status(200, body: html, contentType: "text/html; charset=utf-8"))
            let session = makeSession()
            defer { session.invalidateAndCancel() }

            let missing = try await fetch(session, server.url("/nothing-here.png"))
            #expect(missing.response.statusCode == 404)
            #expect(server.requestCount("/nothing-here.png") == 1)

            let error = try await fetch(session, server.url("/error.png"))
            #expect(error.response.statusCode == 500)
            #expect(String(decoding: error.data, as: UTF8.self) == "boom")
            #expect(error.response.value(forHTTPHeaderField: "Content-Type") == "text/plain")

            let busy = try await fetch(session, server.url("/busy.png"))
            #expect(busy.response.statusCode == 503)
            #expect(busy.data.isEmpty)

            let page = try await fetch(session, server.url("/page.png"))
            #expect(page.response.statusCode == 200)
            #expect(Array(page.data) == html)
            #expect(page.response.value(forHTTPHeaderField: "Content-Type") == "text/html; charset=utf-8")
        }
    }

    @Test func otherMethodsGet405() async throws {
        try await withServer { server in
            server.route("/a.png", .image(bytes: TestImages.gif(), contentType: "image/gif"))
            let port = server.port
            let (post, head) = try await runBlocking {
                let c = try RawHTTPConnection(port: port)
                try c.get("/a.png", method: "POST")
                let post = try c.readResponse()
                try c.get("/a.png", method: "HEAD")
                let head = try c.readResponse(noBody: true)
                // The connection is still in step: a GET on it works.
                try c.get("/a.png")
                #expect(try c.readResponse().status == 200)
                return (post.status, head.status)
            }
            #expect(post == 405)
            #expect(head == 405)
            #expect(server.requests("/a.png").map(\.method) == ["POST", "HEAD", "GET"])
        }
    }

    @Test func truncatedBodyIsShort() async throws {
        try await withServer { server in
            let png = TestImages.png(width: 16, height: 16)
            let half = Array(png.prefix(png.count / 2))
            server.route("/t.png", .truncated(bytes: half, declaredLength: png.count))
            let port = server.port

            let raw = try await runBlocking {
                let c = try RawHTTPConnection(port: port)
                try c.get("/t.png")
                return try c.readResponse()
            }
            #expect(raw.status == 200)
            #expect(raw.header("Content-Length") == String(png.count))
            #expect(raw.header("Content-Type") == "image/png")
            #expect(raw.body == half)
            #expect(!raw.complete)

            let session = makeSession()
            defer { session.invalidateAndCancel() }
            do {
                let (data, _) = try await fetch(session, server.url("/t.png"))
                #expect(data.count < png.count, "a client must not see the whole body")
            } catch {
                // An error is the expected outcome for most clients.
            }
            #expect(server.requestCount("/t.png") == 2)
        }
    }

    @Test func resetClosesWithRST() async throws {
        try await withServer { server in
            server.route("/r.png", .reset)
            let port = server.port
            let outcome = try await runBlocking {
                let c = try RawHTTPConnection(port: port)
                try c.get("/r.png")
                return c.readUntilClosed()
            }
            #expect(outcome == .failure(.posix(ECONNRESET)))

            let session = makeSession()
            defer { session.invalidateAndCancel() }
            await #expect(throws: (any Error).self) {
                _ = try await fetch(session, server.url("/r.png"))
            }
            #expect(server.requestCount("/r.png") >= 2)
        }
    }

    @Test func redirectChainIsFollowed() async throws {
        try await withServer { server in
            let jpeg = TestImages.jpeg()
            server.route("/start", .redirect(to: "/middle", status: 301))
            server.route("/middle", .redirect(to: server.url("/final.jpg")))
            server.route("/final.jpg", .image(bytes: jpeg, contentType: "image/jpeg"))
            server.route("/loop-a", .redirect(to: "/loop-b"))
            server.route("/loop-b", .redirect(to: "/loop-a"))
            let port = server.port

            let (first, loop) = try await runBlocking {
                let c = try RawHTTPConnection(port: port)
                try c.get("/start")
                let first = try c.readResponse()
                try c.get("/loop-b")
                let loop = try c.readResponse()
                return (first, loop)
            }
            #expect(first.status == 301)
            #expect(first.header("Location") == "/middle")
            #expect(first.body.isEmpty)
            #expect(loop.status == 302)
            #expect(loop.header("Location") == "/loop-a")

            let session = makeSession()
            defer { session.invalidateAndCancel() }
            let (data, response) = try await fetch(session, server.url("/start"))
            #expect(response.statusCode == 200)
            #expect(Array(data) == jpeg)
            #expect(response.url?.path == "/final.jpg")
            #expect(server.requestCount("/start") == 2)
            #expect(server.requestCount("/middle") == 1)
            #expect(server.requestCount("/final.jpg") == 1)
        }
    }

    @Test func delaysAreHonoured() async throws {
        try await withServer { server in
            server.route("/slow.png", .image(bytes: TestImages.png(), contentType: "image/png", delay: .milliseconds(300)))
            server.route("/slow-error", .status(503, delay: .milliseconds(200)))
            let session = makeSession()
            defer { session.invalidateAndCancel() }
            let clock = ContinuousClock()

            let start = clock.now
            let (data, _) = try await fetch(session, server.url("/slow.png"))
            #expect(clock.now - start >= .milliseconds(300))
            #expect(Array(data) == TestImages.png())

            let start2 = clock.now
            let (_, response) = try await fetch(session, server.url("/slow-error"))
            #expect(clock.now - start2 >= .milliseconds(200))
            #expect(response.statusCode == 503)
        }
    }

    @Test func dripSendsSlowly() async throws {
        try await withServer { server in
            let bytes = TestImages.png()  // 72 bytes
            server.route("/drip.png", .drip(bytes: bytes, interval: .milliseconds(100)))
            server.route("/fast-drip.png", .drip(bytes: Array(bytes.prefix(5)), interval: .milliseconds(20)))
            server.route("/very-slow.png", .drip(bytes: bytes, interval: .seconds(2)))
            let port = server.port

            // The head and the first bytes arrive long before the rest.
            let first = try await runBlocking {
                let c = try RawHTTPConnection(port: port)
                try c.get("/drip.png")
                return try c.readResponse(bodyLimit: 1)
            }
            #expect(first.status == 200)
            #expect(first.header("Content-Length") == String(bytes.count))
            #expect(first.body == [bytes[0]])

            let session = makeSession()
            defer { session.invalidateAndCancel() }
            let (whole, _) = try await fetch(session, server.url("/fast-drip.png"))
            #expect(Array(whole) == Array(bytes.prefix(5)))

            // A client with a short timeout gives up.
            let impatient = makeSession(timeout: 0.5)
            defer { impatient.invalidateAndCancel() }
            let clock = ContinuousClock()
            let start = clock.now
            await #expect(throws: (any Error).self) {
                _ = try await fetch(impatient, server.url("/very-slow.png"))
            }
            // (no upper bound asserted, but it must have given up well before 72 × 2 s)
            _ = clock.now - start
        }
    }

    @Test func sequenceGivesEachRequestItsTurn() async throws {
        try await withServer { server in
            let png = TestImages.png()
            server.route("/flaky.png", .sequence([.status(500), .status(503), .image(bytes: png, contentType: "image/png")]))
            let session = makeSession()
            defer { session.invalidateAndCancel() }
            var statuses: [Int] = []
            for _ in 0..<5 {
                statuses.append(try await fetch(session, server.url("/flaky.png")).response.statusCode)
            }
            #expect(statuses == [500, 503, 200, 200, 200])
            #expect(server.requestCount("/flaky.png") == 5)

            // Registering anew starts again.
            server.route("/flaky.png", .sequence([.status(404), .image(bytes: png, contentType: "image/png")]))
            #expect(try await fetch(session, server.url("/flaky.png")).response.statusCode == 404)
            #expect(try await fetch(session, server.url("/flaky.png")).response.statusCode == 200)
        }
    }

    @Test func countsConcurrentConnectionsAndRequests() async throws {
        try await withServer { server in
            server.route("/x.png", .image(bytes: TestImages.png(), contentType: "image/png", delay: .milliseconds(400)))
            let session = makeSession()
            defer { session.invalidateAndCancel() }
            let url = server.url("/x.png")
            try await withThrowingTaskGroup(of: Int.self) { group in
                for i in 0..<4 {
                    group.addTask { try await fetch(session, url + "?n=\(i)").response.statusCode }
                }
                for try await status in group {
                    #expect(status == 200)
                }
            }
            #expect(server.requestCount("/x.png") == 4)
            #expect(server.requestCount("/x.png?n=2") == 1)
            #expect(server.totalRequests == 4)
            #expect(server.maxConcurrentConnections >= 2)
            #expect(server.maxConcurrentRequests >= 2)
            #expect(server.maxConcurrentRequests <= 4)

            server.resetCounters()
            #expect(server.totalRequests == 0)
            #expect(server.requestCount("/x.png") == 0)
            #expect(server.maxConcurrentRequests == 0)
            let maxAfterReset = server.maxConcurrentConnections
            #expect(maxAfterReset >= server.openConnections)  // what was open at the reset, not the old 4
        }
    }

    @Test func keepAliveReusesOneConnection() async throws {
        try await withServer { server in
            let gif = TestImages.gif()
            server.route("/k.gif", .image(bytes: gif, contentType: "image/gif"))
            let port = server.port
            let (bodies, closedAfterConnectionClose) = try await runBlocking {
                let c = try RawHTTPConnection(port: port)
                var bodies: [[UInt8]] = []
                for _ in 0..<3 {
                    try c.get("/k.gif")
                    bodies.append(try c.readResponse().body)
                }
                // Pipelined: two requests in one write, answered in order.
                try c.send(
                    "GET /k.gif HTTP/1.1\r\nHost: x\r\n\r\nGET /missing HTTP/1.1\r\nHost: x\r\n\r\n")
                bodies.append(try c.readResponse().body)
                let notFound = try c.readResponse()
                bodies.append(notFound.status == 404 ? [] : [0xFF])
                try c.get("/k.gif", ["Connection: close"])
                let last = try c.readResponse()
                bodies.append(last.body)
                let closed = (try? c.receiveSome()) == []
                return (bodies, closed && last.header("Connection") == "close")
            }
            #expect(bodies == [gif, gif, gif, gif, [], gif])
            #expect(closedAfterConnectionClose)
            #expect(server.totalRequests == 6)
            #expect(server.totalConnections == 1)
            #expect(Set(server.allRequests.map(\.connectionID)).count == 1)
        }
    }

    @Test func shutdownStopsListeningAndIsIdempotent() async throws {
        let server = try await TestImageServer.start()
        server.route("/forever", .drip(bytes: [UInt8](repeating: 0, count: 1_000), interval: .seconds(1)))
        let port = server.port
        // A connection still open (mid-drip) must not hold shutdown up.
        try await runBlocking {
            let c = try RawHTTPConnection(port: port)
            try c.get("/forever")
            _ = try c.readResponse(bodyLimit: 1)
        }
        try await server.shutdown()
        try await server.shutdown()
        // The port refuses; or, when another listener has bound the freed port since (a test running
        // beside this one, or another program), the connection is that listener's: none reaches this
        // server.
        let connectionsBefore = server.totalConnections
        if try await !RawHTTPConnection.isRefused(port: port) {
            try await Task.sleep(for: .milliseconds(200))
            #expect(server.totalConnections == connectionsBefore, "a connection reached the server after its shutdown")
        }
    }
}
