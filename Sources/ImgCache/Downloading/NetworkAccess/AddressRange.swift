/// A block of addresses in CIDR notation: `10.0.0.0/8`, `fe80::/10`, or one address.
public struct AddressRange: Hashable, Sendable, CustomStringConvertible {
    /// The first address of the block.
    package let network: IPAddress
    /// How many leading bits are fixed.
    package let prefixLength: Int

    /// A block from its first address and prefix length; the address's bits past the prefix are
    /// cleared. Nil when the length is out of range for the address family.
    package init?(network: IPAddress, prefixLength: Int) {
        guard prefixLength >= 0, prefixLength <= network.bytes.count * 8 else { return nil }
        var bytes = network.bytes
        for index in bytes.indices {
            let keep = min(8, max(0, prefixLength - index * 8))
            bytes[index] &= keep == 0 ? 0 : UInt8(truncatingIfNeeded: 0xff << (8 - keep))
        }
        self.network = IPAddress(bytes: bytes)!
        self.prefixLength = prefixLength
    }

    /// Parses `a.b.c.d/n`, `x::/n`, or a single address (a /32 or /128).
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(String(parts[0])) else { return nil }
        if parts.count == 1 {
            self.init(network: address, prefixLength: address.bytes.count * 8)
            return
        }
        guard !parts[1].isEmpty, parts[1].allSatisfy(\.isASCIIDigit), let length = Int(parts[1]) else { return nil }
        self.init(network: address, prefixLength: length)
    }

    /// Whether `address` is in the block (never, across address families).
    package func contains(_ address: IPAddress) -> Bool {
        guard address.bytes.count == network.bytes.count else { return false }
        var remaining = prefixLength
        for (candidate, fixed) in zip(address.bytes, network.bytes) where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xff << (8 - bits))
            if candidate & mask != fixed { return false }
            remaining -= bits
        }
        return true
    }

    /// `10.0.0.0/8`.
    public var description: String { "\(network)/\(prefixLength)" }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
