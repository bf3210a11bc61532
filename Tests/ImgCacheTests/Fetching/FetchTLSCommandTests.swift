import Foundation
import ImgCacheTestServer
import Testing
@testable import ImgCache
@testable import ImgCacheURLs
@testable import ImgCacheMarkup

/// `imgcache fetch` over HTTPS: `--cacert`, `SSL_CERT_FILE`, refused certificates and bad CA files,
/// as a user sees them (exit status, standard error, the page).
@Suite("imgcache fetch over HTTPS")
struct FetchTLSCommandTests {
    private func run(_ arguments: [String], in folder: TemporaryFolder, environment: [String: String] = [:])
        async throws -> CommandRunner.Outcome
    {
        try await CommandRunner.runOffPool(arguments, in: folder.url, environment: environment)
    }

    /// The `--http-client` values of this build (libcurl's on Linux).
    #if os(Linux)
    static let httpClients = ["curl", "async-http-client"]
    #else
    static let httpClients = ["async-http-client"]
    #endif

    @Test("a page's HTTPS images from a server of the CA named by --cacert (or SSL_CERT_FILE) are localised, with each --http-client",
          arguments: httpClients)
    func cacertTrustsTheTestCA(client: String) async throws {
        let server = try await TestImageServer.start(tls: .valid)
        server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        server.route("/page.html", .status(200, body: Array("<img src=a.png>".utf8), contentType: "text/html"))
        let folder = try TemporaryFolder()
        let withOption = try await run(["fetch", server.url("/page.html"), "--out", "out", "--cacert", TestCertificates.caPath,
                                        "--http-client", client], in: folder)
        #expect(withOption.status == 0, "\(withOption.stderr)")
        let name = LocalImageNaming().localName(for: BrowserURL(server.url("/a.png"))!)!
        #expect(try String(contentsOfFile: folder.path("out/page.html"), encoding: .utf8) == "<img src=images/\(name)>")
        #expect(server.allRequests.allSatisfy { $0.version == "HTTP/2" })

        let fromEnvironment = try await run(["fetch", server.url("/page.html"), "--out", "out2", "--http-client", client], in: folder,
                                            environment: ["SSL_CERT_FILE": TestCertificates.caPath, "SSL_CERT_DIR": ""])
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.stderr)")
        try await server.shutdown()
    }

    #if os(Linux)
    @Test("CAs joined from several --cacert files are kept in memory: nothing is written to the temporary folder, even while the run lasts")
    func joinedCAsWriteNothing() async throws {
        let server = try await TestImageServer.start(tls: .valid)
        // Slow, so that the run is seen while it lasts (a file deleted at the end was still there then).
        server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png", delay: .seconds(2)))
        let folder = try TemporaryFolder()
        try folder.write("page.html", "<img src=\(server.url("/a.png"))>")
        try FileManager.default.createDirectory(atPath: folder.path("tmp"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: TestCertificates.caPath, toPath: folder.path("second-ca.pem"))
        let seen = ThreadSafeLog<String>()
        let watching = Task {
            while !Task.isCancelled {
                for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path("tmp"))) ?? [] { seen.append(name) }
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        let outcome = try await run(["fetch", "page.html", "--out", "out", "--cacert", TestCertificates.caPath, "--cacert", "second-ca.pem",
                                     "--http-client", "curl"], in: folder, environment: ["TMPDIR": folder.path("tmp")])
        watching.cancel()
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(server.requestCount("/a.png") == 1)
        #expect(seen.values.isEmpty, "written to TMPDIR: \(Set(seen.values))")
        try await server.shutdown()
    }

    @Test("SSLKEYLOGFILE in the environment, which libcurl honours, is pointed out")
    func keyLogFileWarned() async throws {
        let server = try await TestImageServer.start(tls: .valid)
        server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        let folder = try TemporaryFolder()
        try folder.write("page.html", "<img src=\(server.url("/a.png"))>")
        let outcome = try await run(["fetch", "page.html", "--out", "out", "--cacert", TestCertificates.caPath, "--http-client", "curl"],
                                    in: folder, environment: ["SSLKEYLOGFILE": folder.path("keys.log")])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("imgcache: warning: SSLKEYLOGFILE is set: libcurl writes the TLS session keys to \(folder.path("keys.log"))"),
                "\(outcome.stderr)")
        try await server.shutdown()
    }
    #endif

    @Test("refused certificates: exit 2, one line per image naming the host and the problem, a hint, the page keeps the remote URL",
          arguments: httpClients)
    func refusedCertificate(client: String) async throws {
        let server = try await TestImageServer.start(tls: .untrusted)
        server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        let folder = try TemporaryFolder()
        try folder.write("page.html", "<img src=a.png>")
        let outcome = try await run(["fetch", "page.html", "--base-url", server.url("/"), "--out", "out",
                                     "--cacert", TestCertificates.caPath, "--http-client", client], in: folder)
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains(
            "imgcache: failed: \(server.url("/a.png")): TLS certificate of 127.0.0.1 refused: issued by 'CN=imgcache untrusted CA', which is not a trusted CA"),
            "\(outcome.stderr)")
        #expect(outcome.stderr.contains("--cacert FILE"))
        #expect(try String(contentsOfFile: folder.path("out/page.html"), encoding: .utf8) == "<img src=a.png>")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("out/images")).filter { !$0.hasPrefix(".") }.isEmpty)
        try await server.shutdown()
    }

    @Test("a --cacert file that is missing or holds no certificate stops the run before any request, naming it", arguments: ["missing.pem", "page.html"])
    func badCAFile(name: String) async throws {
        let server = try await TestImageServer.start(tls: .valid)
        let folder = try TemporaryFolder()
        try folder.write("page.html", "<img src=a.png>")
        let outcome = try await run(["fetch", "page.html", "--base-url", server.url("/"), "--out", "out", "--cacert", name], in: folder)
        #expect(outcome.status == 1)
        let problem = name == "missing.pem" ? "no such file" : "holds no PEM certificate"
        #expect(outcome.stderr.contains("imgcache: error: --cacert \(name): \(problem)"), "\(outcome.stderr)")
        #expect(server.totalConnections == 0)
        #expect(!FileManager.default.fileExists(atPath: folder.path("out/page.html")))
        try await server.shutdown()
    }

    @Test("--per-host caps an HTTP/2 host's streams too; --max-streams sets the HTTP/2 ceiling",
          arguments: [(["--per-host", "3"], 3), (["--max-streams", "12"], 12)])
    func limitsOverHTTP2(options: [String], cap: Int) async throws {
        let server = try await TestImageServer.start(tls: .valid)
        var page = ""
        for index in 0..<30 {
            server.route("/i\(index).png", .image(bytes: TestImages.png(), contentType: "image/png", delay: .milliseconds(300)))
            page += "<img src=i\(index).png>"
        }
        let folder = try TemporaryFolder()
        try folder.write("page.html", page)
        let outcome = try await run(["fetch", "page.html", "--base-url", server.url("/"), "--out", "out",
                                     "--cacert", TestCertificates.caPath] + options, in: folder)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(server.negotiatedProtocols == ["h2"])
        #expect(server.maxConcurrentStreamsOnOneConnection <= cap)
        if cap > 8 {
            #expect(server.maxConcurrentStreamsOnOneConnection > 8, "past the HTTP/1.1 limit")
        }
        try await server.shutdown()
    }

    @Test("a page whose certificate is refused: exit 1, the page's URL, host and problem, and the hint")
    func refusedPageCertificate() async throws {
        let server = try await TestImageServer.start(tls: .expired)
        server.route("/page.html", .status(200, body: Array("<img src=a.png>".utf8), contentType: "text/html"))
        let folder = try TemporaryFolder()
        let expired = try await run(["fetch", server.url("/page.html"), "--out", "out", "--cacert", TestCertificates.caPath], in: folder)
        #expect(expired.status == 1)
        #expect(expired.stderr.contains(
            "imgcache: error: \(server.url("/page.html")): TLS certificate of 127.0.0.1 refused: expired on 2021-01-01"),
            "\(expired.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path("out/page.html")))
        try await server.shutdown()

        let untrusted = try await TestImageServer.start(tls: .untrusted)
        untrusted.route("/page.html", .status(200, body: Array("<img src=a.png>".utf8), contentType: "text/html"))
        let outcome = try await run(["fetch", untrusted.url("/page.html"), "--out", "out"], in: folder)
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("which is not a trusted CA"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("imgcache: hint: "))
        try await untrusted.shutdown()
    }
}
