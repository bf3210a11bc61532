extension HostAddressCheck {
    /// The address a request to `url` through a user's proxy is pinned to when private networks
    /// are denied: the host's first address, once every address it has was checked as
    /// ``check(_:access:)`` checks them. A proxy told to connect to this address (rather than to
    /// the name, which it would look up again on its own) cannot be led to another one by a
    /// second DNS answer.
    /// - Throws: as ``check(_:access:)``; `TransportError.connection` when the host has no address.
    package static func pinnedAddress(for url: String, access: PrivateNetworkAccess) async throws -> IPAddress {
        let (host, addresses) = try await checkedAddresses(of: url, access: access)
        guard let first = addresses.first else { throw TransportError.connection("cannot resolve \(host): no address") }
        return first
    }
}
