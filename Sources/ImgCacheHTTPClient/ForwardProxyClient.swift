#if CommandLine
import ImgCache
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// Sends `http` requests to an HTTP proxy the way curl and wget do: `GET http://host/x.png HTTP/1.1`
/// (absolute form) on a keep-alive connection to the proxy.
///
/// AsyncHTTPClient reaches a proxy only through a `CONNECT` tunnel, for `http` URLs too
/// (`CONNECT host:80`), and Squid's default configuration, like many company proxies, refuses
/// `CONNECT` to any port but 443. `https` requests still go through AsyncHTTPClient's tunnel, as
/// they must.
final class ForwardProxyClient: Sendable {
    private let group: any EventLoopGroup
    private let host: String
    private let port: Int
    private let connectTimeout: TimeAmount
    private let maxIdleConnections: Int
    private let idle = NIOLockedValueBox<[any Channel]>([])
    private let isShutDown = NIOLockedValueBox(false)

    init(group: any EventLoopGroup, host: String, port: Int, connectTimeout: TimeAmount, maxIdleConnections: Int) {
        self.group = group
        self.host = host
        self.port = port
        self.connectTimeout = connectTimeout
        self.maxIdleConnections = max(1, maxIdleConnections)
    }

    /// Sends one GET through the proxy and reads the response up to `request.maxBytes`.
    func send(_ request: TransportRequest) async throws -> TransportResponse {
        guard let authority = Self.authority(of: request.url) else {
            throw TransportError.invalidRequest("not an absolute http URL: \(request.url)")
        }
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: authority)
        for header in request.headers { headers.add(name: header.name, value: header.value) }
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: request.url, headers: headers)

        let channel = try await checkOut(deadline: request.deadline)
        let exchange = channel.eventLoop.makePromise(of: ProxyExchangeHandler.Response.self)
        let deadline = NIODeadline.now() + TimeAmount(request.deadline - ContinuousClock.now)
        channel.eventLoop.execute {
            do {
                let handler = try channel.pipeline.syncOperations.handler(type: ProxyExchangeHandler.self)
                handler.start(head, maxBytes: request.maxBytes, promise: exchange)
            } catch {
                exchange.fail(error)
            }
        }
        // Past the deadline, or when the caller gives up, the connection is closed, which fails the
        // exchange; the reason is decided below.
        let timer = channel.eventLoop.scheduleTask(deadline: deadline) { channel.close(promise: nil) }
        defer { timer.cancel() }
        let response: ProxyExchangeHandler.Response
        do {
            response = try await withTaskCancellationHandler {
                try await exchange.futureResult.get()
            } onCancel: {
                channel.close(promise: nil)
            }
        } catch {
            channel.close(promise: nil)
            if Task.isCancelled { throw CancellationError() }
            if ContinuousClock.now >= request.deadline { throw TransportError.timedOut(phase: nil) }
            throw error
        }
        if response.reusable { checkIn(channel) } else { channel.close(promise: nil) }
        return TransportResponse(
            status: Int(response.head.status.code),
            headers: response.head.headers.map { (name: $0.name, value: $0.value) },
            body: response.body,
            httpVersion: .http1)
    }

    /// Closes every idle connection; connections in use close when their exchange ends.
    func shutdown() {
        isShutDown.withLockedValue { $0 = true }
        let channels = idle.withLockedValue { idle in
            defer { idle = [] }
            return idle
        }
        for channel in channels { channel.close(promise: nil) }
    }

    private func checkOut(deadline: ContinuousClock.Instant) async throws -> any Channel {
        while let channel = idle.withLockedValue({ $0.popLast() }) {
            if channel.isActive { return channel }
        }
        do {
            return try await ClientBootstrap(group: group)
                .connectTimeout(min(connectTimeout, TimeAmount(deadline - ContinuousClock.now)))
                .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        try channel.pipeline.syncOperations.addHandler(ProxyExchangeHandler())
                    }
                }
                .connect(host: host, port: port)
                .get()
        } catch {
            if ContinuousClock.now >= deadline { throw TransportError.timedOut(phase: .connecting) }
            throw TransportError.connection("cannot reach the proxy \(host):\(port) (\(error))")
        }
    }

    private func checkIn(_ channel: any Channel) {
        let keep = idle.withLockedValue { idle in
            guard idle.count < maxIdleConnections, !isShutDown.withLockedValue({ $0 }) else { return false }
            idle.append(channel)
            return true
        }
        if !keep { channel.close(promise: nil) }
    }

    /// `host:port` of an absolute http URL, without user information.
    static func authority(of url: String) -> String? {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        let rest = url[schemeEnd.upperBound...]
        var authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        return authority.isEmpty ? nil : String(authority)
    }
}

/// One request at a time on a connection to the proxy: writes it, collects the response.
final class ProxyExchangeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    struct Response: Sendable {
        var head: HTTPResponseHead
        var body: [UInt8]
        /// Whether the connection can carry another request.
        var reusable: Bool
    }

    private var context: ChannelHandlerContext?
    private var promise: EventLoopPromise<Response>?
    private var maxBytes = 0
    private var head: HTTPResponseHead?
    private var body: [UInt8] = []

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    /// The pipeline removes its handlers when the connection closes: let go of the context then,
    /// or handler, context and channel keep each other alive (LeakSanitizer found the cycle).
    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func start(_ request: HTTPRequestHead, maxBytes: Int, promise: EventLoopPromise<Response>) {
        guard let context, context.channel.isActive, self.promise == nil else {
            promise.fail(TransportError.connection("the connection to the proxy closed"))
            return
        }
        self.promise = promise
        self.maxBytes = maxBytes
        head = nil
        body = []
        context.write(wrapOutboundOut(.head(request)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            if let declared = declaredLength, declared > maxBytes {
                fail(TransportError.tooLarge(limit: maxBytes), context: context)
            }
        case .body(let chunk):
            guard promise != nil else { return }
            guard body.count + chunk.readableBytes <= maxBytes else {
                fail(TransportError.tooLarge(limit: maxBytes), context: context)
                return
            }
            body.append(contentsOf: chunk.readableBytesView)
        case .end:
            guard let promise, let head else { return }
            self.promise = nil
            promise.succeed(Response(head: head, body: body, reusable: head.isKeepAlive))
            body = []
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(connectionLost(reason: "the proxy closed the connection"), context: context)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A body cut short shows up here first, as the HTTP parser's "unexpected end of stream".
        fail(connectionLost(reason: "proxy connection: \(error)"), context: context)
    }

    /// The error for a connection that ended before the response was complete.
    private func connectionLost(reason: String) -> TransportError {
        if let declared = declaredLength, head != nil, body.count < declared {
            return .connection("truncated: \(body.count) of \(declared) bytes")
        }
        return .connection(reason)
    }

    private var declaredLength: Int? {
        head?.headers.first(name: "Content-Length").flatMap { Int($0) }
    }

    private func fail(_ error: TransportError, context: ChannelHandlerContext) {
        guard let promise else { return }
        self.promise = nil
        promise.fail(error)
        context.close(promise: nil)
    }
}
#endif
