public import ImgCache
import AsyncHTTPClient
import NIOCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An ``ImageTransport`` on AsyncHTTPClient (SwiftNIO): what the command line uses.
///
/// Redirects are not followed, the body is streamed and counted against `maxBytes` as it arrives
/// (reading stops, and the connection is dropped, as soon as the limit is passed), and no
/// `Accept-Encoding` is sent, so bodies arrive as stored.
///
/// Requests that ``ProxySettings`` sends to a proxy go through a second client configured for it,
/// because AsyncHTTPClient's proxy is per client while `no_proxy` is per URL. AsyncHTTPClient
/// reaches an HTTP proxy only through a `CONNECT` tunnel, for `http` URLs too (`CONNECT host:80`),
/// so a proxy that allows `CONNECT` only to port 443 (Squid's default) refuses `http` images with
/// `.connection`.
public final class AsyncHTTPClientTransport: ImageTransport {
    private let direct: HTTPClient
    private let proxied: [ProxySettings.Endpoint: HTTPClient]
    private let proxy: ProxySettings

    /// Creates the transport and its HTTP clients (on NIO's shared event loop group, whose threads
    /// outlive ``shutdown()``; the clients' connections do not).
    ///
    /// - Parameters:
    ///   - proxy: which requests go through which proxy; direct connections by default.
    ///   - connectTimeout: the longest wait for a TCP (and TLS) connection to be set up.
    ///   - readTimeout: the longest silence while waiting for response bytes.
    ///   - maxConnectionsPerHost: how many connections to one host the pool keeps open at once.
    public init(
        proxy: ProxySettings = .direct,
        connectTimeout: Duration = .seconds(10),
        readTimeout: Duration = .seconds(30),
        maxConnectionsPerHost: Int = 16
    ) {
        func makeClient(_ proxy: HTTPClient.Configuration.Proxy?) -> HTTPClient {
            var configuration = HTTPClient.Configuration(
                redirectConfiguration: .disallow,
                timeout: .init(connect: TimeAmount(connectTimeout), read: TimeAmount(readTimeout)),
                connectionPool: .init(
                    idleTimeout: .seconds(60),
                    concurrentHTTP1ConnectionsPerHostSoftLimit: max(1, maxConnectionsPerHost)),
                proxy: proxy,
                decompression: .disabled)
            // A refused or failed connect fails the request at once (as `.connection`) instead of
            // being retried by the pool until the deadline: retrying is the downloader's decision.
            configuration.connectionPool.retryConnectionEstablishment = false
            // No tracing spans: with none configured, AsyncHTTPClient still made a span and parsed
            // each URL again for its attributes (about 2% of a 2,000-image fetch's CPU time).
            configuration.tracing.tracer = nil
            return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        }
        self.proxy = proxy
        self.direct = makeClient(nil)
        var proxied: [ProxySettings.Endpoint: HTTPClient] = [:]
        for endpoint in [proxy.httpProxy, proxy.httpsProxy].compactMap({ $0 }) where proxied[endpoint] == nil {
            proxied[endpoint] = makeClient(.server(host: endpoint.host, port: endpoint.port))
        }
        self.proxied = proxied
    }

    deinit {
        // A safety net: ``shutdown()`` is the contract, but a transport dropped without it (say, after
        // an early throw) must neither leak its connections nor trip AsyncHTTPClient's debug-build
        // precondition on clients that are deinitialised while running. Non-blocking, and a no-op
        // (an `alreadyShutdown` failure) for clients already shut down.
        for client in [direct] + Array(proxied.values) {
            _ = client.shutdown() as EventLoopFuture<Void>
        }
    }

    /// Sends one GET; see ``ImageTransport/send(_:)``.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        try Task.checkCancellation()
        let lowercasedURL = request.url.lowercased()
        guard lowercasedURL.hasPrefix("http://") || lowercasedURL.hasPrefix("https://") else {
            throw TransportError.invalidRequest("not an absolute http(s) URL: \(request.url)")
        }
        let remaining = request.deadline - ContinuousClock.now
        guard remaining > .zero else { throw TransportError.timedOut }

        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = .GET
        for header in request.headers {
            outgoing.headers.add(name: header.name, value: header.value)
        }
        let client = self.client(for: request.url)
        let prepared = outgoing
        let nioDeadline = NIODeadline.now() + TimeAmount(remaining)

        do {
            // AsyncHTTPClient's deadline covers only the wait for the response head, so the whole
            // exchange is bounded as well (cancelling the body's iteration makes AsyncHTTPClient
            // drop the connection).
            return try await withDeadline(request.deadline) {
                try await Self.exchange(prepared, on: client, deadline: nioDeadline, maxBytes: request.maxBytes)
            }
        } catch {
            throw Self.transportError(for: error)
        }
    }

    /// Shuts the clients down, closing their connections; requests still in flight fail.
    public func shutdown() async {
        for client in [direct] + Array(proxied.values) {
            try? await client.shutdown()
        }
    }

    private func client(for url: String) -> HTTPClient {
        guard let (host, port) = proxy.proxy(for: url) else { return direct }
        return proxied[ProxySettings.Endpoint(host: host, port: port)] ?? direct
    }

    /// The request, the head, and the body read up to `maxBytes`.
    private static func exchange(
        _ outgoing: HTTPClientRequest, on client: HTTPClient, deadline: NIODeadline, maxBytes: Int
    ) async throws -> TransportResponse {
        let response = try await client.execute(outgoing, deadline: deadline)
        let status = Int(response.status.code)
        let mayHaveBody = !(100..<200).contains(status) && status != 204 && status != 304
        let declared = mayHaveBody ? response.headers.first(name: "Content-Length").flatMap { Int($0) } : nil
        if let declared, declared > maxBytes {
            // Returning without reading the body makes AsyncHTTPClient close the connection.
            throw TransportError.tooLarge(limit: maxBytes)
        }

        var body: [UInt8] = []
        body.reserveCapacity(min(declared ?? 64 * 1024, maxBytes))
        do {
            for try await chunk in response.body {
                guard body.count + chunk.readableBytes <= maxBytes else {
                    throw TransportError.tooLarge(limit: maxBytes)
                }
                body.append(contentsOf: chunk.readableBytesView)
            }
        } catch let error as TransportError {
            throw error
        } catch where !Task.isCancelled {
            // e.g. the server closed the connection before Content-Length bytes (a parser error).
            if let declared, body.count < declared {
                throw TransportError.connection("truncated: \(body.count) of \(declared) bytes (\(describe(error)))")
            }
            throw error
        }
        if let declared, body.count < declared {
            throw TransportError.connection("truncated: \(body.count) of \(declared) bytes")
        }
        return TransportResponse(
            status: status,
            headers: response.headers.map { (name: $0.name, value: $0.value) },
            body: body)
    }

    /// Maps whatever AsyncHTTPClient or NIO threw to `TransportError` (or `CancellationError`).
    static func transportError(for error: any Error) -> any Error {
        if let error = error as? TransportError { return error }
        if error is CancellationError || Task.isCancelled { return CancellationError() }
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .getConnectionFromPoolTimeout,
                .httpProxyHandshakeTimeout, .socksHandshakeTimeout, .tlsHandshakeTimeout:
                return TransportError.timedOut
            case .invalidURL, .emptyHost, .emptyScheme:
                return TransportError.invalidRequest(error.shortDescription)
            default:
                return TransportError.connection(describe(error))
            }
        }
        return TransportError.connection(describe(error))
    }

    /// A short, readable reason for a connection-level error.
    private static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError { return error.shortDescription.lowercased() }
        // NIO's own text names the system call ("read(descriptor:pointer:size:): …"): the errno's
        // message is what a person needs.
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)) }
        return String(describing: error)
    }
}
