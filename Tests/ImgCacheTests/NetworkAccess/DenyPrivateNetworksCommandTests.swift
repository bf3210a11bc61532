import Foundation
import ImgCacheTestServer
import Testing
@testable import ImgCache
@testable import ImgCacheURLs
@testable import ImgCacheMarkup

@Suite("imgcache fetch --deny-private-networks")
struct DenyPrivateNetworksCommandTests {
    private func run(_ arguments: [String], in folder: TemporaryFolder) async throws -> CommandRunner.Outcome {
        try await CommandRunner.runOffPool(arguments, in: folder.url)
    }

    @Test("images on private addresses are refused with the reason, the page keeps their URLs, exit 2; --allow-network lets one block through")
    func refusesAndAllows() async throws {
        let server = try await TestImageServer.start()
        server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        let folder = try TemporaryFolder()
        let html = "<img src=\(server.url("/a.png"))><img src=http://169.254.169.254/latest/meta-data/iam.png>"
        try folder.write("page.html", html)
        let denied = try await run(["fetch", "page.html", "--out", "out", "--deny-private-networks"], in: folder)
        #expect(denied.status == 2, "\(denied.stderr)")
        #expect(denied.stderr.contains("\(server.url("/a.png")): refused: 127.0.0.1 is a loopback address, and private networks are denied"))
        #expect(denied.stderr.contains("http://169.254.169.254/latest/meta-data/iam.png: refused: 169.254.169.254 is a link-local address"))
        #expect(try String(contentsOfFile: folder.path("out/page.html"), encoding: .utf8) == html)
        #expect(server.totalConnections == 0)

        let allowed = try await run(["fetch", "page.html", "--out", "out2", "--deny-private-networks", "--allow-network", "127.0.0.0/8"], in: folder)
        #expect(allowed.status == 2, "\(allowed.stderr)")
        let name = LocalImageNaming().localName(for: BrowserURL(server.url("/a.png"))!)!
        #expect(try String(contentsOfFile: folder.path("out2/page.html"), encoding: .utf8)
                == "<img src=images/\(name)><img src=http://169.254.169.254/latest/meta-data/iam.png>")
        try await server.shutdown()
    }

    @Test("a page given by a private URL is refused too, before any request")
    func pageRefused() async throws {
        let server = try await TestImageServer.start()
        server.route("/page.html", .status(200, body: Array("<img src=a.png>".utf8), contentType: "text/html"))
        let folder = try TemporaryFolder()
        let outcome = try await run(["fetch", server.url("/page.html"), "--out", "out", "--deny-private-networks"], in: folder)
        #expect(outcome.status != 0)
        #expect(outcome.stderr.contains("refused: 127.0.0.1 is a loopback address"), "\(outcome.stderr)")
        #expect(server.totalConnections == 0)
        try await server.shutdown()
    }

    @Test("--allow-network needs a CIDR block, and --deny-private-networks")
    func usage() async throws {
        let folder = try TemporaryFolder()
        try folder.write("page.html", "<p>")
        let bad = try await run(["fetch", "page.html", "--deny-private-networks", "--allow-network", "10.0.0.0/40"], in: folder)
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--allow-network '10.0.0.0/40' is not an IP address or CIDR block"))
        let alone = try await run(["fetch", "page.html", "--allow-network", "10.0.0.0/8"], in: folder)
        #expect(alone.status == 64)
        #expect(alone.stderr.contains("--allow-network only makes sense with --deny-private-networks"))
    }
}
