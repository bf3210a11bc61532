/// Whether images (and pages) may come from addresses that are not on the public internet.
///
/// A build server that localises pages it did not write is an easy way in to its own network: an
/// `<img src="http://169.254.169.254/latest/meta-data/…">` would fetch the cloud's credentials
/// into the cache, and a name in DNS can point anywhere. ``denied(except:)`` refuses loopback,
/// private, shared (carrier-grade NAT, where some clouds keep their metadata service),
/// link-local and unspecified addresses, checked on the address a connection is actually made to:
/// after DNS, and again for each redirect.
public enum PrivateNetworkAccess: Hashable, Sendable {
    /// Any address may be connected to (the default).
    case allowed
    /// Only public addresses, and those in `exceptions` (say, a company CDN at `10.2.0.0/16`).
    case denied(except: [AddressRange] = [])

    /// Whether connections have to be checked.
    package var isRestricted: Bool {
        if case .denied = self { return true }
        return false
    }

    /// Why `address` may not be connected to ("a loopback address"), or nil when it may.
    package func refusal(of address: IPAddress) -> String? {
        guard case .denied(let exceptions) = self else { return nil }
        if exceptions.contains(where: { $0.contains(address) }) { return nil }
        if let embedded = address.embeddedIPv4 {
            if exceptions.contains(where: { $0.contains(embedded) }) { return nil }
            return Self.deniedBlocks.first { $0.range.contains(embedded) }.map { $0.kind }
        }
        return Self.deniedBlocks.first { $0.range.contains(address) }.map { $0.kind }
    }

    /// The blocks refused, and what each is called in a refusal.
    static let deniedBlocks: [(range: AddressRange, kind: String)] = [
        ("0.0.0.0/8", "an unspecified address"),
        ("127.0.0.0/8", "a loopback address"),
        ("10.0.0.0/8", "a private address"),
        ("172.16.0.0/12", "a private address"),
        ("192.168.0.0/16", "a private address"),
        ("100.64.0.0/10", "a shared (carrier-grade NAT) address"),
        ("169.254.0.0/16", "a link-local address"),
        ("::/128", "an unspecified address"),
        ("::1/128", "a loopback address"),
        ("fc00::/7", "a private (unique local) address"),
        ("fec0::/10", "a private (site-local) address"),
        ("fe80::/10", "a link-local address"),
    ].map { (AddressRange($0.0)!, $0.1) }
}
