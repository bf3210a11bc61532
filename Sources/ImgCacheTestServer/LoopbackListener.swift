#if CommandLine
import Dispatch
import NIOCore
import NIOPosix

/// A listening socket on `127.0.0.1` (a port chosen by the system) with an event loop thread of its
/// own: what the test servers and the test proxy are built on.
///
/// ``shutdown()`` closes the socket and every connection and stops the thread, once; a listener
/// dropped without it still stops its thread, as a safety net for a test that threw early.
final class LoopbackListener: Sendable {
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let isShutDown = LockedBox(false)

    /// The TCP port listened on.
    let port: Int

    private init(group: MultiThreadedEventLoopGroup, channel: any Channel, port: Int) {
        self.group = group
        self.channel = channel
        self.port = port
    }

    deinit {
        if claimShutdown() {
            group.shutdownGracefully(queue: .global()) { _ in }
        }
    }

    /// Listens; `initializeConnection` sets up each accepted connection's pipeline.
    static func start(
        initializeConnection: @escaping @Sendable (any Channel) -> EventLoopFuture<Void>
    ) async throws -> LoopbackListener {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let channel = try await ServerBootstrap(group: group)
                .serverChannelOption(ChannelOptions.backlog, value: 256)
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer(initializeConnection)
                .bind(host: "127.0.0.1", port: 0)
                .get()
            guard let port = channel.localAddress?.port else {
                try? await channel.close()
                throw TestImageServerError.noPort
            }
            return LoopbackListener(group: group, channel: channel, port: port)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// Closes the listening socket and every open connection and stops the event loop thread.
    /// Calling it again does nothing.
    func shutdown() async throws {
        guard claimShutdown() else { return }
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

    /// True for the first caller only.
    private func claimShutdown() -> Bool {
        isShutDown.withLock { done in
            defer { done = true }
            return !done
        }
    }
}

enum TestImageServerError: Error {
    case noPort
}
#endif
