import Foundation
@testable import ImgCache
import ImgCacheTestServer
import ImgCacheURLSession
import Testing

/// Requests going through an HTTP proxy: the test server plays the proxy and records what reaches it.
///
/// Both transports forward `http` URLs to the proxy as `GET http://host/path` (absolute form).
@Suite("Transport proxies")
struct TransportProxyTests {
    /// A host nobody can resolve: only a proxy can answer for it.
    static let remoteURL = "http://images.example.invalid/x.png"
    /// Starts the lines in which the child process of the URLSession case reports a problem.
    static let problemMarker = "proxy-test-problem: "

    @Test(arguments: TransportKind.allCases)
    func requestGoesThroughTheProxyUnlessExempt(kind: TransportKind) async throws {
        #if canImport(FoundationNetworking)
        if kind == .urlSession {
            // FoundationNetworking ignores connectionProxyDictionary; libcurl reads http_proxy and
            // no_proxy itself. Setting them is process-wide (and setenv races with other threads'
            // getenv), so this runs in a child process.
            // The child reports problems as marked lines on stderr (it exits 0 either way, so that
            // they come back: a failed exit condition returns no output).
            let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
                let server = try await TestImageServer.start()
                setenv("http_proxy", "http://127.0.0.1:\(server.port)", 1)
                setenv("no_proxy", "127.0.0.1", 1)
                let transport = URLSessionTransport()
                let problems = await TransportProxyTests.exercise(server, transport, kind: .urlSession)
                await transport.shutdown()
                try await server.shutdown()
                let report = problems.map { "\(TransportProxyTests.problemMarker)\($0)\n" }.joined()
                FileHandle.standardError.write(Data(report.utf8))
            }
            let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            for line in output.split(separator: "\n") where line.hasPrefix(Self.problemMarker) {
                Issue.record("\(line.dropFirst(Self.problemMarker.count))")
            }
            return
        }
        #endif
        let server = try await TestImageServer.start()
        let settings = ProxySettings(httpProxy: .init(host: "127.0.0.1", port: server.port), noProxy: ["127.0.0.1"])
        let transport = kind.make(proxy: settings)
        let problems = await Self.exercise(server, transport, kind: kind)
        await transport.shutdown()
        try await server.shutdown()
        #expect(problems.isEmpty, "\(problems)")
    }

    /// Sends a request for ``remoteURL`` (must go through the proxy, `server`) and one for `server`
    /// itself (exempt by `no_proxy`, so direct); returns what was wrong, if anything.
    static func exercise(_ server: TestImageServer, _ transport: any ImageTransport, kind: TransportKind) async -> [String] {
        var problems: [String] = []
        server.route("/direct.png", .image(bytes: TestImages.gif(), contentType: "image/gif"))
        let outcome: Result<TransportResponse, any Error>
        do {
            outcome = .success(try await transport.send(.get(remoteURL)))
        } catch {
            outcome = .failure(error)
        }
        // TestImageServer routes only origin-form targets, so as a forwarding proxy it answers 404;
        // what matters is that the request reached it, in absolute form, as curl and wget send it
        // (not through `CONNECT host:80`, which Squid's default configuration refuses).
        let seen = server.allRequests.filter { $0.method == "GET" && $0.uri == remoteURL }
        if seen.count != 1 { problems.append("proxy saw \(server.allRequests.map { "\($0.method) \($0.uri)" }), not GET \(remoteURL)") }
        if let host = seen.first?.header("Host"), host != "images.example.invalid" {
            problems.append("proxied request had Host \(host)")
        }
        if case .success(let response) = outcome, response.status == 404 {} else {
            problems.append("proxied request gave \(outcome), not the proxy's 404")
        }
        do {
            let response = try await transport.send(.get(server.url("/direct.png")))
            if response.status != 200 { problems.append("direct request answered \(response.status)") }
            let targets = server.requests("/direct.png").map(\.uri)
            if targets != ["/direct.png"] { problems.append("exempt request was sent as \(targets), not direct") }
        } catch {
            problems.append("direct request failed: \(error)")
        }
        return problems
    }
}
