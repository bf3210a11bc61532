import Foundation
import ImgCacheHTTPClient
import ImgCacheTestServer
import ImgCacheURLSession
import Testing
@testable import ImgCache
@testable import ImgCacheURLs
@testable import ImgCacheStore

/// What a server writes in its header fields is checked before anything of it is kept or sent
/// back: control characters, trailers posing as a status line, validators of any length.
@Suite("Response headers from untrusted servers")
struct ResponseHeaderTests {
    /// A whole HTTP/1.1 response with `fields` in its head and `body`, as bytes.
    static func response(status: String = "200 OK", fields: [String], body: [UInt8]) -> [UInt8] {
        let head = "HTTP/1.1 \(status)\r\n" + fields.map { $0 + "\r\n" }.joined()
            + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + body
    }

    @Test("a header field holding a bare CR or an escape sequence is refused, not retried, and nothing is cached",
          arguments: CommandLineTransport.allCases)
    func controlCharactersRefused(client: CommandLineTransport) async throws {
        let fixture = try await DownloadFixture.make(client: client)
        let png = TestImages.png()
        fixture.server.route("/etag-cr.png", .raw(Self.response(fields: ["Content-Type: image/png", "ETag: \"v1\"\rX-Injected: yes"], body: png)))
        fixture.server.route("/type-esc.png", .raw(Self.response(fields: ["Content-Type: image/png\u{1b}]0;owned\u{07}"], body: png)))
        for path in ["/etag-cr.png", "/type-esc.png"] {
            let outcome = await fixture.fetch(path)
            #expect(outcome.status == .failed, "\(path)")
            guard case .transport(.invalidResponse)? = outcome.failure?.kind else {
                Issue.record("\(path): \(outcome.failure?.description ?? "no failure")")
                continue
            }
            if client != .asyncHTTPClient {
                #expect(outcome.failure?.description == "invalid response: a response header holds a control character")
            }
            #expect(fixture.server.requestCount(path) == 1, "\(path) is not asked for again")
            #expect(!fixture.isCached(path), "\(path)")
        }
        try await fixture.close()
    }

    @Test("a validator a request cannot carry is not sent back: the image is fetched whole",
          arguments: CommandLineTransport.allCases)
    func unsendableValidatorNotReplayed(client: CommandLineTransport) async throws {
        let fixture = try await DownloadFixture.make(cache: CachePolicy(maxAge: 0), client: client)
        let png = TestImages.png()
        fixture.server.route("/a.png", .image(bytes: png, contentType: "image/png", etag: "\"v2\""))
        // As an index written by another program (or an older imgcache) may hold it.
        let url = BrowserURL(fixture.server.url("/a.png"))!
        _ = try fixture.store.store(png, for: url, contentType: "image/png", etag: "\"v1\"\rX-Injected: yes", lastModified: nil)

        let outcome = await fixture.fetch("/a.png")
        #expect(outcome.status == .downloaded, "\(outcome.failure?.description ?? "")")
        let request = try #require(fixture.server.requests("/a.png").first)
        #expect(request.header("If-None-Match") == nil)
        #expect(request.header("X-Injected") == nil)
        #expect(fixture.store.contents(for: url)?.image.etag == "\"v2\"")
        try await fixture.close()
    }

    @Test("a chunked body's trailer cannot change the status or the fields", arguments: CommandLineTransport.allCases)
    func trailersIgnored(client: CommandLineTransport) async throws {
        let fixture = try await DownloadFixture.make(client: client)
        let body = "5\r\nhello\r\n0\r\nHTTP/1.1: 200 OK\r\nLocation: http://127.0.0.1:1/x.png\r\n\r\n"
        let head = "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        fixture.server.route("/gone.png", .raw(Array((head + body).utf8)))
        let outcome = await fixture.fetch("/gone.png")
        if client == .asyncHTTPClient {
            // NIO's parser refuses the trailer's name (not a token) and with it the response.
            guard case .transport(.invalidResponse)? = outcome.failure?.kind else {
                Issue.record("\(outcome.failure?.description ?? "no failure")")
                return
            }
        } else {
            #expect(outcome.failure?.kind == .httpStatus(404))
        }
        #expect(!fixture.isCached("/gone.png"))
        try await fixture.close()
    }

    @Test("validators and types longer than any real one are not kept", arguments: CommandLineTransport.allCases)
    func longValidatorsNotStored(client: CommandLineTransport) async throws {
        let fixture = try await DownloadFixture.make(client: client)
        let png = TestImages.png()
        let longETag = "\"" + String(repeating: "e", count: 2_000) + "\""
        fixture.server.route("/long.png", .image(bytes: png, contentType: "image/png; x=" + String(repeating: "t", count: 1_000),
                                                 etag: longETag, lastModified: "Tue, 01 Dec 2026 10:00:00 GMT; " + String(repeating: "x", count: 100)))
        fixture.server.route("/usual.png", .image(bytes: png, contentType: "image/png", etag: "\"abc\"",
                                                  lastModified: "Tue, 01 Dec 2026 10:00:00 GMT"))
        #expect(await fixture.fetch("/long.png").status == .downloaded)
        #expect(await fixture.fetch("/usual.png").status == .downloaded)
        let long = try #require(fixture.store.contents(for: BrowserURL(fixture.server.url("/long.png"))!))
        #expect(long.image.etag == nil)
        #expect(long.image.lastModified == nil)
        #expect(long.image.contentType == nil)
        let usual = try #require(fixture.store.contents(for: BrowserURL(fixture.server.url("/usual.png"))!))
        #expect(usual.image.etag == "\"abc\"")
        #expect(usual.image.lastModified == "Tue, 01 Dec 2026 10:00:00 GMT")
        #expect(usual.image.contentType == "image/png")
        try await fixture.close()
    }

    @Test("a user agent that would start another header is refused before anything is sent",
          arguments: CommandLineTransport.allCases)
    func requestHeaderChecked(client: CommandLineTransport) async throws {
        let fixture = try await DownloadFixture.make(policy: DownloadPolicy(retryDelay: .milliseconds(20), userAgent: "imgcache\r\nX-Evil: 1"),
                                                     client: client)
        fixture.server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        let outcome = await fixture.fetch("/a.png")
        #expect(outcome.status == .failed)
        guard case .transport(.invalidRequest)? = outcome.failure?.kind else {
            Issue.record("\(outcome.failure?.description ?? "no failure")")
            return
        }
        #expect(fixture.server.totalRequests == 0)
        try await fixture.close()
    }

    @Test("the URLSession transport refuses such a user agent as the others do")
    func requestHeaderCheckedOverURLSession() async throws {
        let server = try await TestImageServer.start()
        server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        let transport = URLSessionTransport()
        var request = TransportRequest.get(server.url("/a.png"))
        request.headers = [("User-Agent", "imgcache\r\nX-Evil: 1")]
        let error = await transportError { try await transport.send(request) }
        #expect(error as? TransportError == .invalidRequest("the User-Agent header holds a character a header cannot hold"))
        #expect(server.totalRequests == 0)
        await transport.shutdown()
        try await server.shutdown()
    }
}
