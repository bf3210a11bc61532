@testable import ImgCache
import ImgCacheHTTPClient
import ImgCacheTestServer
import ImgCacheURLSession
import Testing

/// The two `ImageTransport`s, so that every transport test runs against both.
enum TransportKind: String, CaseIterable, CustomTestStringConvertible, Codable, Sendable {
    case asyncHTTPClient
    case urlSession

    var testDescription: String { rawValue }

    /// A new transport of this kind.
    func make(proxy: ProxySettings? = nil, readTimeout: Duration = .seconds(30)) -> any ImageTransport {
        switch self {
        case .asyncHTTPClient:
            AsyncHTTPClientTransport(proxy: proxy ?? .direct, readTimeout: readTimeout)
        case .urlSession:
            URLSessionTransport(proxy: proxy)
        }
    }
}

/// Runs `body` with a fresh server and transport, and shuts both down whatever happens.
func withTransport(
    _ kind: TransportKind, proxy: ProxySettings? = nil,
    _ body: (TestImageServer, any ImageTransport) async throws -> Void
) async throws {
    let server = try await TestImageServer.start()
    let transport = kind.make(proxy: proxy)
    do {
        try await body(server, transport)
    } catch {
        await transport.shutdown()
        try? await server.shutdown()
        throw error
    }
    await transport.shutdown()
    try await server.shutdown()
}

extension TransportRequest {
    /// A GET of `url` with a deadline `timeout` from now.
    ///
    /// The default is long on purpose: tests that are not about time must not fail when the
    /// process is busy (synchronous tests elsewhere in the suite can hold all of Swift
    /// concurrency's threads for many seconds on a 2-core machine).
    static func get(
        _ url: String, headers: [(name: String, value: String)] = [], maxBytes: Int = 10 * 1024 * 1024,
        timeout: Duration = .seconds(60)
    ) -> TransportRequest {
        TransportRequest(url: url, headers: headers, maxBytes: maxBytes, deadline: .now + timeout)
    }
}

/// What `send` threw, as a `TransportError` when it was one.
func transportError(_ body: () async throws -> TransportResponse) async -> (any Error)? {
    do {
        let response = try await body()
        Issue.record("expected an error, got HTTP \(response.status) with \(response.body.count) bytes")
        return nil
    } catch {
        return error
    }
}
