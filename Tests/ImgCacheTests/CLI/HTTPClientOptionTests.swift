#if os(Linux)
import Foundation
import ImgCacheTestServer
import Testing
@testable import ImgCache

/// `--http-client`, and a machine without libcurl (IMGCACHE_LIBCURL naming a file that is not there).
@Suite("imgcache fetch --http-client")
struct HTTPClientOptionTests {
    @Test("without libcurl the images still download (through AsyncHTTPClient); --http-client curl stops, saying why, exit 1")
    func withoutLibcurl() async throws {
        let server = try await TestImageServer.start()
        server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        let folder = try TemporaryFolder()
        try folder.write("page.html", "<img src=a.png>")
        let noLibcurl = ["IMGCACHE_LIBCURL": folder.path("missing/libcurl.so.4")]
        let arguments = ["fetch", "page.html", "--base-url", server.url("/"), "--quiet"]

        let fallback = try await CommandRunner.runOffPool(arguments + ["--out", "out"], in: folder.url, environment: noLibcurl)
        #expect(fallback.status == 0, "\(fallback.stderr)")
        let name = LocalImageNaming().localName(for: BrowserURL(server.url("/a.png"))!)!
        #expect(try String(contentsOfFile: folder.path("out/page.html"), encoding: .utf8) == "<img src=images/\(name)>")

        let requested = try await CommandRunner.runOffPool(arguments + ["--out", "out2", "--http-client", "curl"],
                                                           in: folder.url, environment: noLibcurl)
        #expect(requested.status == 1)
        #expect(requested.stderr.contains("imgcache: error: --http-client curl: libcurl cannot be used: \(folder.path("missing/libcurl.so.4"))"),
                "\(requested.stderr)")
        #expect(server.requestCount("/a.png") == 1, "the second run sent nothing")
        try await server.shutdown()
    }

    @Test("--proxy takes every image through the proxy, with each client, even where no_proxy names the host",
          arguments: ["curl", "async-http-client"])
    func proxyOptionWinsOverNoProxy(client: String) async throws {
        let server = try await TestImageServer.start()
        server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        let proxy = try await TestProxyServer.start()
        let folder = try TemporaryFolder()
        try folder.write("page.html", "<img src=a.png>")
        let outcome = try await CommandRunner.runOffPool(
            ["fetch", "page.html", "--base-url", server.url("/"), "--out", "out", "--quiet", "--proxy", proxy.url,
             "--http-client", client],
            in: folder.url, environment: ["no_proxy": "127.0.0.1,localhost", "NO_PROXY": "127.0.0.1,localhost"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(proxy.totalRequests == 1, "the proxy saw \(proxy.totalRequests) requests")
        try await proxy.shutdown()
        try await server.shutdown()
    }
}
#endif
