import Testing
@testable import ImgCache

@Suite("Private network access: which addresses are refused")
struct PrivateNetworkAccessTests {
    /// An address inside one refused block, and what a refusal calls it.
    struct BlockExample: Sendable, CustomTestStringConvertible {
        let block: String
        /// An address in the block; for a block whose addresses stand for IPv4 hosts, one that
        /// stands for a refused host.
        let inside: String
        let kind: String
        /// For a block whose addresses stand for IPv4 hosts: one that stands for a public host.
        var reachingPublicHost: String?

        var testDescription: String { "\(block) (\(inside))" }
    }

    /// One row per row of the table of refused blocks (a test below checks that none is missing).
    static let blocks: [BlockExample] = [
        .init(block: "0.0.0.0/8", inside: "0.1.2.3", kind: "an unspecified address"),
        .init(block: "0.0.0.0/32", inside: "0.0.0.0", kind: "an unspecified address"),
        .init(block: "10.0.0.0/8", inside: "10.1.2.3", kind: "a private address"),
        .init(block: "100.64.0.0/10", inside: "100.100.100.200", kind: "a shared (carrier-grade NAT) address"),
        .init(block: "127.0.0.0/8", inside: "127.200.0.9", kind: "a loopback address"),
        .init(block: "169.254.0.0/16", inside: "169.254.169.254", kind: "a link-local address"),
        .init(block: "172.16.0.0/12", inside: "172.31.255.255", kind: "a private address"),
        .init(block: "192.0.0.0/24", inside: "192.0.0.192", kind: "a reserved address"),
        .init(block: "192.0.0.0/29", inside: "192.0.0.1", kind: "a reserved (DS-Lite) address"),
        .init(block: "192.0.0.8/32", inside: "192.0.0.8", kind: "a reserved (dummy) address"),
        .init(block: "192.0.0.170/32", inside: "192.0.0.170", kind: "a reserved (NAT64 discovery) address"),
        .init(block: "192.0.0.171/32", inside: "192.0.0.171", kind: "a reserved (NAT64 discovery) address"),
        .init(block: "192.0.2.0/24", inside: "192.0.2.10", kind: "a documentation address"),
        .init(block: "192.88.99.0/24", inside: "192.88.99.1", kind: "a reserved (6to4 relay) address"),
        .init(block: "192.168.0.0/16", inside: "192.168.1.1", kind: "a private address"),
        .init(block: "198.18.0.0/15", inside: "198.19.255.1", kind: "a benchmarking address"),
        .init(block: "198.51.100.0/24", inside: "198.51.100.7", kind: "a documentation address"),
        .init(block: "203.0.113.0/24", inside: "203.0.113.9", kind: "a documentation address"),
        .init(block: "224.0.0.0/4", inside: "239.255.255.250", kind: "a multicast address"),
        .init(block: "240.0.0.0/4", inside: "240.0.0.1", kind: "a reserved address"),
        .init(block: "255.255.255.255/32", inside: "255.255.255.255", kind: "a broadcast address"),

        .init(block: "::/128", inside: "::", kind: "an unspecified address"),
        .init(block: "::1/128", inside: "::1", kind: "a loopback address"),
        .init(block: "::/96", inside: "::10.0.0.1", kind: "a private address", reachingPublicHost: "::8.8.8.8"),
        .init(block: "::ffff:0:0/96", inside: "::ffff:127.0.0.1", kind: "a loopback address", reachingPublicHost: "::ffff:1.1.1.1"),
        .init(block: "::ffff:0:0:0/96", inside: "::ffff:0:a00:1", kind: "a reserved (IPv4-translated) address"),
        .init(block: "64:ff9b::/96", inside: "64:ff9b::a00:1", kind: "a private address", reachingPublicHost: "64:ff9b::808:808"),
        // RFC 6052's /48 layout: 10.0.0.1 in bits 48..63 and 72..87, around the u-octet.
        .init(block: "64:ff9b:1::/48", inside: "64:ff9b:1:a00:0:100::", kind: "a private address",
              reachingPublicHost: "64:ff9b:1:5db8:d7:e00::"),
        .init(block: "100::/64", inside: "100::1", kind: "a discard-only address"),
        .init(block: "100:0:0:1::/64", inside: "100:0:0:1::1", kind: "a reserved (dummy) address"),
        .init(block: "2001::/23", inside: "2001:1::1", kind: "a reserved address"),
        // RFC 4380's example: server 65.54.227.120, client 192.0.2.45 behind its NAT.
        .init(block: "2001::/32", inside: "2001:0:4136:e378:8000:63bf:3fff:fdd2", kind: "a Teredo address"),
        .init(block: "2001:2::/48", inside: "2001:2::1", kind: "a benchmarking address"),
        .init(block: "2001:10::/28", inside: "2001:10::1", kind: "a reserved address"),
        .init(block: "2001:db8::/32", inside: "2001:db8::1", kind: "a documentation address"),
        .init(block: "2002::/16", inside: "2002:7f00:1::1", kind: "a loopback address", reachingPublicHost: "2002:808:808::1"),
        .init(block: "3fff::/20", inside: "3fff:fff::1", kind: "a documentation address"),
        .init(block: "5f00::/16", inside: "5f00:1::1", kind: "a segment routing (SRv6) address"),
        .init(block: "fc00::/7", inside: "fd12:3456::1", kind: "a private (unique local) address"),
        .init(block: "fe80::/10", inside: "fe80::1", kind: "a link-local address"),
        .init(block: "fec0::/10", inside: "fec0::1", kind: "a private (site-local) address"),
        .init(block: "ff00::/8", inside: "ff02::1", kind: "a multicast address"),
    ]

    @Test("an address in each refused block is refused and called what it is; one that stands for a public IPv4 host is not",
          arguments: blocks)
    func refused(example: BlockExample) throws {
        let address = try #require(IPAddress(example.inside))
        #expect(try #require(AddressRange(example.block)).contains(address), "the example lies in its block")
        #expect(PrivateNetworkAccess.denied().refusal(of: address) == example.kind)
        #expect(PrivateNetworkAccess.allowed.refusal(of: address) == nil)
        if let reachingPublicHost = example.reachingPublicHost {
            let publicForm = try #require(IPAddress(reachingPublicHost))
            #expect(try #require(AddressRange(example.block)).contains(publicForm))
            #expect(PrivateNetworkAccess.denied().refusal(of: publicForm) == nil)
        }
    }

    @Test("every refused block has its example above")
    func everyBlockTested() {
        let tested = Set(Self.blocks.compactMap { AddressRange($0.block) })
        let table = Set((SpecialPurposeBlock.ipv4 + SpecialPurposeBlock.ipv6).map(\.range))
        #expect(tested == table, "untested: \(table.subtracting(tested)); not in the table: \(tested.subtracting(table))")
    }

    @Test("Teredo and IPv4-translated addresses are refused whichever IPv4 address they carry",
          arguments: ["2001:0:4136:e378:8000:63bf:f7f7:f7f7", "::ffff:0:808:808"])
    func refusedWhateverTheyCarry(address: String) throws {
        #expect(PrivateNetworkAccess.denied().refusal(of: try #require(IPAddress(address))) != nil)
    }

    @Test("a local-use NAT64 address is refused when any prefix length inside 64:ff9b:1::/48 would reach a refused host",
          arguments: [
              // A /96 translator at 64:ff9b:1:abcd::/96 reaches 10.0.0.1; read as /48 it says 171.205.0.0.
              ("64:ff9b:1:abcd::a00:1", "a private address"),
              // A /64 translator reaches 127.0.0.1.
              ("64:ff9b:1:808:7f::100:0", "a loopback address"),
              // A /56 translator reaches 192.168.1.0.
              ("64:ff9b:1:8c0:a8:100::", "a private address"),
              // The u-octet is not zero: no RFC 6052 address.
              ("64:ff9b:1:5db8:ffd7:e00::", "a local-use NAT64 address"),
          ])
    func localUseNAT64(address: String, kind: String) throws {
        #expect(PrivateNetworkAccess.denied().refusal(of: try #require(IPAddress(address))) == kind)
    }

    @Test("public addresses pass",
          arguments: ["93.184.215.14", "8.8.8.8", "1.1.1.1", "172.32.0.1", "192.169.0.1", "100.128.0.1", "198.20.0.1",
                      "223.255.255.255", "192.0.1.1", "192.31.196.1", "2606:4700::1", "2606:4700::1111", "2a00:1450:4001::200e",
                      "2001:200::1", "2620:4f:8000::1", "::ffff:1.1.1.1"])
    func publicAddresses(address: String) throws {
        #expect(PrivateNetworkAccess.denied().refusal(of: try #require(IPAddress(address))) == nil)
    }

    @Test("an exception lets its block through, and only it")
    func exceptions() throws {
        let access = PrivateNetworkAccess.denied(except: [try #require(AddressRange("10.2.0.0/16")), try #require(AddressRange("fd00::5"))])
        #expect(access.refusal(of: IPAddress("10.2.3.4")!) == nil)
        #expect(access.refusal(of: IPAddress("::ffff:10.2.3.4")!) == nil)
        #expect(access.refusal(of: IPAddress("10.3.0.1")!) == "a private address")
        #expect(access.refusal(of: IPAddress("fd00::5")!) == nil)
        #expect(access.refusal(of: IPAddress("fd00::6")!) == "a private (unique local) address")
        // IPv6 forms of an excepted IPv4 host: 6to4, NAT64 (local-use: 10.2.3.4 at the /48 position).
        #expect(access.refusal(of: IPAddress("2002:a02:304::1")!) == nil)
        #expect(access.refusal(of: IPAddress("64:ff9b::a02:304")!) == nil)
        #expect(access.refusal(of: IPAddress("64:ff9b:1:a02:3:400::")!) == nil)
        #expect(access.refusal(of: IPAddress("2002:a03:1::1")!) == "a private address")
        let benchmarks = PrivateNetworkAccess.denied(except: [try #require(AddressRange("198.18.0.0/15"))])
        #expect(benchmarks.refusal(of: IPAddress("198.18.0.1")!) == nil)
        #expect(benchmarks.refusal(of: IPAddress("::ffff:198.18.0.1")!) == nil)
    }

    @Test("CIDR blocks parse, with the bits past the prefix cleared; nonsense does not")
    func parsing() {
        #expect(AddressRange("10.9.8.7/8")?.description == "10.0.0.0/8")
        #expect(AddressRange("fe80::1/10")?.description == "fe80::/10")
        #expect(AddressRange("1.2.3.4")?.description == "1.2.3.4/32")
        #expect(AddressRange("[::1]")?.description == "::1/128")
        for bad in ["10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/-1", "example.com/8", "10.0.0/8", "", "/8", "10.0.0.0/8/8"] {
            #expect(AddressRange(bad) == nil, "\(bad)")
        }
        #expect(IPAddress("localhost") == nil)
        #expect(IPAddress("fe80::1%eth0")?.description == "fe80::1")
    }
}
