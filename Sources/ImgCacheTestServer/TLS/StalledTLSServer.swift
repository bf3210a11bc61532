#if CommandLine
import NIOCore

/// A TCP server on `127.0.0.1` that starts a TLS handshake and never finishes it: it reads the
/// client's ClientHello and then, depending on ``StallPoint``, says nothing at all or sends the
/// first bytes of a ServerHello and nothing more. The connection stays open until the client
/// closes it, so only the client's own deadline ends the wait.
///
/// ```swift
/// let server = try await StalledTLSServer.start(stallingAt: .midServerHello)
/// // fetch server.url("/a.png") … it must time out, not hang
/// try await server.shutdown()
/// ```
public final class StalledTLSServer: Sendable {
    /// Where the handshake stops.
    public enum StallPoint: Sendable {
        /// The ClientHello is read; no answer.
        case afterClientHello
        /// The ClientHello is read; the answer is a TLS record header announcing a 122-byte
        /// ServerHello and the first 6 of those bytes.
        case midServerHello
    }

    private let listener: LoopbackListener
    private let counters: LockedBox<Counters>

    private struct Counters: Sendable {
        var connections = 0
        var open = 0
        var clientHellos = 0
    }

    /// The TCP port listened on.
    public var port: Int { listener.port }

    private init(listener: LoopbackListener, counters: LockedBox<Counters>) {
        self.listener = listener
        self.counters = counters
    }

    /// Starts listening on a port chosen by the system.
    public static func start(stallingAt point: StallPoint = .afterClientHello) async throws -> StalledTLSServer {
        let counters = LockedBox(Counters())
        let listener = try await LoopbackListener.start { channel in
            counters.withLock {
                $0.connections += 1
                $0.open += 1
            }
            channel.closeFuture.whenComplete { _ in counters.withLock { $0.open -= 1 } }
            return channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(
                    HandshakeStaller(point: point) { counters.withLock { $0.clientHellos += 1 } })
            }
        }
        return StalledTLSServer(listener: listener, counters: counters)
    }

    /// `"https://127.0.0.1:PORT"` + `path` (a missing leading `/` is added).
    public func url(_ path: String) -> String {
        "https://127.0.0.1:\(port)" + ServerState.normalise(path)
    }

    /// How many TCP connections were accepted.
    public var totalConnections: Int { counters.withLock { $0.connections } }

    /// How many connections are open now.
    public var openConnections: Int { counters.withLock { $0.open } }

    /// How many connections sent the start of a TLS handshake record (a ClientHello).
    public var clientHellosReceived: Int { counters.withLock { $0.clientHellos } }

    /// Closes the listening socket and every connection and stops the event loop thread.
    public func shutdown() async throws {
        try await listener.shutdown()
    }
}

/// Reads what the client sends and answers its ClientHello with silence, or half a ServerHello.
private final class HandshakeStaller: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let point: StalledTLSServer.StallPoint
    private let onClientHello: () -> Void
    private var answered = false

    init(point: StalledTLSServer.StallPoint, onClientHello: @escaping () -> Void) {
        self.point = point
        self.onClientHello = onClientHello
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        // 0x16: a TLS handshake record. The rest of the ClientHello (and anything after) is ignored.
        guard !answered, bytes.readableBytesView.first == 0x16 else { return }
        answered = true
        onClientHello()
        if point == .midServerHello {
            // Record header (handshake, TLS 1.2, 122 bytes), then the ServerHello's own header
            // (type 2, 118 bytes) and its version: 6 of the 122 bytes promised.
            let partial: [UInt8] = [0x16, 0x03, 0x03, 0x00, 0x7A, 0x02, 0x00, 0x00, 0x76, 0x03, 0x03]
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: partial)), promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
#endif
