@testable import ImgCache
@testable import ImgCacheHTTPClient
@testable import ImgCacheCurl
import ImgCacheTestServer
import ImgCacheURLSession
import Testing

/// The `ImageTransport`s, so that every transport test runs against each.
enum TransportKind: String, CaseIterable, CustomTestStringConvertible, Codable, Sendable {
    case asyncHTTPClient
    case urlSession
    #if os(Linux)
    case curl
    #endif

    var testDescription: String { rawValue }

    /// A new transport of this kind.
    func make(proxy: ProxySettings? = nil, readTimeout: Duration = .seconds(30)) -> any ImageTransport {
        switch self {
        case .asyncHTTPClient:
            AsyncHTTPClientTransport(proxy: proxy ?? .direct, readTimeout: readTimeout)
        case .urlSession:
            URLSessionTransport(proxy: proxy)
        #if os(Linux)
        case .curl:
            try! CurlTransport(proxy: proxy ?? .direct, readTimeout: readTimeout)
        #endif
        }
    }
}

/// The command line's transports, for the tests that reach past `ImageTransport`'s surface
/// (trusted CAs, names resolved to chosen addresses).
enum CommandLineTransport: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case asyncHTTPClient
    #if os(Linux)
    case curl
    #endif

    var testDescription: String { rawValue }

    /// A new transport of this kind.
    /// - Parameter resolvedNames: host names answered from this table instead of DNS (when private
    ///   networks are denied, for AsyncHTTPClient's guard).
    func make(trust: CertificateTrust, resolvedNames: [String: IPAddress] = [:], connectTimeout: Duration = .seconds(10),
              readTimeout: Duration = .seconds(30), maxConnectionsPerHost: Int = 16) throws -> any ImageTransport {
        switch self {
        case .asyncHTTPClient:
            AsyncHTTPClientTransport(proxy: .direct, tls: try trust.tlsConfiguration(), connectTimeout: connectTimeout,
                                     readTimeout: readTimeout, maxConnectionsPerHost: maxConnectionsPerHost,
                                     resolvedNames: resolvedNames)
        #if os(Linux)
        case .curl:
            try CurlTransport(trust: trust, proxy: .direct, connectTimeout: connectTimeout, readTimeout: readTimeout,
                              resolvedNames: resolvedNames)
        #endif
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
