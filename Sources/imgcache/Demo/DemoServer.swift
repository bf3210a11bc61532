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

/// Answers each request of a connection with its route, after the route's delay; the HTTP server
/// pipeline keeps pipelined requests in order and the connection open unless the client asks otherwise.
final class DemoRequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let routes: [String: DemoRoute]
    private let requests: RequestCounter
    private var head: HTTPRequestHead?

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
            requests.increment()
            let path = String(head.uri.prefix { $0 != "?" && $0 != "#" })
            let route = routes[path]
            guard let delay = route?.delay, delay > .zero else {
                respond(to: head, with: route, context: context)
                return
            }
            let nanoseconds = delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000
            context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(nanoseconds)) {
                self.respond(to: head, with: route, context: context)
            }
        }
    }

    private func respond(to head: HTTPRequestHead, with route: DemoRoute?, context: ChannelHandlerContext) {
        let body = route?.body ?? Array("not found\n".utf8)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: route?.contentType ?? "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: String(body.count))
        headers.add(name: "Connection", value: head.isKeepAlive ? "keep-alive" : "close")
        let status: HTTPResponseStatus = route == nil ? .notFound : .ok
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        if head.method != .HEAD {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        }
        let keepAlive = head.isKeepAlive
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            if !keepAlive { context.close(promise: nil) }
        }
    }
}
