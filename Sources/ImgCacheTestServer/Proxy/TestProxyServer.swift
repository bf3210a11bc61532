#if CommandLine
import NIOCore
import NIOHTTP1
import NIOPosix

/// A real HTTP forward proxy on `127.0.0.1` (ephemeral port) for tests, behaving like Squid as far
/// as a client can tell:
///
/// - An absolute-form request (`GET http://127.0.0.1:8080/a.png HTTP/1.1`) is forwarded to the origin
///   in the URL as `GET /a.png` with `Host: 127.0.0.1:8080`, a `Via` header and without hop-by-hop
///   headers (`Proxy-Connection`, `Proxy-Authorization`, …), over a new origin connection per
///   request; the response comes back on the client's connection, which stays open (keep-alive)
///   unless the client asked otherwise. An origin that cannot be reached, or closes without
///   answering, gives `502`; one that stops mid-body makes the proxy close the client's connection.
/// - `CONNECT host:port` opens a TCP connection to `host:port`, answers
///   `200 Connection established`, and from then on relays bytes both ways untouched (so TLS goes
///   through end to end); when either side closes, so does the other. `refuseConnect` can make it
///   answer `403` instead (Squid refuses CONNECT to non-SSL ports), and an unreachable target gives
///   `502`; either way that connection then closes.
/// - Anything else (an origin-form request such as `GET /a.png`) answers `400`; a URL with a scheme
///   other than `http` answers `501`.
///
/// Every request line is recorded, in order (``recordedRequests``). Each proxy runs its own
/// one-thread event loop group, which ``shutdown()`` stops, closing every client, origin and tunnel
/// connection.
public final class TestProxyServer: Sendable {
    private let listener: LoopbackListener
    private let log: LockedBox<[ProxiedRequest]>
    private let connections: LockedBox<Int>

    /// The TCP port the proxy listens on.
    public var port: Int { listener.port }

    private init(listener: LoopbackListener, log: LockedBox<[ProxiedRequest]>, connections: LockedBox<Int>) {
        self.listener = listener
        self.log = log
        self.connections = connections
    }

    /// Starts a proxy on `127.0.0.1` with a port chosen by the system.
    ///
    /// - Parameter refuseConnect: Called with the host and port of every `CONNECT`; `true` answers
    ///   `403 Forbidden`. By default every `CONNECT` is allowed.
    public static func start(
        refuseConnect: @escaping @Sendable (_ host: String, _ port: Int) -> Bool = { _, _ in false }
    ) async throws -> TestProxyServer {
        let log = LockedBox<[ProxiedRequest]>([])
        let connections = LockedBox(0)
        let listener = try await LoopbackListener.start { channel in
                    connections.withLock { $0 += 1 }
                    return channel.eventLoop.makeCompletedFuture {
                        let handlers = ProxyHandler.HTTPHandlers(
                            encoder: HTTPResponseEncoder(),
                            decoder: ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes)),
                            pipelining: HTTPServerPipelineHandler(),
                            errors: HTTPServerProtocolErrorHandler()
                        )
                        try channel.pipeline.syncOperations.addHandlers(
                            handlers.encoder, handlers.decoder, handlers.pipelining, handlers.errors,
                            ProxyHandler(log: log, refuseConnect: refuseConnect, httpHandlers: handlers))
                    }
        }
        return TestProxyServer(listener: listener, log: log, connections: connections)
    }

    /// `"http://127.0.0.1:PORT"`: the proxy URL to give a client.
    public var url: String { "http://127.0.0.1:\(port)" }

    /// Every request line received, oldest first (a tunnel's contents are not requests to the proxy).
    public var recordedRequests: [ProxiedRequest] { log.withLock { $0 } }

    /// How many requests were received in all.
    public var totalRequests: Int { log.withLock { $0.count } }

    /// How many client connections were accepted.
    public var totalConnections: Int { connections.withLock { $0 } }

    /// Forgets the recorded requests and the connection count.
    public func resetCounters() {
        log.withLock { $0 = [] }
        connections.withLock { $0 = 0 }
    }

    /// Closes the listening socket and every connection (clients, origins, tunnels) and stops the
    /// event loop thread. Calling it again does nothing.
    public func shutdown() async throws {
        try await listener.shutdown()
    }
}
#endif
