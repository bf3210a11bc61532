import Dispatch
import NIOCore
import NIOHTTP1
import NIOPosix

/// A real HTTP/1.1 server on `127.0.0.1` (ephemeral port) for tests, with scripted routes.
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
public final class TestImageServer: Sendable {
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let state: ServerState
    private let isShutDown = LockedBox(false)

    /// The TCP port the server listens on.
    public let port: Int

    private init(group: MultiThreadedEventLoopGroup, channel: any Channel, state: ServerState, port: Int) {
        self.group = group
        self.channel = channel
        self.state = state
        self.port = port
    }

    deinit {
        let needsShutdown = isShutDown.withLock { done in
            defer { done = true }
            return !done
        }
        if needsShutdown {
            group.shutdownGracefully(queue: .global()) { _ in }
        }
    }

    /// Starts a server on `127.0.0.1` with a port chosen by the system.
    public static func start() async throws -> TestImageServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let state = ServerState()
        do {
            let channel = try await ServerBootstrap(group: group)
                .serverChannelOption(ChannelOptions.backlog, value: 256)
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    let id = state.connectionOpened()
                    channel.closeFuture.whenComplete { _ in state.connectionClosed() }
                    return channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(
                            ConnectionHandler(state: state, connectionID: id))
                    }
                }
                .bind(host: "127.0.0.1", port: 0)
                .get()
            guard let port = channel.localAddress?.port else {
                try? await channel.close()
                throw TestImageServerError.noPort
            }
            return TestImageServer(group: group, channel: channel, state: state, port: port)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// `"http://127.0.0.1:PORT"`, no trailing slash.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

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

    /// Forgets recorded requests and the connection count, and brings both maxima down to what is
    /// open / in flight right now. Routes (and the positions of their sequences) are kept.
    public func resetCounters() {
        state.resetCounters()
    }

    /// Closes the listening socket and every open connection and stops the event loop thread.
    /// Calling it again does nothing.
    public func shutdown() async throws {
        let first = isShutDown.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        do {
            try await channel.close()
        } catch ChannelError.alreadyClosed {
            // fine
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        try await group.shutdownGracefully()
    }
}

enum TestImageServerError: Error {
    case noPort
}
