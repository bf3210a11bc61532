public import ImgCache
import AsyncHTTPClient
import NIOCore
import NIOHTTP1

/// The command line's transport: AsyncHTTPClient on SwiftNIO, about 10× faster than
/// FoundationNetworking's URLSession on Linux for thousands of small images.
public final class AsyncHTTPClientTransport: ImageTransport {
    private let direct: HTTPClient
    // One client per proxy endpoint: no_proxy decides per URL, AsyncHTTPClient per client.
    private let proxied: [ProxySettings.Endpoint: HTTPClient]
    private let proxy: ProxySettings

    /// Creates a transport.
    /// - Parameters:
    ///   - proxy: where requests go through (`ProxySettings.fromEnvironment()` honours `http_proxy` & co).
    ///   - connectTimeout: the most a TCP (and TLS) connection may take.
    ///   - readTimeout: the most the server may stay silent once connected.
    ///   - maxConnectionsPerHost: connections kept to one host.
    public init(proxy: ProxySettings = .direct, connectTimeout: Duration = .seconds(10), readTimeout: Duration = .seconds(30),
                maxConnectionsPerHost: Int = 16) {
        func client(_ endpoint: ProxySettings.Endpoint?) -> HTTPClient {
            var configuration = HTTPClient.Configuration(
                redirectConfiguration: .disallow,
                timeout: .init(connect: .nanoseconds(connectTimeout.nanoseconds), read: .nanoseconds(readTimeout.nanoseconds)),
                proxy: endpoint.map { .server(host: $0.host, port: $0.port) })
            configuration.connectionPool = .init(idleTimeout: .seconds(60),
                                                 concurrentHTTP1ConnectionsPerHostSoftLimit: max(1, maxConnectionsPerHost))
            configuration.decompression = .disabled
            return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        }
        self.proxy = proxy
        direct = client(nil)
        var proxied: [ProxySettings.Endpoint: HTTPClient] = [:]
        for endpoint in [proxy.httpProxy, proxy.httpsProxy].compactMap({ $0 }) where proxied[endpoint] == nil {
            proxied[endpoint] = client(endpoint)
        }
        self.proxied = proxied
    }

    /// GETs the URL; a 3xx comes back as it is. Reads the body as it streams in and stops at `maxBytes`.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        try Task.checkCancellation()
        var outgoing = HTTPClientRequest(url: request.url)
        for header in request.headers { outgoing.headers.add(name: header.name, value: header.value) }
        let client = proxy.proxy(for: request.url).flatMap { proxied[ProxySettings.Endpoint(host: $0.host, port: $0.port)] } ?? direct
        let remaining = max(.milliseconds(1), request.deadline - ContinuousClock.now)
        do {
            let response = try await client.execute(outgoing, timeout: .nanoseconds(remaining.nanoseconds))
            let declared = response.headers.first(name: "Content-Length").flatMap(Int.init)
            if let declared, declared > request.maxBytes { throw TransportError.tooLarge(limit: request.maxBytes) }
            var body: [UInt8] = []
            body.reserveCapacity(min(declared ?? 0, request.maxBytes))
            for try await chunk in response.body {
                guard body.count + chunk.readableBytes <= request.maxBytes else { throw TransportError.tooLarge(limit: request.maxBytes) }
                body += chunk.readableBytesView
                if ContinuousClock.now >= request.deadline { throw TransportError.timedOut }
            }
            if let declared, body.count < declared {
                throw TransportError.connection("truncated: \(body.count) of \(declared) bytes")
            }
            return TransportResponse(status: Int(response.status.code),
                                     headers: response.headers.map { (name: $0.name, value: $0.value) }, body: body)
        } catch let error as TransportError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .connectTimeout, .getConnectionFromPoolTimeout:
                throw TransportError.timedOut
            case .cancelled where Task.isCancelled:
                throw CancellationError()
            default:
                throw TransportError.connection("\(error)")
            }
        } catch {
            throw TransportError.connection("\(error)")
        }
    }

    /// Shuts the clients down.
    public func shutdown() async {
        for client in [direct] + Array(proxied.values) {
            try? await client.shutdown()
        }
    }
}

extension Duration {
    var nanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}
