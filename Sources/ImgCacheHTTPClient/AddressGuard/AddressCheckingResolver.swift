#if CommandLine
import ImgCache
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A resolver that drops the addresses ``PrivateNetworkAccess`` refuses from what DNS answers, so
/// that a connection can only be made to an allowed one, and remembers the first it dropped (to
/// say why, when none is left).
///
/// Checking the answers that the connection is made from, rather than looking the name up once
/// more beforehand, is what keeps a name that answers differently the second time (DNS rebinding)
/// out of private networks.
final class AddressCheckingResolver: Resolver, Sendable {
    private let underlying: any Resolver & Sendable
    private let access: PrivateNetworkAccess
    private let firstRefusal = NIOLockedValueBox<(address: IPAddress, kind: String)?>(nil)

    init(underlying: any Resolver & Sendable, access: PrivateNetworkAccess) {
        self.underlying = underlying
        self.access = access
    }

    /// The first address dropped and why, if any was.
    var refusal: (address: IPAddress, kind: String)? { firstRefusal.withLockedValue { $0 } }

    func initiateAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
        underlying.initiateAQuery(host: host, port: port).map { self.allowed($0) }
    }

    func initiateAAAAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
        underlying.initiateAAAAQuery(host: host, port: port).map { self.allowed($0) }
    }

    func cancelQueries() {
        underlying.cancelQueries()
    }

    private func allowed(_ addresses: [SocketAddress]) -> [SocketAddress] {
        addresses.filter { socketAddress in
            guard let address = IPAddress(socketAddress) else { return false }
            guard let kind = access.refusal(of: address) else { return true }
            firstRefusal.withLockedValue { if $0 == nil { $0 = (address, kind) } }
            return false
        }
    }
}

extension IPAddress {
    /// The IP address of a socket address; nil for a Unix domain socket.
    init?(_ socketAddress: SocketAddress) {
        switch socketAddress {
        case .v4(let v4):
            var raw = v4.address.sin_addr
            self.init(bytes: withUnsafeBytes(of: &raw) { Array($0) })
        case .v6(let v6):
            var raw = v6.address.sin6_addr
            self.init(bytes: withUnsafeBytes(of: &raw) { Array($0) })
        case .unixDomainSocket:
            return nil
        }
    }
}

/// Answers with one fixed address: a test's way to make a public-looking name resolve to a
/// private address without touching `/etc/hosts`.
struct FixedAddressResolver: Resolver, Sendable {
    let address: IPAddress
    let loop: any EventLoop

    func initiateAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
        loop.makeSucceededFuture(address.isIPv4 ? [socketAddress(port: port)] : [])
    }

    func initiateAAAAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
        loop.makeSucceededFuture(address.isIPv4 ? [] : [socketAddress(port: port)])
    }

    func cancelQueries() {}

    private func socketAddress(port: Int) -> SocketAddress {
        // The address came from IPAddress's own parser or bytes: its description always parses.
        try! SocketAddress(ipAddress: address.description, port: port)
    }
}
#endif
