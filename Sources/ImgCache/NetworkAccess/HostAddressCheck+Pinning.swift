extension HostAddressCheck {
    /// The address a request to `url` through a user's proxy is pinned to when private networks
    /// are denied: the host's first address, once every address it has was checked as ``check(_:access:)``
    /// checks them. A proxy told to connect to this address (rather than to the name, which it
    /// would look up again on its own) cannot be led to another one by a second DNS answer.
    /// - Throws: ``TransportError/deniedAddress(host:address:kind:)`` when any address is refused;
    ///   `TransportError.connection` when the host cannot be resolved; `TransportError.invalidRequest`
    ///   when the URL's host cannot be read.
    package static func pinnedAddress(for url: String, access: PrivateNetworkAccess) async throws -> IPAddress {
        guard let authority = URLAuthority(url) else {
            throw TransportError.invalidRequest("no host to check in \(url)")
        }
        let addresses: [IPAddress]
        if let literal = IPAddress(authority.host) {
            addresses = [literal]
        } else {
            addresses = try await resolve(authority.host)
        }
        for address in addresses {
            if let kind = access.refusal(of: address) {
                throw TransportError.deniedAddress(host: authority.host, address: address.description, kind: kind)
            }
        }
        guard let first = addresses.first else { throw TransportError.connection("cannot resolve \(authority.host): no address") }
        return first
    }
}
