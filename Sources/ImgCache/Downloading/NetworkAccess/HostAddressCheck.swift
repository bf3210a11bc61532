import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ImgCacheURLs

/// Looks up a URL's host and checks every address it has against ``PrivateNetworkAccess``, for
/// transports that cannot check the address they connect to (`URLSession`, a user's own).
package enum HostAddressCheck {
    /// Throws ``TransportError/deniedAddress(host:address:kind:)`` when the host is, or resolves
    /// to, any refused address; `TransportError.connection` when it cannot be resolved;
    /// `TransportError.invalidRequest` when no host can be read from `url`.
    package static func check(_ url: String, access: PrivateNetworkAccess) async throws {
        guard access.isRestricted else { return }
        _ = try await checkedAddresses(of: url, access: access)
    }

    /// The addresses of `url`'s host, every one of them allowed by `access`; throws as
    /// ``check(_:access:)`` does.
    static func checkedAddresses(of url: String, access: PrivateNetworkAccess) async throws -> (host: String, addresses: [IPAddress]) {
        // A URL whose host this parser cannot find may still be one a transport can send: its
        // address would then go unchecked.
        guard let authority = URLAuthority(url) else {
            throw TransportError.invalidRequest("cannot find the host of \(url) to check its addresses, and private networks are denied")
        }
        let addresses: [IPAddress]
        if let literal = IPAddress(authority.host) {
            addresses = [literal]
        } else {
            addresses = try await resolve(authority.host)
        }
        try check(addresses, of: authority.host, access: access)
        return (authority.host, addresses)
    }

    /// Throws ``TransportError/deniedAddress(host:address:kind:)`` for the first of `host`'s
    /// `addresses` that `access` refuses. Every address, not just the first: a transport may
    /// connect to any of them.
    package static func check(_ addresses: [IPAddress], of host: String, access: PrivateNetworkAccess) throws {
        for address in addresses {
            if let kind = access.refusal(of: address) {
                throw TransportError.deniedAddress(host: host, address: address.description, kind: kind)
            }
        }
    }

    /// The host's addresses from `getaddrinfo`, which blocks: it runs on a Dispatch thread, not on
    /// the cooperative pool (nor on the file-work queues).
    package static func resolve(_ host: String) async throws -> [IPAddress] {
        let result: Result<[IPAddress], TransportError> = await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(returning: lookUp(host))
            }
        }
        return try result.get()
    }

    private static func lookUp(_ host: String) -> Result<[IPAddress], TransportError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0 else {
            return .failure(.connection("cannot resolve \(host): \(String(cString: gai_strerror(status)))"))
        }
        defer { freeaddrinfo(list) }
        var addresses: [IPAddress] = []
        var entry = list
        while let current = entry {
            if let address = current.pointee.ai_addr, let ip = IPAddress(socketAddress: address) {
                addresses.append(ip)
            }
            entry = current.pointee.ai_next
        }
        return .success(addresses)
    }
}
