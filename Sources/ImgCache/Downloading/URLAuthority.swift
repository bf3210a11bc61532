/// The scheme, host and port of an absolute `http`/`https` URL, parsed without Foundation so that
/// proxy decisions are pure and behave the same on every platform.
///
/// Only what proxy selection needs: no percent-decoding, no IDNA (callers hand in URLs that are
/// already serialised, so hosts are ASCII). Visible to the package's transports, which connect
/// to the same host and port.
package struct URLAuthority: Equatable, Sendable {
    /// `"http"` or `"https"`, lowercased.
    package var scheme: String
    /// Lowercased, without IPv6 brackets or a trailing dot.
    package var host: String
    /// The explicit port, or the scheme's default (80, 443).
    package var port: Int

    /// Parses `url`; nil unless it is an absolute http(s) URL with a host and a valid port.
    package init?(_ url: String) {
        guard let separator = url.range(of: "://") else { return nil }
        let scheme = url[..<separator.lowerBound].lowercased()
        let defaultPort: Int
        switch scheme {
        case "http": defaultPort = 80
        case "https": defaultPort = 443
        default: return nil
        }
        let rest = url[separator.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let (host, port) = Self.hostAndPort(authority, defaultPort: defaultPort) else { return nil }
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    /// Splits `[userinfo@]host[:port]` (host may be a bracketed IPv6 literal). The host comes back
    /// lowercased without brackets or a trailing dot; nil when the host is empty or the port invalid.
    static func hostAndPort(_ authority: Substring, defaultPort: Int) -> (host: String, port: Int)? {
        // Credentials end at the last "@" (a password may itself contain "@").
        var hostPort = authority
        if let at = hostPort.lastIndex(of: "@") { hostPort = hostPort[hostPort.index(after: at)...] }

        var host: Substring
        var portText: Substring?
        if hostPort.hasPrefix("[") {
            guard let close = hostPort.firstIndex(of: "]") else { return nil }
            host = hostPort[hostPort.index(after: hostPort.startIndex)..<close]
            let after = hostPort[hostPort.index(after: close)...]
            if after.hasPrefix(":") {
                portText = after.dropFirst()
            } else if !after.isEmpty {
                return nil
            }
        } else if let colon = hostPort.lastIndex(of: ":") {
            host = hostPort[..<colon]
            portText = hostPort[hostPort.index(after: colon)...]
        } else {
            host = hostPort
        }
        while host.hasSuffix(".") { host = host.dropLast() }
        guard !host.isEmpty, !host.contains(where: { $0 == " " || $0 == "\t" }) else { return nil }

        var port = defaultPort
        if let portText, !portText.isEmpty {  // "host:" means the default port (RFC 3986 §3.2.3)
            guard portText.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(portText),
                (1...65_535).contains(value)
            else { return nil }
            port = value
        }
        return (host.lowercased(), port)
    }
}
