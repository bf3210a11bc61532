public import Foundation
import ImgCacheURLs

/// Which HTTP proxy, if any, a request goes through.
///
/// Built from the conventional environment variables (``fromEnvironment(_:)``) or from the proxies
/// themselves (``init(httpProxy:httpsProxy:noProxy:)``), then asked per URL (`proxy(for:)`) because
/// `no_proxy` exempts some hosts. Only plain-HTTP proxies are supported: `https` URLs reach them
/// through a `CONNECT` tunnel. Credentials in a proxy URL are ignored.
public struct ProxySettings: Sendable, Hashable {
    /// A proxy server's address.
    public struct Endpoint: Sendable, Hashable {
        /// The proxy's host name or IP address (IPv6 without brackets).
        public var host: String
        /// The proxy's TCP port.
        public var port: Int

        /// Creates an endpoint.
        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }
    }

    /// The proxy for `http` URLs, or nil to connect directly.
    public var httpProxy: Endpoint?
    /// The proxy for `https` URLs (tunnelled with `CONNECT`), or nil to connect directly.
    public var httpsProxy: Endpoint?
    /// Hosts that are always reached directly (parsed `no_proxy` entries).
    var exemptions: [NoProxyRule]

    /// No proxy at all: every request connects directly.
    package static let direct = ProxySettings()

    /// Creates settings from explicit proxies and `no_proxy`-style exemptions (e.g.
    /// `["localhost", ".internal.example", "10.0.0.1:8080"]`).
    public init(httpProxy: Endpoint? = nil, httpsProxy: Endpoint? = nil, noProxy: [String] = []) {
        self.httpProxy = httpProxy
        self.httpsProxy = httpsProxy
        self.exemptions = noProxy.compactMap { NoProxyRule(Substring($0)) }
    }

    /// One proxy for both `http` and `https` URLs, with no exemptions: what `--proxy` gives (an
    /// app passes the same endpoint as both proxies).
    ///
    /// Accepts `http://host:port`, `http://host` (port 80) and `host:port`; nil for anything else,
    /// including `https://` and `socks5://` proxies, which are not supported.
    package init?(proxy: String) {
        guard let endpoint = Self.parseProxy(proxy) else { return nil }
        self.init(httpProxy: endpoint, httpsProxy: endpoint)
    }

    /// Reads `http_proxy`, `https_proxy` and `no_proxy` (the lowercase name wins over the
    /// uppercase one, as in curl; an empty value counts as unset). A value that cannot be parsed
    /// means no proxy for that scheme. `no_proxy` is a comma-separated list: see
    /// `proxy(for:)` for how entries match.
    public static func fromEnvironment(_ env: [String: String] = ProcessInfo.processInfo.environment) -> ProxySettings {
        func value(_ name: String) -> String? {
            for key in [name.lowercased(), name.uppercased()] {
                if let value = env[key], !value.trimmingHTTPSpace().isEmpty { return value }
            }
            return nil
        }
        var settings = ProxySettings(
            httpProxy: value("http_proxy").flatMap(parseProxy),
            httpsProxy: value("https_proxy").flatMap(parseProxy))
        if let list = value("no_proxy") {
            settings.exemptions = list.split { $0 == "," || $0 == " " || $0 == "\t" }.compactMap(NoProxyRule.init)
        }
        return settings
    }

    /// Whether every request connects directly.
    package var isDirect: Bool { httpProxy == nil && httpsProxy == nil }

    /// The proxy to use for `url`, or nil to connect directly.
    ///
    /// Nil also for URLs that are not absolute `http`/`https` ones, and for hosts exempted by a
    /// `no_proxy` entry: `*` exempts everything; `example.com`, `.example.com` and `*.example.com`
    /// exempt that domain and its subdomains; an IP address exempts only itself; `entry:port` only
    /// that port. Matching is case-insensitive, and `localhost` / `127.0.0.1` are exempt only when
    /// listed.
    package func proxy(for url: String) -> (host: String, port: Int)? {
        guard !isDirect, let target = URLAuthority(url) else { return nil }
        guard let endpoint = target.scheme == "https" ? httpsProxy : httpProxy else { return nil }
        if exemptions.contains(where: { $0.matches(host: target.host, port: target.port) }) { return nil }
        return (endpoint.host, endpoint.port)
    }

    /// Parses a proxy URL: `http://[user@]host[:port][/]` or `host[:port]`; default port 80.
    static func parseProxy(_ text: String) -> Endpoint? {
        var rest = Substring(text).trimmingHTTPSpace()
        if let separator = rest.range(of: "://") {
            guard rest[..<separator.lowerBound].lowercased() == "http" else { return nil }
            rest = rest[separator.upperBound...]
        }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let path = rest[authority.endIndex...]
        guard path.isEmpty || path == "/" else { return nil }
        guard let (host, port) = URLAuthority.hostAndPort(authority, defaultPort: 80) else { return nil }
        return Endpoint(host: host, port: port)
    }
}
