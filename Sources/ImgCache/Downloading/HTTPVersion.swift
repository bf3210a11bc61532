/// The HTTP version a response came over, as the transport reports it.
///
/// The downloader uses it to decide how many requests one host may take at once: HTTP/1.x carries
/// one request per connection at a time, so requests to a host are bounded by the connections a
/// client should open to it; HTTP/2 and HTTP/3 multiplex many requests on one connection.
public enum HTTPVersion: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// HTTP/1.0 or HTTP/1.1.
    case http1 = "HTTP/1.1"
    /// HTTP/2 (negotiated with ALPN `h2`).
    case http2 = "HTTP/2"
    /// HTTP/3 (QUIC), which Apple platforms' `URLSession` may use.
    case http3 = "HTTP/3"

    /// Whether requests share one connection as concurrent streams.
    package var multiplexes: Bool { self != .http1 }

    /// "HTTP/2"
    public var description: String { rawValue }

    /// The version named by an ALPN protocol identifier or `URLSessionTaskMetrics.networkProtocolName`
    /// (`"h2"`, `"h3"`, `"http/1.1"`, …); nil for anything else.
    package init?(protocolName: String) {
        let name = protocolName.lowercased()
        switch name {
        case "http/1.0", "http/1.1": self = .http1
        case "h2", "h2c", "http/2", "http/2.0": self = .http2
        case "h3", "http/3": self = .http3
        default:
            guard name.hasPrefix("h3-") else { return nil }  // drafts, e.g. "h3-29"
            self = .http3
        }
    }
}
