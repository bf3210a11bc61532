import Testing
@testable import ImgCache

@Suite("Private network access: which addresses are refused")
struct PrivateNetworkAccessTests {
    @Test("loopback, private, shared, link-local and unspecified addresses are refused, public ones are not",
          arguments: [
              ("127.0.0.1", "a loopback address"), ("127.200.0.9", "a loopback address"),
              ("10.1.2.3", "a private address"), ("172.16.0.1", "a private address"), ("172.31.255.255", "a private address"),
              ("192.168.1.1", "a private address"), ("169.254.169.254", "a link-local address"),
              ("100.100.100.200", "a shared (carrier-grade NAT) address"), ("0.0.0.0", "an unspecified address"),
              ("::1", "a loopback address"), ("::", "an unspecified address"), ("fd12:3456::1", "a private (unique local) address"),
              ("fe80::1", "a link-local address"),
              // IPv6 forms that reach an IPv4 host are judged by that host.
              ("::ffff:127.0.0.1", "a loopback address"), ("::ffff:169.254.169.254", "a link-local address"),
              ("64:ff9b::a00:1", "a private address"),
          ])
    func refused(address: String, kind: String) throws {
        let parsed = try #require(IPAddress(address))
        #expect(PrivateNetworkAccess.denied().refusal(of: parsed) == kind)
        #expect(PrivateNetworkAccess.allowed.refusal(of: parsed) == nil)
    }

    @Test("public addresses pass", arguments: ["8.8.8.8", "172.32.0.1", "192.169.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:1.1.1.1"])
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
