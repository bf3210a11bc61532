import Foundation
import ImgCacheTestServer

/// The loopback HTTP server of `imgcache demo`: a ``TestImageServer`` on `127.0.0.1` with one
/// route per file of a ``DemoSite``, delayed or missing as the ``DemoScenario`` says.
struct DemoServer: Sendable {
    /// The running server.
    let server: TestImageServer

    /// Starts the server on an ephemeral port and registers the site's routes.
    static func start(site: DemoSite, scenario: DemoScenario) async throws -> DemoServer {
        let server = try await TestImageServer.start()
        for file in site.files where file.path != scenario.missing {
            let delay = scenario.delays[file.path] ?? .zero
            let behaviour: Behaviour = file.contentType.hasPrefix("image/")
                ? .image(bytes: file.bytes, contentType: file.contentType, delay: delay)
                : .status(200, body: file.bytes, contentType: file.contentType, delay: delay)
            for path in routePaths(for: file.path) { server.route(path, behaviour) }
            if file.path == "index.html" { server.route("/", behaviour) }
        }
        // Not registered: the server answers 404 for `scenario.missing`.
        return DemoServer(server: server)
    }

    /// The page's URL: `http://127.0.0.1:PORT/index.html`.
    var pageURL: String { server.url("/index.html") }

    /// The absolute URL of a site path.
    func url(_ sitePath: String) -> String { server.url("/" + sitePath) }

    /// How many requests the server answered.
    var requestCount: Int { server.totalRequests }

    /// Stops the server.
    func shutdown() async {
        try? await server.shutdown()
    }

    /// The request targets a file can be asked for: its path as written and percent-encoded
    /// (clients encode spaces and other characters a URL path may not hold).
    private static func routePaths(for path: String) -> [String] {
        let plain = "/" + path
        let encoded = "/" + (path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path)
        return plain == encoded ? [plain] : [plain, encoded]
    }
}
