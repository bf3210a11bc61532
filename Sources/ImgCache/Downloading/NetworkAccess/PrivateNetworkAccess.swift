/// Whether images (and pages) may come from addresses that are not on the public internet.
///
/// A build server that localises pages it did not write is an easy way in to its own network: an
/// `<img src="http://169.254.169.254/latest/meta-data/…">` would fetch the cloud's credentials
/// into the cache, and a name in DNS can point anywhere. ``denied(except:)`` refuses every block
/// that IANA's IPv4 and IPv6 Special-Purpose Address Registries mark not globally reachable, and
/// multicast, broadcast and reserved addresses, checked on the address a connection is actually
/// made to: after DNS, and again for each redirect.
///
/// IPv4: 0.0.0.0/8 (unspecified), 10.0.0.0/8, 172.16.0.0/12 and 192.168.0.0/16 (private),
/// 100.64.0.0/10 (shared, carrier-grade NAT, where some clouds keep their metadata service),
/// 127.0.0.0/8 (loopback), 169.254.0.0/16 (link-local, where cloud metadata services live),
/// 192.0.0.0/24 (IETF protocol assignments), 192.0.2.0/24, 198.51.100.0/24 and 203.0.113.0/24
/// (documentation), 192.88.99.0/24 (the former 6to4 relays), 198.18.0.0/15 (benchmarking),
/// 224.0.0.0/4 (multicast), 240.0.0.0/4 (reserved) and 255.255.255.255 (broadcast).
///
/// IPv6: `::` and `::1`, `::ffff:0:0:0/96` (IPv4-translated), `100::/64` (discard) and
/// `100:0:0:1::/64`, `2001::/23` (IETF protocol assignments: Teredo's `2001::/32` and
/// benchmarking's `2001:2::/48` included), `2001:db8::/32` and `3fff::/20` (documentation),
/// `5f00::/16` (SRv6), `fc00::/7` (unique local), `fe80::/10` (link-local), `fec0::/10`
/// (site-local) and `ff00::/8` (multicast). An IPv6 address that reaches an IPv4 host is judged by
/// that host: IPv4-mapped (`::ffff:10.0.0.1`) and IPv4-compatible (`::10.0.0.1`), NAT64
/// (`64:ff9b::/96`, and `64:ff9b:1::/48` read at every RFC 6052 position a prefix inside it can
/// put the IPv4 address), and 6to4 (`2002::/16`).
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
        return Self.refusal(of: address, except: exceptions)
    }

    private static func refusal(of address: IPAddress, except exceptions: [AddressRange]) -> String? {
        if exceptions.contains(where: { $0.contains(address) }) { return nil }
        guard let block = SpecialPurposeBlock.containing(address) else { return nil }
        guard let reach = block.reach else { return block.kind }
        // An IPv6 address that stands for an IPv4 host is judged by that host (an exception
        // covering the host lets it through too).
        guard let hosts = reach.ipv4Addresses(in: address) else { return block.kind }
        return hosts.lazy.compactMap { refusal(of: $0, except: exceptions) }.first
    }
}
