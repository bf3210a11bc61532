#if CommandLine
/// Where a proxied request goes, read from its request target.
enum ProxyTarget: Equatable {
    /// An absolute-form `http://host[:port]/path?query` request, to forward as `GET /path?query`.
    case forward(host: String, port: Int, authority: String, originForm: String)
    /// A `CONNECT host:port` request, to tunnel.
    case tunnel(host: String, port: Int)
    /// Anything else, with the status to answer and why.
    case refused(status: Int, reason: String)

    init(method: String, target: String) {
        if method == "CONNECT" {
            guard let (host, port) = Self.hostAndPort(target, defaultPort: nil) else {
                self = .refused(status: 400, reason: "CONNECT needs host:port, got \(target)")
                return
            }
            self = .tunnel(host: host, port: port)
            return
        }
        guard target.lowercased().hasPrefix("http://") else {
            self =
                target.contains("://")
                ? .refused(status: 501, reason: "only http:// URLs are forwarded, got \(target)")
                : .refused(status: 400, reason: "a proxy needs an absolute URL, got \(target)")
            return
        }
        let rest = target.dropFirst("http://".count)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = String(rest[..<authorityEnd])
        var originForm = String(rest[authorityEnd...])
        if let fragment = originForm.firstIndex(of: "#") { originForm = String(originForm[..<fragment]) }
        if !originForm.hasPrefix("/") { originForm = "/" + originForm }
        guard !authority.contains("@"), let (host, port) = Self.hostAndPort(authority, defaultPort: 80) else {
            self = .refused(status: 400, reason: "bad host in \(target)")
            return
        }
        self = .forward(host: host, port: port, authority: authority, originForm: originForm)
    }

    /// Splits `host:port` (or `[v6]:port`); without a port, `defaultPort` (none: invalid).
    static func hostAndPort(_ authority: String, defaultPort: Int?) -> (String, Int)? {
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority[...]
        }
        guard !host.isEmpty else { return nil }
        let port: Int
        if let portText {
            guard let number = Int(portText), (1...65_535).contains(number) else { return nil }
            port = number
        } else {
            guard let defaultPort else { return nil }
            port = defaultPort
        }
        return (String(host), port)
    }
}
#endif
