#if CommandLine
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// The loopback HTTP server of `imgcache demo`: the files of a ``DemoSite`` on `127.0.0.1` (a port
/// the system chooses), each answered after its ``DemoScenario`` delay, and 404 for the file
/// missing by design and anything else. A plain HTTP/1.1 server on SwiftNIO, apart from the
/// tests' server, which the shipped binary does not contain.
final class DemoServer: Sendable {
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let requests: RequestCounter
    /// The port listened on.
    let port: Int

    private init(group: MultiThreadedEventLoopGroup, channel: any Channel, requests: RequestCounter, port: Int) {
        self.group = group
        self.channel = channel
        self.requests = requests
        self.port = port
    }

    /// Starts the server and registers the site's routes.
    static func start(site: DemoSite, scenario: DemoScenario) async throws -> DemoServer {
        var routes: [String: DemoRoute] = [:]
        for file in site.files where file.path != scenario.missing {
            let route = DemoRoute(body: file.bytes, contentType: file.contentType, delay: scenario.delays[file.path] ?? .zero)
            for path in routePaths(for: file.path) { routes[path] = route }
            if file.path == "index.html" { routes["/"] = route }
        }
        let requests = RequestCounter()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let channel = try await ServerBootstrap(group: group)
                .serverChannelOption(ChannelOptions.backlog, value: 256)
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { [routes] channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(DemoRequestHandler(routes: routes, requests: requests))
                    }
                }
                .bind(host: "127.0.0.1", port: 0)
                .get()
            guard let port = channel.localAddress?.port else {
                try? await channel.close()
                throw DemoServerError.noPort
            }
            return DemoServer(group: group, channel: channel, requests: requests, port: port)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// The page's URL: `http://127.0.0.1:PORT/index.html`.
    var pageURL: String { url("index.html") }

    /// The absolute URL of a site path.
    func url(_ sitePath: String) -> String { "http://127.0.0.1:\(port)/" + sitePath }

    /// How many requests the server answered.
    var requestCount: Int { requests.value }

    /// Closes the socket and every connection and stops the thread.
    func shutdown() async {
        try? await channel.close()
        try? await group.shutdownGracefully()
    }

    /// The request targets a file can be asked for: its path as written and percent-encoded
    /// (clients encode spaces and other characters a URL path may not hold).
    private static func routePaths(for path: String) -> [String] {
        let plain = "/" + path
        let encoded = "/" + (path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path)
        return plain == encoded ? [plain] : [plain, encoded]
    }
}

enum DemoServerError: Error, CustomStringConvertible {
    case noPort

    var description: String { "the listening socket has no port" }
}

/// One file as the demo server answers it.
struct DemoRoute: Sendable {
    let body: [UInt8]
    let contentType: String
    let delay: Duration
}

/// The requests answered, counted from the event loop and read from anywhere.
final class RequestCounter: @unchecked Sendable {
    private let lock = NSLock()
    // Guarded by `lock`.
    private var count = 0

    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

/// Answers the requests of one connection: a route's file after its delay, 404 for a path without
/// a route, 405 for a method other than GET. The delays are tasks scheduled on the connection's
/// event loop, so a slow file holds up only its own connection; the HTTP server pipeline keeps
/// pipelined requests in order and the connection open unless the client asks otherwise.
final class DemoRequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let routes: [String: DemoRoute]
    private let requests: RequestCounter
    private var head: HTTPRequestHead?
    private var pending: Scheduled<Void>?

    init(routes: [String: DemoRoute], requests: RequestCounter) {
        self.routes = routes
        self.requests = requests
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body:
            break
        case .end:
            guard let head else { return }
            self.head = nil
            answer(head, context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        // A response still waiting out its delay has nobody to go to.
        pending?.cancel()
        pending = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func answer(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        requests.increment()
        guard head.method == .GET || head.method == .HEAD else {
            respond(to: head, .methodNotAllowed, body: Array("method not allowed\n".utf8), contentType: "text/plain; charset=utf-8",
                    context: context)
            return
        }
        guard let route = routes[String(head.uri.prefix { $0 != "?" && $0 != "#" })] else {
            respond(to: head, .notFound, body: Array("not found\n".utf8), contentType: "text/plain; charset=utf-8", context: context)
            return
        }
        guard route.delay > .zero else {
            respond(to: head, .ok, body: route.body, contentType: route.contentType, context: context)
            return
        }
        pending = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(route.delay)) {
            self.pending = nil
            self.respond(to: head, .ok, body: route.body, contentType: route.contentType, context: context)
        }
    }

    private func respond(to head: HTTPRequestHead, _ status: HTTPResponseStatus, body: [UInt8], contentType: String,
                         context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: contentType)
        headers.add(name: "Content-Length", value: String(body.count))
        if status == .methodNotAllowed { headers.add(name: "Allow", value: "GET, HEAD") }
        let keepAlive = head.isKeepAlive
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        // A response to HEAD has no body, whatever its headers say.
        if head.method != .HEAD {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            if !keepAlive { context.close(promise: nil) }
        }
    }
}
#endif
