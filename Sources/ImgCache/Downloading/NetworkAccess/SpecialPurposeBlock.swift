/// A block of addresses no image server should be reached at, as ``PrivateNetworkAccess/denied(except:)``
/// refuses them: one row per entry of IANA's IPv4 and IPv6 Special-Purpose Address Registries
/// (RFC 6890 and the RFCs since) that the registry marks not globally reachable, and the blocks
/// that are no place for a server for another reason (multicast, broadcast, IPv4's reserved
/// 240.0.0.0/4, deprecated site-local IPv6).
///
/// Registry entries inside a refused block are refused with it, globally reachable or not: the
/// anycast addresses 192.0.0.9 and 192.0.0.10 (in 192.0.0.0/24), and 2001:1::1–3, AMT
/// (2001:3::/32), AS112 (2001:4:112::/48), ORCHIDv2 (2001:20::/28) and drone entity tags
/// (2001:30::/28), all in 2001::/23: none serves images. The globally reachable entries outside
/// refused blocks (AS112 and AMT's 192.31.196.0/24, 192.52.193.0/24, 192.175.48.0/24 and
/// 2620:4f:8000::/48) are not refused.
struct SpecialPurposeBlock: Sendable {
    /// How an IPv6 block reaches an IPv4 host; that host's address is judged instead.
    enum IPv4Reach: Sendable {
        /// In the last 32 bits: IPv4-mapped, IPv4-compatible, and the well-known NAT64 prefix
        /// `64:ff9b::/96` (RFC 6052).
        case last32Bits
        /// In bits 16..47: 6to4 (RFC 3056), through whichever relay the route finds.
        case sixToFour
        /// The local-use NAT64 prefix `64:ff9b:1::/48` (RFC 8215). Its operator carves a prefix of
        /// any RFC 6052 length out of it (a /96 most often), which moves the IPv4 address: read as
        /// a /48 prefix it may look public while a /96 translator reaches a private host. So it is
        /// read at the /48, /56, /64 and /96 positions, and every reading must pass; past the /48
        /// one, a reading in 0.0.0.0/8 is the zero padding of a shorter prefix, and would reach
        /// no host anyway. The u-octet (bits 64..71) must be zero, as RFC 6052 requires.
        case localUseNAT64

        /// The IPv4 addresses `address` reaches, each of which must be allowed; nil when it is not
        /// a well-formed address of its kind.
        func ipv4Addresses(in address: IPAddress) -> [IPAddress]? {
            switch self {
            case .last32Bits:
                return [address.ipv4(fromByte: 12)]
            case .sixToFour:
                return [address.ipv4(fromByte: 2)]
            case .localUseNAT64:
                guard address.bytes[8] == 0 else { return nil }
                let readings = [6, 7, 9, 12].map { address.ipv4(fromByte: $0) }
                return [readings[0]] + readings.dropFirst().filter { $0.bytes[0] != 0 }
            }
        }
    }

    /// The block.
    let range: AddressRange
    /// The registry's name for it.
    let name: String
    /// The RFC that set it aside.
    let rfc: String
    /// What a refusal calls an address in it: "a loopback address".
    let kind: String
    /// Set when the block's addresses stand for IPv4 hosts, which decide instead of the block.
    let reach: IPv4Reach?

    private init(_ range: String, _ name: String, _ rfc: String, _ kind: String, reaching reach: IPv4Reach? = nil) {
        self.range = AddressRange(range)!
        self.name = name
        self.rfc = rfc
        self.kind = kind
        self.reach = reach
    }

    /// The most specific block that holds `address` (so 192.0.0.170 is a NAT64 discovery address
    /// rather than any IETF protocol assignment); nil for an address in none.
    static func containing(_ address: IPAddress) -> SpecialPurposeBlock? {
        var found: SpecialPurposeBlock?
        for block in address.isIPv4 ? ipv4 : ipv6 where block.range.contains(address) {
            if block.range.prefixLength > found?.range.prefixLength ?? -1 { found = block }
        }
        return found
    }

    /// IANA IPv4 Special-Purpose Address Registry, and the multicast block.
    static let ipv4: [SpecialPurposeBlock] = [
        .init("0.0.0.0/8", "This network", "RFC 791, section 3.2", "an unspecified address"),
        .init("0.0.0.0/32", "This host on this network", "RFC 1122, section 3.2.1.3", "an unspecified address"),
        .init("10.0.0.0/8", "Private-Use", "RFC 1918", "a private address"),
        .init("100.64.0.0/10", "Shared Address Space", "RFC 6598", "a shared (carrier-grade NAT) address"),
        .init("127.0.0.0/8", "Loopback", "RFC 1122, section 3.2.1.3", "a loopback address"),
        .init("169.254.0.0/16", "Link Local", "RFC 3927", "a link-local address"),
        .init("172.16.0.0/12", "Private-Use", "RFC 1918", "a private address"),
        // Also where Oracle Cloud's older metadata service answers (192.0.0.192).
        .init("192.0.0.0/24", "IETF Protocol Assignments", "RFC 6890, section 2.1", "a reserved address"),
        .init("192.0.0.0/29", "IPv4 Service Continuity Prefix", "RFC 7335", "a reserved (DS-Lite) address"),
        .init("192.0.0.8/32", "IPv4 dummy address", "RFC 7600", "a reserved (dummy) address"),
        .init("192.0.0.170/32", "NAT64/DNS64 Discovery", "RFC 8880, RFC 7050", "a reserved (NAT64 discovery) address"),
        .init("192.0.0.171/32", "NAT64/DNS64 Discovery", "RFC 8880, RFC 7050", "a reserved (NAT64 discovery) address"),
        .init("192.0.2.0/24", "Documentation (TEST-NET-1)", "RFC 5737", "a documentation address"),
        .init("192.88.99.0/24", "Deprecated (6to4 Relay Anycast)", "RFC 7526", "a reserved (6to4 relay) address"),
        .init("192.168.0.0/16", "Private-Use", "RFC 1918", "a private address"),
        .init("198.18.0.0/15", "Benchmarking", "RFC 2544", "a benchmarking address"),
        .init("198.51.100.0/24", "Documentation (TEST-NET-2)", "RFC 5737", "a documentation address"),
        .init("203.0.113.0/24", "Documentation (TEST-NET-3)", "RFC 5737", "a documentation address"),
        // Not in the registry: IANA's IPv4 Multicast Address Space Registry.
        .init("224.0.0.0/4", "Multicast", "RFC 5771", "a multicast address"),
        .init("240.0.0.0/4", "Reserved", "RFC 1112, section 4", "a reserved address"),
        .init("255.255.255.255/32", "Limited Broadcast", "RFC 8190, RFC 919 section 7", "a broadcast address"),
    ]

    /// IANA IPv6 Special-Purpose Address Registry, and the blocks of the IPv6 Address Space
    /// registry that are not unicast on the internet (IPv4-compatible, site-local, multicast).
    static let ipv6: [SpecialPurposeBlock] = [
        .init("::/128", "Unspecified Address", "RFC 4291", "an unspecified address"),
        .init("::1/128", "Loopback Address", "RFC 4291", "a loopback address"),
        // Not in the registry: deprecated, but the system may still take it for the IPv4 host.
        .init("::/96", "IPv4-Compatible IPv6 Address", "RFC 4291, section 2.5.5.1", "an IPv4-compatible address", reaching: .last32Bits),
        .init("::ffff:0:0/96", "IPv4-mapped Address", "RFC 4291", "an IPv4-mapped address", reaching: .last32Bits),
        // Not in the registry: only meaningful inside a stateless translator's domain.
        .init("::ffff:0:0:0/96", "IPv4-translated Address (SIIT)", "RFC 7915, RFC 6052", "a reserved (IPv4-translated) address"),
        .init("64:ff9b::/96", "IPv4-IPv6 Translat.", "RFC 6052", "a NAT64 address", reaching: .last32Bits),
        .init("64:ff9b:1::/48", "IPv4-IPv6 Translat.", "RFC 8215", "a local-use NAT64 address", reaching: .localUseNAT64),
        .init("100::/64", "Discard-Only Address Block", "RFC 6666", "a discard-only address"),
        .init("100:0:0:1::/64", "Dummy IPv6 Prefix", "RFC 9780", "a reserved (dummy) address"),
        .init("2001::/23", "IETF Protocol Assignments", "RFC 2928", "a reserved address"),
        // Teredo addresses carry their server's IPv4 address and their client's, obfuscated, but
        // a Teredo relay reaches whatever host is behind that client's NAT: refused whole.
        .init("2001::/32", "TEREDO", "RFC 4380, RFC 8190", "a Teredo address"),
        .init("2001:2::/48", "Benchmarking", "RFC 5180, RFC Errata 1752", "a benchmarking address"),
        .init("2001:10::/28", "Deprecated (previously ORCHID)", "RFC 4843", "a reserved address"),
        .init("2001:db8::/32", "Documentation", "RFC 3849", "a documentation address"),
        .init("2002::/16", "6to4", "RFC 3056", "a 6to4 address", reaching: .sixToFour),
        .init("3fff::/20", "Documentation", "RFC 9637", "a documentation address"),
        .init("5f00::/16", "Segment Routing (SRv6) SIDs", "RFC 9602", "a segment routing (SRv6) address"),
        .init("fc00::/7", "Unique-Local", "RFC 4193, RFC 8190", "a private (unique local) address"),
        .init("fe80::/10", "Link-Local Unicast", "RFC 4291", "a link-local address"),
        // Not in the registry: deprecated by RFC 3879, yet still routed inside some networks.
        .init("fec0::/10", "Site-Local Unicast (deprecated)", "RFC 3879", "a private (site-local) address"),
        // Not in the registry: IANA's IPv6 Multicast Address Space Registry.
        .init("ff00::/8", "Multicast", "RFC 4291", "a multicast address"),
    ]
}
