import ImgCacheSupport
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
        switch url.withUTF8Bytes(Self.parse(ascii:)) {
        case .parsed(let authority):
            self = authority
        case .invalid:
            return nil
        case .notASCII:
            guard let authority = Self(characters: url) else { return nil }
            self = authority
        }
    }

    /// The reading over Characters, for a URL that is not ASCII.
    init?(characters url: String) {
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

    private enum ASCIIParse {
        case parsed(URLAuthority)
        case invalid
        case notASCII
    }

    /// The same reading as `init(characters:)` and `hostAndPort`, over the bytes of an ASCII URL
    /// (where each byte is a Character, and lowercasing is ASCII's). Every URL a transport sends is
    /// a serialisation, so ASCII: the Character path costs far more, on every URL sent.
    private static func parse(ascii bytes: UnsafeBufferPointer<UInt8>) -> ASCIIParse {
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return .notASCII }
        let colon = UInt8(ascii: ":"), slash = UInt8(ascii: "/")
        var separator = 0
        while true {
            guard separator + 3 <= bytes.count else { return .invalid }
            if bytes[separator] == colon, bytes[separator + 1] == slash, bytes[separator + 2] == slash { break }
            separator += 1
        }
        let scheme: String
        let defaultPort: Int
        let schemeBytes = bytes[..<separator]
        if schemeBytes.elementsEqual("http".utf8, by: { $0.asciiLowercased == $1 }) {
            (scheme, defaultPort) = ("http", 80)
        } else if schemeBytes.elementsEqual("https".utf8, by: { $0.asciiLowercased == $1 }) {
            (scheme, defaultPort) = ("https", 443)
        } else {
            return .invalid
        }
        let authorityStart = separator + 3
        let authorityEnd = bytes[authorityStart...].firstIndex {
            $0 == slash || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
        } ?? bytes.count
        var hostStart = authorityStart
        if let at = bytes[authorityStart..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) { hostStart = at + 1 }
        var hostEnd: Int
        var portRange: Range<Int>?
        if hostStart < authorityEnd, bytes[hostStart] == UInt8(ascii: "[") {
            guard let close = bytes[hostStart..<authorityEnd].firstIndex(of: UInt8(ascii: "]")) else { return .invalid }
            hostEnd = close
            hostStart += 1
            if close + 1 < authorityEnd {
                guard bytes[close + 1] == colon else { return .invalid }
                portRange = (close + 2)..<authorityEnd
            }
        } else if let lastColon = bytes[hostStart..<authorityEnd].lastIndex(of: colon) {
            hostEnd = lastColon
            portRange = (lastColon + 1)..<authorityEnd
        } else {
            hostEnd = authorityEnd
        }
        while hostEnd > hostStart, bytes[hostEnd - 1] == UInt8(ascii: ".") { hostEnd -= 1 }
        guard hostEnd > hostStart,
              !bytes[hostStart..<hostEnd].contains(where: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") })
        else { return .invalid }
        var port = defaultPort
        if let portRange, !portRange.isEmpty {  // "host:" means the default port (RFC 3986 §3.2.3)
            var value = 0
            for byte in bytes[portRange] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), value <= 65_535 else { return .invalid }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            guard (1...65_535).contains(value) else { return .invalid }
            port = value
        }
        let host = String(unsafeUninitializedCapacity: hostEnd - hostStart) { buffer in
            for (offset, byte) in bytes[hostStart..<hostEnd].enumerated() {
                buffer[offset] = byte.asciiLowercased
            }
            return hostEnd - hostStart
        }
        return .parsed(URLAuthority(scheme: scheme, host: host, port: port))
    }

    private init(scheme: String, host: String, port: Int) {
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    /// Splits `[userinfo@]host[:port]` (host may be a bracketed IPv6 literal). The host comes back
    /// lowercased without brackets or a trailing dot; nil when the host is empty or the port invalid.
    package static func hostAndPort(_ authority: Substring, defaultPort: Int) -> (host: String, port: Int)? {
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
