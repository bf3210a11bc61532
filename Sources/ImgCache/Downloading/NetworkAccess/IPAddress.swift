// `package`: `init(socketAddress:)` takes the system's `sockaddr`.
#if canImport(Glibc)
package import Glibc
#elseif canImport(Darwin)
package import Darwin
#endif

/// An IPv4 or IPv6 address, as the bytes a socket connects to.
package struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// 4 bytes for IPv4, 16 for IPv6, in network order.
    package let bytes: [UInt8]

    /// An address from its bytes; nil unless there are 4 or 16 of them.
    package init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses a literal: dotted IPv4 (`10.0.0.1`) or IPv6 (`fe80::1`, with or without brackets).
    /// Nil for host names and anything else.
    package init?(_ literal: String) {
        var text = literal
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        // A zone (`fe80::1%eth0`) names an interface, not part of the address.
        if let percent = text.firstIndex(of: "%") { text = String(text[..<percent]) }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self.bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            self.bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return
        }
        return nil
    }

    /// The address a socket address holds; nil for a family other than IPv4 and IPv6. `address`
    /// must have room for the family's whole structure (a `sockaddr_in6` for IPv6).
    package init?(socketAddress address: UnsafePointer<sockaddr>) {
        let raw = UnsafeRawPointer(address)
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            var v4 = raw.loadUnaligned(as: sockaddr_in.self).sin_addr
            self.bytes = withUnsafeBytes(of: &v4) { Array($0) }
        case AF_INET6:
            var v6 = raw.loadUnaligned(as: sockaddr_in6.self).sin6_addr
            self.bytes = withUnsafeBytes(of: &v6) { Array($0) }
        default:
            return nil
        }
    }

    /// Whether this is an IPv4 address.
    package var isIPv4: Bool { bytes.count == 4 }

    /// The IPv4 address written in an IPv6 one's four bytes from `start`, skipping byte 8: where
    /// RFC 6052 puts it for each prefix length (bits 64..71, the u-octet, are never part of it), and
    /// where IPv4-mapped (`::ffff:a.b.c.d`, from byte 12) and 6to4 (`2002:aabb:ccdd::`, from byte 2)
    /// addresses put it. `start` is at most 12, on an IPv6 address.
    func ipv4(fromByte start: Int) -> IPAddress {
        precondition(bytes.count == 16 && (0...12).contains(start), "an IPv4 address is 4 bytes of an IPv6 one")
        let indices = (start..<16).lazy.filter { $0 != 8 }.prefix(4)
        return IPAddress(bytes: indices.map { bytes[$0] })!
    }

    /// `10.0.0.1`, `fe80::1`.
    package var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = isIPv4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count))
        }
        guard written != nil else { return bytes.map(String.init).joined(separator: ".") }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
