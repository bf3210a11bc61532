#if CommandLine
import Dispatch
import NIOCore
import NIOHTTP1
import NIOPosix

/// A real HTTP server on `127.0.0.1` (ephemeral port) for tests, with scripted routes: plain
/// HTTP/1.1, or HTTPS where ALPN picks HTTP/2 or HTTP/1.1.
///
/// ```swift
/// let server = try await TestImageServer.start()
/// defer { Task { try? await server.shutdown() } }   // or call shutdown() at the end of the test
/// server.route("/a.png", .image(bytes: TestImages.png(width: 2, height: 2), contentType: "image/png"))
/// // … fetch server.url("/a.png") …
/// #expect(server.requestCount("/a.png") == 1)
/// try await server.shutdown()
/// ```
///
/// Unknown paths answer 404, methods other than GET answer 405 (both are still recorded and counted).
/// Keep-alive works as in HTTP/1.1 (and `Connection: close` / HTTP/1.0 are honoured); pipelined
/// requests are answered in order. Each server runs its own one-thread event loop group, stopped by
/// ``shutdown()`` (or, as a safety net, when the server is deinitialised without it).
///
/// ## HTTPS and HTTP/2
///
/// `start(tls: .valid)` serves HTTPS with a certificate from ``TestCertificates`` (a client must
/// trust ``TestCertificates/caPath``). ALPN offers `h2` (unless `http2: false`) and `http/1.1`; a
/// client that picks `h2` gets HTTP/2, any other (also one without ALPN) gets HTTP/1.1 over TLS,
/// exactly as without TLS. A client that rejects the certificate just sees the connection close.
///
/// Over HTTP/2 each stream is one request: it counts in ``maxConcurrentRequests`` and
/// ``maxConcurrentStreamsOnOneConnection``, while ``totalConnections`` and the connection ids of
/// ``RecordedRequest`` count TCP connections. A recorded HTTP/2 request has the version `"HTTP/2"`,
/// and its `:authority` appears as a `host` header (pseudo-headers are not recorded). How each
/// ``Behaviour`` fails over HTTP/2 is described with the behaviour.
public final class TestImageServer: Sendable {
    private let listener: LoopbackListener
    private let state: ServerState

    /// The TCP port the server listens on.
    public var port: Int { listener.port }

    /// Whether the server speaks TLS (its URLs are `https:`).
    public let isTLS: Bool

    private init(listener: LoopbackListener, state: ServerState, isTLS: Bool) {
        self.listener = listener
        self.state = state
        self.isTLS = isTLS
    }

    /// Starts a server on `127.0.0.1` with a port chosen by the system.
    ///
    /// - Parameters:
    ///   - tls: The certificate to serve HTTPS with; nil (the default) for plain HTTP/1.1.
    ///   - http2: With `tls`, whether ALPN offers `h2` (otherwise only `http/1.1`). Ignored without TLS.
    ///   - maxConcurrentStreams: The SETTINGS_MAX_CONCURRENT_STREAMS an HTTP/2 connection announces:
    ///     how many requests a client may have in flight on one connection. It binds once the client
    ///     has acknowledged the SETTINGS (further streams are refused); a client that opens streams
    ///     before reading them (curl may; AsyncHTTPClient waits) can exceed it on a new connection.
    public static func start(
        tls: TestTLSIdentity? = nil,
        http2: Bool = true,
        maxConcurrentStreams: Int = 128
    ) async throws -> TestImageServer {
        let state = ServerState()
        let pipeline = try ConnectionPipeline(
            state: state, identity: tls, offerHTTP2: http2, maxConcurrentStreams: maxConcurrentStreams)
        let listener = try await LoopbackListener.start { channel in pipeline.configure(channel) }
        return TestImageServer(listener: listener, state: state, isTLS: tls != nil)
    }

    /// `"http://127.0.0.1:PORT"` (`https:` with TLS), no trailing slash.
    public var baseURL: String { "\(isTLS ? "https" : "http")://127.0.0.1:\(port)" }

    /// The absolute URL of `path` on this server; a missing leading `/` is added.
    public func url(_ path: String) -> String {
        baseURL + ServerState.normalise(path)
    }

    /// Registers (or replaces) what `path` does. Safe from any thread at any time; a replaced
    /// `.sequence` starts from its first behaviour again. A route matches a request whose target
    /// equals `path` exactly (query included) or whose target without its query equals `path`
    /// (the exact match wins).
    public func route(_ path: String, _ behaviour: Behaviour) {
        state.setRoute(path, behaviour)
    }

    /// Removes a route: its path answers 404 again.
    public func removeRoute(_ path: String) {
        state.removeRoute(path)
    }

    /// How many requests reached `path` (matched like routes: exact target, or target without query),
    /// whatever the answer was, since the start or the last ``resetCounters()``.
    public func requestCount(_ path: String) -> Int {
        state.requests(path).count
    }

    /// The requests that reached `path`, oldest first (matched like ``requestCount(_:)``).
    public func requests(_ path: String) -> [RecordedRequest] {
        state.requests(path)
    }

    /// Every request received, oldest first.
    public var allRequests: [RecordedRequest] { state.allRequests }

    /// How many requests were received in all.
    public var totalRequests: Int { state.totalRequests }

    /// How many TCP connections were accepted (so `totalRequests > totalConnections` means reuse).
    public var totalConnections: Int { state.totalConnections }

    /// How many TCP connections are open now.
    public var openConnections: Int { state.openConnections }

    /// The most TCP connections open at once so far.
    public var maxConcurrentConnections: Int { state.maxConcurrentConnections }

    /// The most requests being handled at once so far (a request counts from its complete head
    /// until its last response byte is written, or until its connection closes).
    public var maxConcurrentRequests: Int { state.maxConcurrentRequests }

    /// The most requests in flight at once on a single TCP connection so far (counted like
    /// ``maxConcurrentRequests``): up to SETTINGS_MAX_CONCURRENT_STREAMS over HTTP/2, at most 1
    /// over HTTP/1.1.
    public var maxConcurrentStreamsOnOneConnection: Int { state.maxConcurrentRequestsOnOneConnection }

    /// The application protocol of each connection, in the order the connections were accepted:
    /// `"h2"` or `"http/1.1"` (also for plain HTTP, and for TLS without ALPN). A TLS connection whose
    /// handshake failed, or is still going on, has no entry.
    public var negotiatedProtocols: [String] { state.negotiatedProtocols }

    /// Forgets recorded requests, the connection count and the negotiated protocols, and brings the
    /// maxima down to what is open / in flight right now. Routes (and the positions of their sequences) are kept.
    public func resetCounters() {
        state.resetCounters()
    }

    /// Closes the listening socket and every open connection and stops the event loop thread.
    /// Calling it again does nothing.
    public func shutdown() async throws {
        try await listener.shutdown()
    }
}

#endif
