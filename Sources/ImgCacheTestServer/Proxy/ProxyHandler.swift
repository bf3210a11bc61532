#if CommandLine
import ImgCacheHTTPClient
import NIOCore
import NIOHTTP1
import NIOPosix

/// Serves one client connection of a ``TestProxyServer``, one request at a time: forwards
/// absolute-form requests to their origin (a fresh origin connection per request), turns the
/// connection into a tunnel after a successful `CONNECT`, and answers anything else with an error.
final class ProxyHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// The HTTP handlers of the client's connection, removed when it becomes a tunnel.
    struct HTTPHandlers {
        let encoder: HTTPResponseEncoder
        /// Must forward the bytes it holds when removed (a client may send right after `CONNECT`).
        let decoder: ByteToMessageHandler<HTTPRequestDecoder>
        let pipelining: HTTPServerPipelineHandler
        let errors: HTTPServerProtocolErrorHandler
    }

    private let log: LockedBox<[ProxiedRequest]>
    private let refuseConnect: @Sendable (String, Int) -> Bool
    private let httpHandlers: HTTPHandlers

    private var head: HTTPRequestHead?
    private var body: [ByteBuffer] = []
    private var keepAlive = true
    /// The connection to the origin of the request being forwarded.
    private var origin: (any Channel)?
    private var responseStarted = false

    init(log: LockedBox<[ProxiedRequest]>, refuseConnect: @escaping @Sendable (String, Int) -> Bool, httpHandlers: HTTPHandlers) {
        self.log = log
        self.refuseConnect = refuseConnect
        self.httpHandlers = httpHandlers
    }

    // MARK: inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            let line = ProxiedRequest(method: head.method.rawValue, target: head.uri)
            log.withLock { $0.append(line) }
            self.head = head
            body = []
        case .body(let part):
            body.append(part)
        case .end:
            guard let head else { return }
            self.head = nil
            handle(head, context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        origin?.close(promise: nil)
        origin = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func handle(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        keepAlive = head.isKeepAlive
        switch ProxyTarget(method: head.method.rawValue, target: head.uri) {
        case .refused(let status, let reason):
            answer(context, status, reason)
        case .tunnel(let host, let port):
            // The request decoder stops parsing after a CONNECT, so whatever the answer, nothing
            // more can be read from this connection as HTTP.
            keepAlive = false
            if refuseConnect(host, port) {
                answer(context, 403, "CONNECT to \(host):\(port) is not allowed")
            } else {
                openTunnel(host: host, port: port, context: context)
            }
        case .forward(let host, let port, let authority, let originForm):
            let request = HTTPRequestHead(
                version: .http1_1, method: head.method, uri: originForm,
                headers: Self.originHeaders(head.headers, authority: authority))
            forward(request, body: body, host: host, port: port, context: context)
        }
        body = []
    }

    // MARK: forwarding

    private func forward(
        _ request: HTTPRequestHead, body: [ByteBuffer], host: String, port: Int, context: ChannelHandlerContext
    ) {
        Self.bootstrap(context.eventLoop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHTTPClientHandlers() }
            }
            .connect(host: host, port: port)
            .assumeIsolated()
            .whenComplete { result in
                switch result {
                case .failure(let error):
                    self.answer(context, 502, "cannot connect to \(host):\(port): \(error)")
                case .success(let origin):
                    self.send(request, body: body, to: origin, context: context)
                }
            }
    }

    private func send(_ request: HTTPRequestHead, body: [ByteBuffer], to origin: any Channel, context: ChannelHandlerContext) {
        guard context.channel.isActive else {
            origin.close(promise: nil)
            return
        }
        self.origin = origin
        responseStarted = false
        let relay = OriginResponseRelay(
            onPart: { part in self.relay(part, from: origin, context: context) },
            onClose: { self.originClosed(origin, context: context) }
        )
        do {
            try origin.pipeline.syncOperations.addHandler(relay)
        } catch {
            self.origin = nil
            origin.close(promise: nil)
            answer(context, 502, "cannot set up the origin connection: \(error)")
            return
        }
        origin.write(HTTPClientRequestPart.head(request), promise: nil)
        for part in body { origin.write(HTTPClientRequestPart.body(.byteBuffer(part)), promise: nil) }
        origin.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
    }

    private func relay(_ part: HTTPClientResponsePart, from origin: any Channel, context: ChannelHandlerContext) {
        guard origin === self.origin else { return }
        switch part {
        case .head(let head):
            responseStarted = true
            var headers = Self.withoutHopByHop(head.headers)
            if !keepAlive { headers.add(name: "Connection", value: "close") }
            let response = HTTPResponseHead(version: .http1_1, status: head.status, headers: headers)
            context.write(wrapOutboundOut(.head(response)), promise: nil)
        case .body(let bytes):
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(bytes))), promise: nil)
        case .end(let trailers):
            self.origin = nil
            origin.close(promise: nil)
            finishResponse(context, trailers: trailers)
        }
    }

    /// The origin's connection ended before the response did: an answer never started becomes a
    /// 502; one already under way is cut short by closing the client's connection, as a real proxy
    /// does, so the client sees an incomplete body rather than a complete wrong one.
    private func originClosed(_ origin: any Channel, context: ChannelHandlerContext) {
        guard origin === self.origin else { return }
        self.origin = nil
        if responseStarted {
            context.close(promise: nil)
        } else {
            answer(context, 502, "the origin closed the connection without an answer")
        }
    }

    // MARK: tunnelling

    private func openTunnel(host: String, port: Int, context: ChannelHandlerContext) {
        Self.bootstrap(context.eventLoop)
            // Nothing is read from the origin until the tunnel is joined, so no byte can be lost.
            .channelOption(ChannelOptions.autoRead, value: false)
            .connect(host: host, port: port)
            .assumeIsolated()
            .whenComplete { result in
                switch result {
                case .failure(let error):
                    self.answer(context, 502, "cannot connect to \(host):\(port): \(error)")
                case .success(let peer):
                    guard context.channel.isActive else {
                        peer.close(promise: nil)
                        return
                    }
                    do {
                        try self.joinTunnel(to: peer, context: context)
                    } catch {
                        peer.close(promise: nil)
                        context.close(promise: nil)
                    }
                }
            }
    }

    /// Turns the client's connection into a byte pipe to `peer`: the HTTP handlers (and this one)
    /// leave, the `200` is written as raw bytes (the response encoder would frame it as a message
    /// with a body), and bytes the client sent after its request go through the tunnel.
    private func joinTunnel(to peer: any Channel, context: ChannelHandlerContext) throws {
        let (clientEnd, originEnd) = TunnelHandler.pair()
        try peer.pipeline.syncOperations.addHandler(originEnd)
        let channel = context.channel
        let pipeline = context.pipeline.syncOperations
        try pipeline.addHandler(clientEnd)
        pipeline.removeHandler(httpHandlers.errors, promise: nil)
        pipeline.removeHandler(httpHandlers.pipelining, promise: nil)
        pipeline.removeHandler(httpHandlers.encoder, promise: nil)
        pipeline.removeHandler(context: context, promise: nil)
        channel.writeAndFlush(ByteBuffer(string: "HTTP/1.1 200 Connection established\r\n\r\n"), promise: nil)
        pipeline.removeHandler(httpHandlers.decoder, promise: nil)
        try peer.syncOptions?.setOption(ChannelOptions.autoRead, value: true)
        peer.read()
    }

    // MARK: writing

    /// Answers the current request with `status` and a one-line text body.
    private func answer(_ context: ChannelHandlerContext, _ status: Int, _ reason: String) {
        guard context.channel.isActive else { return }
        let body = ByteBuffer(string: reason + "\n")
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/plain")
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        finishResponse(context, trailers: nil)
    }

    private func finishResponse(_ context: ChannelHandlerContext, trailers: HTTPHeaders?) {
        let keepAlive = self.keepAlive
        context.writeAndFlush(wrapOutboundOut(.end(trailers))).assumeIsolated().whenComplete { _ in
            if !keepAlive { context.close(promise: nil) }
        }
    }

    // MARK: headers

    private static func bootstrap(_ eventLoop: any EventLoop) -> ClientBootstrap {
        ClientBootstrap(group: eventLoop)
            .connectTimeout(.seconds(10))
            .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
    }

    /// Headers that describe one hop, not the message: a proxy never passes them on.
    private static let hopByHop: Set<String> = [
        "connection", "proxy-connection", "keep-alive", "proxy-authorization", "proxy-authenticate",
        "te", "trailer", "transfer-encoding", "upgrade",
    ]

    /// `headers` without hop-by-hop fields, nor those the `Connection` header names. Message framing
    /// is left to the encoders, which set `Content-Length` or chunking for the next hop.
    static func withoutHopByHop(_ headers: HTTPHeaders) -> HTTPHeaders {
        let named = Set(headers[canonicalForm: "connection"].map { $0.lowercased() })
        var result = HTTPHeaders()
        for (name, value) in headers {
            let lowered = name.lowercased()
            if !hopByHop.contains(lowered) && !named.contains(lowered) { result.add(name: name, value: value) }
        }
        return result
    }

    /// The headers of the request as sent to the origin: `Host` from the URL first, the client's
    /// end-to-end headers, a `Via`, and `Connection: close` (one origin connection per request).
    static func originHeaders(_ headers: HTTPHeaders, authority: String) -> HTTPHeaders {
        var result = HTTPHeaders([("Host", authority)])
        for (name, value) in withoutHopByHop(headers) where name.lowercased() != "host" {
            result.add(name: name, value: value)
        }
        result.add(name: "Via", value: "1.1 imgcache-test-proxy")
        result.add(name: "Connection", value: "close")
        return result
    }
}
#endif
