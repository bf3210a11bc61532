#if os(Linux)
import Foundation
import ImgCacheTestServer
import Subprocess
import Testing
@testable import ImgCache

/// One host whose DNS answers late holds nobody else up: libcurl's other transfers, its deadline
/// sweep and the end of the run go on while the lookup is still under way.
@Suite("A slow DNS answer")
struct SlowDNSTests {
    @Test("an image whose host takes 20 s to look up times out at --timeout, and the page's other images come in meanwhile")
    func slowLookupHoldsNobodyUp() async throws {
        let folder = try TemporaryFolder()
        let shim = folder.path("slowdns.so")
        let compiled = try await Subprocess.run(
            .name("clang"), arguments: ["-shared", "-fPIC", "-O1", "-o", shim, Fixtures.root.appendingPathComponent("slow-dns/slowdns.c").path, "-ldl"],
            output: .discarded, error: .string(limit: 64 * 1024))
        try #require(compiled.terminationStatus.isSuccess, "\(compiled.standardError)")

        let server = try await TestImageServer.start()
        server.route("/good.png", .image(bytes: TestImages.png(), contentType: "image/png", delay: .seconds(1)))
        let page = "<img src=\(server.url("/good.png"))><img src=http://img.slow.test/a.png>"
        try folder.write("page.html", page)

        let started = ContinuousClock.now
        let outcome = try await CommandRunner.runOffPool(
            ["fetch", "page.html", "--out", "out", "--timeout", "2", "--retries", "0", "--quiet", "--http-client", "curl"],
            in: folder.url, environment: ["LD_PRELOAD": shim, "IMGCACHE_SLOW_DNS_SECONDS": "20"])
        let elapsed = ContinuousClock.now - started

        #expect(outcome.status == 2, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("http://img.slow.test/a.png: timed out after 2 s"), "\(outcome.stderr)")
        #expect(!outcome.stderr.contains("good.png"), "\(outcome.stderr)")
        #expect(server.requestCount("/good.png") == 1)
        // Far below the lookup's 20 s, which the run waited out whole when ending the slow
        // transfer joined libcurl's resolver thread.
        #expect(elapsed < .seconds(12), "took \(elapsed)")
        try await server.shutdown()
    }
}
#endif
