#if CommandLine
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOSSL

/// Sets up each accepted TCP connection of a ``TestImageServer``: plain HTTP/1.1, or TLS after
/// which ALPN decides between HTTP/2 and HTTP/1.1. Either way a `ConnectionHandler` ends up serving
/// the requests (one per connection over HTTP/1.1, one per stream over HTTP/2).
struct ConnectionPipeline: Sendable {
    let state: ServerState
    /// Nil for plain HTTP.
    let tls: NIOSSLContext?
    /// What the server announces in its SETTINGS frame when HTTP/2 is negotiated.
    let http2Settings: HTTP2Settings

    /// - Parameters:
    ///   - identity: The certificate to present; nil for plain HTTP/1.1.
    ///   - offerHTTP2: Whether ALPN offers `h2` besides `http/1.1`.
    ///   - maxConcurrentStreams: SETTINGS_MAX_CONCURRENT_STREAMS for HTTP/2 connections.
    init(state: ServerState, identity: TestTLSIdentity?, offerHTTP2: Bool, maxConcurrentStreams: Int) throws {
        self.state = state
        if let identity {
            var configuration = try identity.serverConfiguration()
            configuration.applicationProtocols = offerHTTP2 ? ["h2", "http/1.1"] : ["http/1.1"]
            // How long a close waits for the client's close_notify: short, so that a client which
            // never answers one does not keep a finished connection (and the counters) open.
            configuration.shutdownTimeout = .seconds(1)
            tls = try NIOSSLContext(configuration: configuration)
        } else {
            tls = nil
        }
        http2Settings = nioDefaultSettings.filter { $0.parameter != .maxConcurrentStreams }
            + [HTTP2Setting(parameter: .maxConcurrentStreams, value: maxConcurrentStreams)]
    }

    /// Called for every accepted connection.
    func configure(_ channel: any Channel) -> EventLoopFuture<Void> {
        let state = self.state
        let id = state.connectionOpened()
        channel.closeFuture.whenComplete { _ in state.connectionClosed() }
        guard let tls else {
            state.protocolNegotiated("http/1.1", connectionID: id)
            return channel.eventLoop.makeCompletedFuture { try Self.addHTTP1Handlers(channel, state: state, connectionID: id) }
        }
        let settings = http2Settings
        do {
            // A failed handshake (a client rejecting the certificate) makes the TLS handler close the
            // connection; the error it raises reaches the pipeline's end, where NIO drops it quietly.
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls))
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return channel.configureHTTP2SecureUpgrade(
            h2ChannelConfigurator: { channel in
                state.protocolNegotiated("h2", connectionID: id)
                var connection = NIOHTTP2Handler.ConnectionConfiguration()
                connection.initialSettings = settings
                return channel.configureHTTP2Pipeline(
                    mode: .server,
                    connectionConfiguration: connection,
                    streamConfiguration: NIOHTTP2Handler.StreamConfiguration()
                ) { stream in
                    stream.eventLoop.makeCompletedFuture {
                        try stream.pipeline.syncOperations.addHandlers(
                            HTTP2FramePayloadToHTTP1ServerCodec(),
                            ConnectionHandler(state: state, connectionID: id, framing: .http2Stream))
                    }
                }.map { _ in }
            },
            http1ChannelConfigurator: { channel in
                // Also when the client offered no ALPN at all.
                state.protocolNegotiated("http/1.1", connectionID: id)
                return channel.eventLoop.makeCompletedFuture {
                    try Self.addHTTP1Handlers(channel, state: state, connectionID: id)
                }
            }
        )
    }

    private static func addHTTP1Handlers(_ channel: any Channel, state: ServerState, connectionID: Int) throws {
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
        try channel.pipeline.syncOperations.addHandler(ConnectionHandler(state: state, connectionID: connectionID))
    }
}
#endif
