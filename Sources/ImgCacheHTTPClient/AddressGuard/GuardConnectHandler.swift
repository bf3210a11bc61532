#if CommandLine
import ImgCache
import NIOCore
import NIOHTTP1
import NIOPosix

/// Serves one `CONNECT host:port` on a connection to the ``AddressGuardProxy``: connects to an
/// allowed address of the host and relays bytes both ways, or answers 403 (refused) or 502
/// (unreachable) and records why, for the transport to report.
final class GuardConnectHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = ByteBuffer

    static let decoderName = "imgcache.guard.decoder"

    private let access: PrivateNetworkAccess
    private let connectTimeout: TimeAmount
    private let makeResolver: @Sendable (any EventLoop, String) -> any Resolver & Sendable
    private let record: @Sendable (String, AddressGuardProxy.Outcome) -> Void
    private var target: (host: String, port: Int)?
    private var connecting = false

    init(
        access: PrivateNetworkAccess, connectTimeout: TimeAmount,
        makeResolver: @escaping @Sendable (any EventLoop, String) -> any Resolver & Sendable,
        record: @escaping @Sendable (String, AddressGuardProxy.Outcome) -> Void
    ) {
        self.access = access
        self.connectTimeout = connectTimeout
        self.makeResolver = makeResolver
        self.record = record
    }

    /// The key outcomes are recorded under.
    static func authority(host: String, port: Int) -> String { "\(host.lowercased()):\(port)" }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            guard head.method == .CONNECT, let target = Self.target(of: head.uri) else {
                respond("400 Bad Request", context: context)
                return
            }
            self.target = target
        case .body:
            break
        case .end:
            guard let target, !connecting else { return }
            connecting = true
            connect(to: target, context: context)
        }
    }

    private func connect(to target: (host: String, port: Int), context: ChannelHandlerContext) {
        let resolver = AddressCheckingResolver(underlying: makeResolver(context.eventLoop, target.host), access: access)
        let authority = Self.authority(host: target.host, port: target.port)
        ClientBootstrap(group: context.eventLoop)
            .connectTimeout(connectTimeout)
            .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .resolver(resolver)
            .connect(host: target.host, port: target.port)
            .assumeIsolated()
            .whenComplete { result in
                switch result {
                case .success(let peer):
                    self.relay(to: peer, context: context)
                case .failure(let error):
                    if let refusal = resolver.refusal {
                        self.record(authority, .denied(address: refusal.address, kind: refusal.kind))
                        self.respond("403 Forbidden", context: context)
                    } else {
                        self.record(authority, .unreachable(String(describing: error)))
                        self.respond("502 Bad Gateway", context: context)
                    }
                }
            }
    }

    /// Answers 200, then hands both connections to a pair of ``TunnelHandler``s.
    private func relay(to peer: any Channel, context: ChannelHandlerContext) {
        guard context.channel.isActive else {
            peer.close(promise: nil)
            return
        }
        let (ours, theirs) = TunnelHandler.pair()
        do {
            try peer.pipeline.syncOperations.addHandler(theirs)
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: "HTTP/1.1 200 Connection Established\r\n\r\n")), promise: nil)
            try context.pipeline.syncOperations.addHandler(ours)
            // This handler goes first, then the decoder: bytes the decoder still holds (none,
            // since the client waits for the 200) would pass on to the relay, not to this handler.
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            let decoder = try context.pipeline.syncOperations.context(name: Self.decoderName)
            context.pipeline.syncOperations.removeHandler(context: decoder, promise: nil)
        } catch {
            peer.close(promise: nil)
            context.close(promise: nil)
        }
    }

    private func respond(_ status: String, context: ChannelHandlerContext) {
        let response = "HTTP/1.1 \(status)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: response))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    /// `host:port` or `[v6]:port` of a `CONNECT` request's target.
    static func target(of uri: String) -> (host: String, port: Int)? {
        guard let colon = uri.lastIndex(of: ":"), let port = Int(uri[uri.index(after: colon)...]),
              (1...65535).contains(port) else { return nil }
        var host = uri[..<colon]
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        guard !host.isEmpty else { return nil }
        return (String(host), port)
    }
}
#endif
