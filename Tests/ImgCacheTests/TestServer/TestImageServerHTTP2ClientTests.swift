import AsyncHTTPClient
import ImgCacheTestServer
import NIOCore
import NIOPosix
import NIOSSL
import Testing

/// The HTTPS server with AsyncHTTPClient, the client the image downloader uses: unlike curl, which
/// may start its streams before the server's SETTINGS frame arrives, it waits for the frame, so the
/// announced SETTINGS_MAX_CONCURRENT_STREAMS is observable.
@Suite("TestImageServer with AsyncHTTPClient")
struct TestImageServerHTTP2ClientTests {
    private static func makeClient() throws -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try TestCertificates.caCertificates())
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = .automatic
        // NIO's POSIX event loops, as the transport uses: on Apple platforms the default group is
        // Network.framework's, which does not take NIOSSL's TLS configuration.
        return HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
    }

    /// Fetches every URL at once; returns each response's status and HTTP major version.
    private static func fetchAll(_ client: HTTPClient, _ urls: [String]) async throws -> [(status: Int, major: Int)] {
        try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for url in urls {
                group.addTask {
                    let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(20))
                    _ = try await response.body.collect(upTo: 1 << 20)
                    return (Int(response.status.code), response.version.major)
                }
            }
            var results: [(status: Int, major: Int)] = []
            for try await result in group { results.append(result) }
            return results
        }
    }

    private static func withServerAndClient(
        maxConcurrentStreams: Int = 128, _ body: (TestImageServer, HTTPClient) async throws -> Void
    ) async throws {
        let server = try await TestImageServer.start(tls: .valid, maxConcurrentStreams: maxConcurrentStreams)
        let client: HTTPClient
        do {
            client = try makeClient()
        } catch {
            try await server.shutdown()
            throw error
        }
        do {
            try await body(server, client)
        } catch {
            try? await client.shutdown()
            try await server.shutdown()
            throw error
        }
        try await client.shutdown()
        try await server.shutdown()
    }

    @Test func manyRequestsAreStreamsOfOneConnection() async throws {
        try await Self.withServerAndClient { server, client in
            server.route("/x.png", .image(bytes: TestImages.png(), contentType: "image/png", delay: .milliseconds(500)))
            let results = try await Self.fetchAll(client, (0..<30).map { server.url("/x.png?n=\($0)") })
            #expect(results.allSatisfy { $0.status == 200 && $0.major == 2 })
            #expect(server.requestCount("/x.png") == 30)
            #expect(server.maxConcurrentStreamsOnOneConnection > 8)
            #expect(server.negotiatedProtocols.allSatisfy { $0 == "h2" })
            #expect(server.allRequests.allSatisfy { $0.version == "HTTP/2" })
        }
    }

    @Test func theAnnouncedStreamLimitIsHonoured() async throws {
        try await Self.withServerAndClient(maxConcurrentStreams: 3) { server, client in
            server.route("/x.png", .image(bytes: TestImages.png(), contentType: "image/png", delay: .milliseconds(100)))
            let results = try await Self.fetchAll(client, (0..<12).map { server.url("/x.png?n=\($0)") })
            #expect(results.allSatisfy { $0.status == 200 && $0.major == 2 })
            #expect(server.maxConcurrentStreamsOnOneConnection <= 3)
            #expect(server.maxConcurrentStreamsOnOneConnection >= 2)
        }
    }

    /// A client that gives up resets its stream; the drip stops and the request stops counting as
    /// in flight, while the connection stays open for the next request.
    @Test func aDripStopsWhenTheClientResetsItsStream() async throws {
        try await Self.withServerAndClient { server, client in
            server.route("/slow.png", .drip(bytes: [UInt8](repeating: 7, count: 1_000), interval: .milliseconds(200)))
            server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
            let url = server.url("/slow.png")
            let fetch = Task {
                let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
                _ = try await response.body.collect(upTo: 1 << 20)
            }
            #expect(try await serverEventually { server.requestCount("/slow.png") == 1 })
            fetch.cancel()
            await #expect(throws: (any Error).self) { try await fetch.value }
            // After a reset the maximum is what is in flight now.
            #expect(try await serverEventually { server.resetCounters(); return server.maxConcurrentRequests == 0 })
            #expect(server.openConnections == 1)

            let results = try await Self.fetchAll(client, [server.url("/a.png")])
            #expect(results.map(\.status) == [200])
            #expect(server.totalConnections == 0, "the same connection served it")
        }
    }
}
