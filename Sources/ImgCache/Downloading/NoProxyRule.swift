import ImgCacheURLs
/// One entry of a `no_proxy` list, matched the way curl matches it.
///
/// - `*` matches every host.
/// - `example.com`, `.example.com` and `*.example.com` all match `example.com` and any host under
///   it (`img.example.com`), but not `badexample.com`.
/// - An IP address matches only itself (no CIDR ranges).
/// - `host:port` matches only requests to that port (the URL's explicit or default port).
/// - Comparison is case-insensitive; nothing is exempt implicitly, so `localhost` and `127.0.0.1`
///   bypass the proxy only when they are listed.
struct NoProxyRule: Hashable, Sendable {
    enum Pattern: Hashable, Sendable {
        case everyHost
        /// A domain name: the host itself or any subdomain.
        case domain(String)
        /// An IPv4 or IPv6 literal: that address only.
        case address(String)
    }

    var pattern: Pattern
    /// When set, only requests to this port are matched.
    var port: Int?

    /// Parses one entry; nil for an empty or malformed one.
    init?(_ entry: Substring) {
        let text = entry.trimmingHTTPSpace().lowercased()
        guard !text.isEmpty else { return nil }
        if text == "*" {
            pattern = .everyHost
            port = nil
            return
        }
        var name = Substring(text)
        if name.hasPrefix("*.") {
            name = name.dropFirst(2)
        } else if name.hasPrefix(".") {
            name = name.dropFirst()
        }
        // A bare IPv6 literal has several colons and no port; anything else may end in ":port".
        let colonCount = name.filter { $0 == ":" }.count
        let host: String
        if colonCount > 1 && !name.hasPrefix("[") {
            host = String(name)
            port = nil
        } else {
            guard let parsed = URLAuthority.hostAndPort(name, defaultPort: 0) else { return nil }
            host = parsed.host
            port = parsed.port == 0 ? nil : parsed.port
        }
        pattern = Self.isAddress(host) ? .address(host) : .domain(host)
    }

    /// Whether a request to `host` (lowercased, no brackets) on `port` goes direct.
    func matches(host: String, port: Int) -> Bool {
        if let rulePort = self.port, rulePort != port { return false }
        switch pattern {
        case .everyHost:
            return true
        case .address(let address):
            return host == address
        case .domain(let domain):
            return host == domain || host.hasSuffix("." + domain)
        }
    }

    private static func isAddress(_ host: String) -> Bool {
        host.contains(":") || host.allSatisfy { ($0.isASCII && $0.isNumber) || $0 == "." }
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    func trimmingHTTPSpace() -> Substring {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return slice
    }
}
