@testable import ImgCacheURLs
@testable import ImgCacheMarkup
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

    @Test("a libcurl built on another TLS library is not used: a one-line notice, and the images come through AsyncHTTPClient")
    func unfitLibcurl() async throws {
        let gnutls = "/usr/lib/x86_64-linux-gnu/libcurl-gnutls.so.4"
        guard FileManager.default.fileExists(atPath: gnutls) else {
            Issue.record("\(gnutls) is missing: install libcurl3-gnutls")
            return
        }
        let server = try await TestImageServer.start()
        server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        let folder = try TemporaryFolder()
        try folder.write("page.html", "<img src=a.png>")
        let environment = ["IMGCACHE_LIBCURL": gnutls]
        let arguments = ["fetch", "page.html", "--base-url", server.url("/"), "--quiet"]

        let fallback = try await CommandRunner.runOffPool(arguments + ["--out", "out"], in: folder.url, environment: environment)
        #expect(fallback.status == 0, "\(fallback.stderr)")
        let notices = fallback.stderr.split(separator: "\n")
        #expect(notices.count == 1, "\(fallback.stderr)")
        #expect(notices.first?.hasPrefix("imgcache: libcurl cannot be used: libcurl ") == true, "\(fallback.stderr)")
        #expect(notices.first?.contains("uses GnuTLS/") == true, "\(fallback.stderr)")
        #expect(notices.first?.hasSuffix("not OpenSSL; downloading with AsyncHTTPClient") == true, "\(fallback.stderr)")
        #expect(server.requestCount("/a.png") == 1)

        let requested = try await CommandRunner.runOffPool(arguments + ["--out", "out2", "--http-client", "curl"],
                                                           in: folder.url, environment: environment)
        #expect(requested.status == 1)
        #expect(requested.stderr.contains("--http-client curl: libcurl cannot be used: libcurl "), "\(requested.stderr)")
        try await server.shutdown()
    }

    @Test("a libcurl.so.4 beside the binary is not loaded: libcurl comes from the system's library folders")
    func libraryBesideTheBinaryIgnored() async throws {
        let server = try await TestImageServer.start()
        server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        let folder = try TemporaryFolder()
        try folder.write("page.html", "<img src=a.png>")
        // A copy of the command in a folder where somebody left a libcurl.so.4 of their own
        // (here a file the loader cannot load, so that loading it would show as a failure).
        try FileManager.default.createDirectory(atPath: folder.path("bin"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: CommandRunner.executable.path, toPath: folder.path("bin/imgcache"))
        try folder.write("bin/libcurl.so.4", "not a library")
        let outcome = try await CommandRunner.runOffPool(
            ["fetch", "page.html", "--base-url", server.url("/"), "--quiet", "--out", "out", "--http-client", "curl"],
            in: folder.url, environment: ["IMGCACHE_LIBCURL": "", "LD_LIBRARY_PATH": ""], executable: URL(fileURLWithPath: folder.path("bin/imgcache")))
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(server.requestCount("/a.png") == 1)
        try await server.shutdown()
    }

    @Test("libcurl is loaded by the commands that download with it, and only by them: not for --http-client async-http-client, nor by rewrite")
    func libcurlLoadedOnlyWhenUsed() async throws {
        let server = try await TestImageServer.start()
        server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        let folder = try TemporaryFolder()
        try folder.write("page.html", "<img src=a.png>")
        // glibc's loader names every library it opens on standard error.
        let tracing = ["LD_DEBUG": "files"]
        let fetch = ["fetch", "page.html", "--base-url", server.url("/"), "--quiet"]
        let runs: [(arguments: [String], loadsLibcurl: Bool)] = [
            (fetch + ["--out", "out1"], true),
            (fetch + ["--out", "out2", "--http-client", "async-http-client"], false),
            (fetch + ["--out", "out3", "--http-client=async-http-client"], false),
            (["rewrite", "page.html", "--base-url", server.url("/"), "--output", "-"], false),
        ]
        for run in runs {
            let outcome = try await CommandRunner.runOffPool(run.arguments, in: folder.url, environment: tracing)
            #expect(outcome.status == 0, "\(run.arguments): \(outcome.stderr.suffix(2_000))")
            #expect(outcome.stderr.contains("libcurl.so.4") == run.loadsLibcurl, "\(run.arguments)")
        }
        #expect(server.requestCount("/a.png") == 3, "each fetch downloaded the image into its own --out")
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
