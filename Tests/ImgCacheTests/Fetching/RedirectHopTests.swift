import Foundation
import ImgCacheHTTPClient
import ImgCacheTestServer
import Testing
@testable import ImgCache
@testable import ImgCacheURLs

/// Every redirect hop is held to the policy the first request was: the allow-list, and the
/// per-origin limit of the origin it leads to.
@Suite("Redirect hops")
struct RedirectHopTests {
    @Test("a redirect from an allowed host to one off the allow-list is not followed", arguments: CommandLineTransport.allCases)
    func redirectOffTheAllowList(client: CommandLineTransport) async throws {
        let fixture = try await DownloadFixture.make(policy: DownloadPolicy(retryDelay: .milliseconds(20), allowedHosts: ["127.0.0.1"]),
                                                     client: client)
        let server = fixture.server
        server.route("/secret.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        server.route("/r.png", .redirect(to: "http://localhost:\(server.port)/secret.png"))
        server.route("/same-host.png", .redirect(to: "/secret.png"))

        let refused = await fixture.fetch("/r.png")
        #expect(refused.status == .failed)
        #expect(refused.failure?.kind == .redirectToHostNotAllowed(status: 302, host: "localhost"))
        #expect(refused.failure?.description == "redirect to host localhost refused: not on the allow-list")
        #expect(server.requestCount("/secret.png") == 0, "nothing was asked of the host off the list")
        #expect(!fixture.isCached("/r.png"))

        // A redirect that stays on an allowed host is followed as before.
        let followed = await fixture.fetch("/same-host.png")
        #expect(followed.status == .downloaded)
        #expect(server.requestCount("/secret.png") == 1)
        try await fixture.close()
    }

    @Test("many origins redirecting to one host send it no more than its per-host limit at once",
          arguments: CommandLineTransport.allCases)
    func redirectsCountAgainstTheTargetOrigin(client: CommandLineTransport) async throws {
        let perHost = 2
        let fixture = try await DownloadFixture.make(
            policy: DownloadPolicy(perHostConcurrency: perHost, timeout: .seconds(30), retryDelay: .milliseconds(20)), client: client)
        let target = fixture.server
        // Slow enough that, without the target's limit, the redirected requests would overlap there.
        for index in 0..<8 {
            target.route("/t\(index).png", .image(bytes: TestImages.png(byteCount: 500 + index), contentType: "image/png",
                                                  delay: .milliseconds(300)))
        }
        var origins: [TestImageServer] = []
        var urls: [BrowserURL] = []
        for originIndex in 0..<4 {
            let origin = try await TestImageServer.start()
            for image in 0..<2 {
                let index = originIndex * 2 + image
                origin.route("/r\(index).png", .redirect(to: target.url("/t\(index).png")))
                urls.append(BrowserURL(origin.url("/r\(index).png"))!)
            }
            origins.append(origin)
        }

        let outcomes = await fixture.downloader.fetchAll(urls)
        #expect(outcomes.allSatisfy { $0.status == .downloaded }, "\(outcomes.map { $0.failure?.description ?? "ok" })")
        #expect(target.totalRequests == 8)
        #expect(target.maxConcurrentRequests <= perHost, "the target saw \(target.maxConcurrentRequests) requests at once")
        #expect(fixture.downloader.outstandingCount == 0)
        for origin in origins { try await origin.shutdown() }
        try await fixture.close()
    }
}
