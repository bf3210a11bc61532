#if CommandLine
import ImgCache
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// An HTTP `CONNECT` proxy inside the process, on 127.0.0.1, through which the transport sends
/// every request when private networks are denied: it resolves each host itself and connects
/// only to an address ``PrivateNetworkAccess`` allows.
///
/// AsyncHTTPClient has no hook for checking the address it connects to (its `dnsOverride` is fixed
/// per client, its resolver choice is system or randomized), but it does speak to proxies, for
/// `http` and `https` alike, keeping its pooling and HTTP/2 through the tunnel. The relay costs
/// a copy of every byte on the event loop; only runs that deny private networks pay it.
final class AddressGuardProxy: Sendable {
    /// Why a `CONNECT` to `host:port` was refused, or could not be made, the last time.
    enum Outcome: Sendable {
        case denied(address: IPAddress, kind: String)
        case unreachable(String)
    }

    private let channel: any Channel
    private let outcomes: NIOLockedValueBox<[String: Outcome]>

    /// The port it listens on, on 127.0.0.1.
    let port: Int

    /// Starts listening on an ephemeral port of 127.0.0.1.
    /// - Parameter names: host names answered from this table instead of DNS (tests).
    static func start(
        access: PrivateNetworkAccess, group: any EventLoopGroup, connectTimeout: TimeAmount, names: [String: IPAddress]
    ) async throws -> AddressGuardProxy {
        let outcomes = NIOLockedValueBox<[String: Outcome]>([:])
        let makeResolver: @Sendable (any EventLoop, String) -> any Resolver & Sendable = { loop, host in
            // A resolver per connection: the system one answers one name, once.
            if let address = names[host.lowercased()] { return FixedAddressResolver(address: address, loop: loop) }
            return NIORandomizedDNSResolver(loop: loop)
        }
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.addHandler(
                        ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes)), name: GuardConnectHandler.decoderName)
                    try child.pipeline.syncOperations.addHandler(GuardConnectHandler(
                        access: access, connectTimeout: connectTimeout, makeResolver: makeResolver,
                        record: { authority, outcome in outcomes.withLockedValue { $0[authority] = outcome } }))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return AddressGuardProxy(channel: channel, outcomes: outcomes)
    }

    private init(channel: any Channel, outcomes: NIOLockedValueBox<[String: Outcome]>) {
        self.channel = channel
        self.port = channel.localAddress?.port ?? 0
        self.outcomes = outcomes
    }

    /// What happened to the last `CONNECT` to `host:port` that did not get through.
    func outcome(host: String, port: Int) -> Outcome? {
        outcomes.withLockedValue { $0[GuardConnectHandler.authority(host: host, port: port)] }
    }

    /// Stops listening; relays under way go on until their connections close.
    func shutdown() {
        channel.close(promise: nil)
    }
}
#endif
