// A URL type that parses and serialises exactly as the WHATWG URL Standard's basic URL
// parser does (https://url.spec.whatwg.org/#concept-basic-url-parser), so that URLs taken
// from HTML attributes resolve the way a browser resolves them.
public import Foundation

/// An absolute URL parsed and serialised as browsers do (WHATWG URL Standard).
///
/// What an app does with one is make it from text (``init(_:relativeTo:queryEncoding:)``) and hand
/// it to the library; its text is ``description``, its host ``host`` (as
/// ``DownloadPolicy/allowedHosts`` compares hosts), and ``foundationURL`` has the other parts.
///
/// Two values are equal when their serialisations are equal, as the standard's URL
/// equivalence prescribes.
public struct BrowserURL: Sendable, Hashable, CustomStringConvertible {
    /// A URL's path: a list of segments, or an opaque string (`mailto:`, `data:`, ...).
    enum Path: Sendable, Hashable {
        case segments([String])
        case opaque(String)
    }

    /// The scheme, lower-cased and without the trailing `:`.
    package let scheme: String
    /// The percent-encoded username; empty when absent.
    package let username: String
    /// The percent-encoded password; empty when absent.
    package let password: String
    /// The port, or nil when absent or equal to the scheme's default port.
    package let port: Int?
    /// The percent-encoded query without the leading `?`, or nil when there is none.
    package let query: String?
    /// The percent-encoded fragment without the leading `#`, or nil when there is none.
    @usableFromInline package let fragment: String?
    /// The serialised URL (what a browser's `href` gives).
    @usableFromInline package let serialized: String

    let hostValue: Host?
    let pathValue: Path

    /// Parses `string` (an attribute value as a browser sees it, already entity-decoded) against `base`.
    ///
    /// Returns nil where a browser's URL parser returns failure.
    /// - Parameters:
    ///   - string: The URL string, absolute or relative.
    ///   - base: The base URL that relative references are resolved against.
    ///   - queryEncoding: The document's encoding for the query (the WHATWG "encoding" override for
    ///     non-UTF-8 documents): given text from the query, returns its bytes in that encoding; nil means
    ///     UTF-8. Only used for special schemes other than `ws`/`wss`. It is called with one non-ASCII
    ///     character at a time; for a character the encoding cannot represent, return an empty array
    ///     (or the bytes of `&#NNNN;`) and the query gets `%26%23NNNN%3B`, as the standard specifies.
    public init?(
        _ string: String,
        relativeTo base: BrowserURL? = nil,
        queryEncoding: (@Sendable (String) -> [UInt8])? = nil
    ) {
        // Absolute http(s) URLs already in their serialised form (the rewriter's resolved image
        // URLs nearly all are) give the same answer whatever the base: read off, not parsed.
        if let plain = Self.plainHTTP(string) {
            self = plain
            return
        }
        var parser = BasicURLParser(input: BasicURLParser.preprocess(string), base: base, queryEncoding: queryEncoding)
        guard let url = parser.parse() else { return nil }
        self = url
    }

    init(
        scheme: String, username: String, password: String, host: Host?, port: Int?,
        path: Path, query: String?, fragment: String?
    ) {
        self.scheme = scheme
        self.username = username
        self.password = password
        self.hostValue = host
        self.port = port
        self.pathValue = path
        self.query = query
        self.fragment = fragment
        self.serialized = Self.serialize(
            scheme: scheme, username: username, password: password, host: host, port: port,
            path: path, query: query, fragment: fragment
        )
    }

    /// A URL of these parts, whose serialisation is known to be `serialized`.
    init(scheme: String, host: Host, port: Int?, path: [String], query: String?, serialized: String) {
        self.scheme = scheme
        self.username = ""
        self.password = ""
        self.hostValue = host
        self.port = port
        self.pathValue = .segments(path)
        self.query = query
        self.fragment = nil
        self.serialized = serialized
    }

    /// Resolves `string` against this URL, as `BrowserURL(string, relativeTo: self)`.
    /// - Parameters:
    ///   - string: The URL string, absolute or relative.
    ///   - queryEncoding: See ``init(_:relativeTo:queryEncoding:)``.
    /// - Returns: The resolved URL, or nil where a browser's URL parser fails.
    package func resolve(_ string: String, queryEncoding: (@Sendable (String) -> [UInt8])? = nil) -> BrowserURL? {
        BrowserURL(string, relativeTo: self, queryEncoding: queryEncoding)
    }

    // MARK: - Components

    /// The serialised host (lower-case, punycode, `[v6]`), or nil when the URL has none.
    /// `file:` URLs without a host give the empty string.
    public var host: String? { hostValue?.serialized }

    /// The serialised path: `/`-joined segments, or the opaque path as is.
    package var path: String {
        switch pathValue {
        case .opaque(let path):
            return path
        case .segments(let segments):
            var output = ""
            for segment in segments {
                output += "/"
                output += segment
            }
            return output
        }
    }

    /// The path segments (percent-encoded); empty for URLs with an opaque path.
    package var pathSegments: [String] {
        if case .segments(let segments) = pathValue { return segments }
        return []
    }

    /// Whether the path is opaque (`mailto:x`, `data:...`, `javascript:...`).
    package var hasOpaquePath: Bool {
        if case .opaque = pathValue { return true }
        return false
    }

    /// Whether the scheme is special (http, https, ws, wss, ftp, file).
    package var isSpecial: Bool { Self.isSpecialScheme(scheme) }

    /// Whether the scheme is http or https.
    package var isHTTP: Bool { scheme == "http" || scheme == "https" }

    /// The serialised URL (what a browser's `href` gives).
    public var description: String { serialized }

    /// The serialised URL without its fragment.
    ///
    /// `@inlinable`: the store and the downloader key every image by it, from other modules,
    /// where a call copied the whole URL (its nine strings) to make it.
    @inlinable package var serializedWithoutFragment: String {
        guard let fragment else { return serialized }
        return String(decoding: serialized.utf8.dropLast(fragment.utf8.count + 1), as: UTF8.self)
    }

    /// The URL as a Foundation `URL`, or nil if Foundation does not accept the serialisation.
    public var foundationURL: URL? { URL(string: serialized) }

    // MARK: - Equality

    /// URLs are equal when their serialisations are equal.
    public static func == (lhs: BrowserURL, rhs: BrowserURL) -> Bool {
        lhs.serialized == rhs.serialized
    }

    /// Hashes the serialisation.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(serialized)
    }

    // MARK: - Schemes

    static func isSpecialScheme(_ scheme: String) -> Bool {
        switch scheme {
        case "http", "https", "ws", "wss", "ftp", "file": return true
        default: return false
        }
    }

    static func defaultPort(of scheme: String) -> Int? {
        switch scheme {
        case "http", "ws": return 80
        case "https", "wss": return 443
        case "ftp": return 21
        default: return nil
        }
    }

    // MARK: - Serializer

    private static func serialize(
        scheme: String, username: String, password: String, host: Host?, port: Int?,
        path: Path, query: String?, fragment: String?
    ) -> String {
        var output = scheme
        output += ":"
        if let host {
            output += "//"
            if !username.isEmpty || !password.isEmpty {
                output += username
                if !password.isEmpty {
                    output += ":"
                    output += password
                }
                output += "@"
            }
            output += host.serialized
            if let port {
                output += ":"
                output += String(port)
            }
        }
        switch path {
        case .opaque(let opaque):
            output += opaque
        case .segments(let segments):
            // Keeps "web+demo:/.//not-a-host/" from turning into a URL with a host.
            if host == nil && segments.count > 1 && segments[0].isEmpty {
                output += "/."
            }
            for segment in segments {
                output += "/"
                output += segment
            }
        }
        if let query {
            output += "?"
            output += query
        }
        if let fragment {
            output += "#"
            output += fragment
        }
        return output
    }
}

// MARK: - Basic URL parser

/// The basic URL parser's state machine, without the state-override mode that only the
/// URL setters use.
struct BasicURLParser {
    private enum State {
        case schemeStart, scheme, noScheme, specialRelativeOrAuthority, pathOrAuthority, relative
        case relativeSlash, specialAuthoritySlashes, specialAuthorityIgnoreSlashes, authority, host
        case port, file, fileSlash, fileHost, pathStart, path, opaquePath, query, fragment
    }

    let input: [Unicode.Scalar]
    let base: BrowserURL?
    let queryEncoding: (@Sendable (String) -> [UInt8])?

    private var scheme = ""
    private var isSpecial = false
    private var username: [UInt8] = []
    private var password: [UInt8] = []
    private var host: BrowserURL.Host?
    private var port: Int?
    private var path: [String] = []
    private var opaquePath: [UInt8]?
    private var query: [UInt8]?
    private var fragment: [UInt8]?

    init(input: [Unicode.Scalar], base: BrowserURL?, queryEncoding: (@Sendable (String) -> [UInt8])?) {
        self.input = input
        self.base = base
        self.queryEncoding = queryEncoding
    }

    /// Strips leading and trailing C0 controls and spaces, and removes all tabs and newlines.
    static func preprocess(_ string: String) -> [Unicode.Scalar] {
        var scalars: [Unicode.Scalar] = []
        scalars.reserveCapacity(string.utf8.count)
        for scalar in string.unicodeScalars where scalar != "\t" && scalar != "\n" && scalar != "\r" {
            scalars.append(scalar)
        }
        var end = scalars.count
        while end > 0 && scalars[end - 1].value <= 0x20 { end -= 1 }
        scalars.removeSubrange(end...)
        var start = 0
        while start < end && scalars[start].value <= 0x20 { start += 1 }
        scalars.removeSubrange(..<start)
        return scalars
    }

    private mutating func setScheme(_ newScheme: String) {
        scheme = newScheme
        isSpecial = BrowserURL.isSpecialScheme(newScheme)
    }

    mutating func parse() -> BrowserURL? {
        let count = input.count
        var state = State.schemeStart
        var buffer: [Unicode.Scalar] = []
        var segment: [UInt8] = []
        var atSignSeen = false
        var insideBrackets = false
        var passwordTokenSeen = false
        var pointer = 0

        while true {
            let c: Unicode.Scalar? = pointer < count ? input[pointer] : nil
            let isSlash = c == "/" || (isSpecial && c == "\\")
            switch state {
            case .schemeStart:
                if let c, c.isASCIIAlpha {
                    buffer.append(c.asciiLowercased)
                    state = .scheme
                } else {
                    state = .noScheme
                    pointer -= 1
                }

            case .scheme:
                if let c, c.isASCIIAlpha || c.isASCIIDigit || c == "+" || c == "-" || c == "." {
                    buffer.append(c.asciiLowercased)
                } else if c == ":" {
                    setScheme(String(String.UnicodeScalarView(buffer)))
                    buffer.removeAll()
                    if scheme == "file" {
                        state = .file
                    } else if isSpecial, let base, base.scheme == scheme {
                        state = .specialRelativeOrAuthority
                    } else if isSpecial {
                        state = .specialAuthoritySlashes
                    } else if remaining(after: pointer, startsWith: "/") {
                        state = .pathOrAuthority
                        pointer += 1
                    } else {
                        opaquePath = []
                        state = .opaquePath
                    }
                } else {
                    buffer.removeAll()
                    state = .noScheme
                    pointer = -1
                }

            case .noScheme:
                guard let base else { return nil }
                if case .opaque(let basePath) = base.pathValue {
                    guard c == "#" else { return nil }
                    setScheme(base.scheme)
                    opaquePath = Array(basePath.utf8)
                    query = base.query.map { Array($0.utf8) }
                    fragment = []
                    state = .fragment
                } else if base.scheme != "file" {
                    state = .relative
                    pointer -= 1
                } else {
                    state = .file
                    pointer -= 1
                }

            case .specialRelativeOrAuthority:
                if c == "/" && remaining(after: pointer, startsWith: "/") {
                    state = .specialAuthorityIgnoreSlashes
                    pointer += 1
                } else {
                    state = .relative
                    pointer -= 1
                }

            case .pathOrAuthority:
                if c == "/" {
                    state = .authority
                } else {
                    state = .path
                    pointer -= 1
                }

            case .relative:
                guard let base else { return nil }
                setScheme(base.scheme)
                // The scheme was only just set, so `isSlash` from above does not know it yet.
                if c == "/" || (isSpecial && c == "\\") {
                    state = .relativeSlash
                } else {
                    copyAuthority(from: base)
                    path = base.pathSegments
                    query = base.query.map { Array($0.utf8) }
                    if c == "?" {
                        query = []
                        state = .query
                    } else if c == "#" {
                        fragment = []
                        state = .fragment
                    } else if c != nil {
                        query = nil
                        shortenPath()
                        state = .path
                        pointer -= 1
                    }
                }

            case .relativeSlash:
                if isSpecial && isSlash {
                    state = .specialAuthorityIgnoreSlashes
                } else if c == "/" {
                    state = .authority
                } else {
                    if let base { copyAuthority(from: base) }
                    state = .path
                    pointer -= 1
                }

            case .specialAuthoritySlashes:
                if c == "/" && remaining(after: pointer, startsWith: "/") {
                    state = .specialAuthorityIgnoreSlashes
                    pointer += 1
                } else {
                    state = .specialAuthorityIgnoreSlashes
                    pointer -= 1
                }

            case .specialAuthorityIgnoreSlashes:
                if c != "/" && c != "\\" {
                    state = .authority
                    pointer -= 1
                }

            case .authority:
                if c == "@" {
                    if atSignSeen {
                        if passwordTokenSeen {
                            password.append(contentsOf: [0x25, 0x34, 0x30])
                        } else {
                            username.append(contentsOf: [0x25, 0x34, 0x30])
                        }
                    }
                    atSignSeen = true
                    for codePoint in buffer {
                        if codePoint == ":" && !passwordTokenSeen {
                            passwordTokenSeen = true
                            continue
                        }
                        if passwordTokenSeen {
                            PercentEncoding.append(codePoint, encodingWith: .userinfo, to: &password)
                        } else {
                            PercentEncoding.append(codePoint, encodingWith: .userinfo, to: &username)
                        }
                    }
                    buffer.removeAll()
                } else if c == nil || isSlash || c == "?" || c == "#" {
                    if atSignSeen && buffer.isEmpty { return nil }
                    pointer -= buffer.count + 1
                    buffer.removeAll()
                    state = .host
                } else if let c {
                    buffer.append(c)
                }

            case .host:
                if c == ":" && !insideBrackets {
                    guard !buffer.isEmpty,
                          let parsed = BrowserURL.Host.parse(buffer[...], isOpaque: !isSpecial)
                    else { return nil }
                    host = parsed
                    buffer.removeAll()
                    state = .port
                } else if c == nil || isSlash || c == "?" || c == "#" {
                    pointer -= 1
                    if isSpecial && buffer.isEmpty { return nil }
                    guard let parsed = BrowserURL.Host.parse(buffer[...], isOpaque: !isSpecial) else { return nil }
                    host = parsed
                    buffer.removeAll()
                    state = .pathStart
                } else if let c {
                    if c == "[" { insideBrackets = true }
                    if c == "]" { insideBrackets = false }
                    buffer.append(c)
                }

            case .port:
                if let c, c.isASCIIDigit {
                    buffer.append(c)
                } else if c == nil || isSlash || c == "?" || c == "#" {
                    if !buffer.isEmpty {
                        var value = 0
                        for digit in buffer {
                            value = value * 10 + Int(digit.value - 0x30)
                            if value > 65535 { return nil }
                        }
                        port = value == BrowserURL.defaultPort(of: scheme) ? nil : value
                        buffer.removeAll()
                    }
                    state = .pathStart
                    pointer -= 1
                } else {
                    return nil
                }

            case .file:
                setScheme("file")
                host = .empty
                if c == "/" || c == "\\" {
                    state = .fileSlash
                } else if let base, base.scheme == "file" {
                    host = base.hostValue
                    path = base.pathSegments
                    query = base.query.map { Array($0.utf8) }
                    if c == "?" {
                        query = []
                        state = .query
                    } else if c == "#" {
                        fragment = []
                        state = .fragment
                    } else if c != nil {
                        query = nil
                        if !startsWithWindowsDriveLetter(at: pointer) {
                            shortenPath()
                        } else {
                            path = []
                        }
                        state = .path
                        pointer -= 1
                    }
                } else {
                    state = .path
                    pointer -= 1
                }

            case .fileSlash:
                if c == "/" || c == "\\" {
                    state = .fileHost
                } else {
                    if let base, base.scheme == "file" {
                        host = base.hostValue
                        if !startsWithWindowsDriveLetter(at: pointer),
                           let first = base.pathSegments.first,
                           Self.isWindowsDriveLetter(Array(first.utf8), normalized: true) {
                            path.append(first)
                        }
                    }
                    state = .path
                    pointer -= 1
                }

            case .fileHost:
                if c == nil || c == "/" || c == "\\" || c == "?" || c == "#" {
                    pointer -= 1
                    if buffer.count == 2 && buffer[0].isASCIIAlpha && (buffer[1] == ":" || buffer[1] == "|") {
                        // Windows drive letter quirk: the buffer becomes the first path segment.
                        segment = buffer.map { UInt8($0.value) }
                        buffer.removeAll()
                        state = .path
                    } else if buffer.isEmpty {
                        host = .empty
                        state = .pathStart
                    } else {
                        guard var parsed = BrowserURL.Host.parse(buffer[...], isOpaque: !isSpecial) else { return nil }
                        if parsed == .domain("localhost") { parsed = .empty }
                        host = parsed
                        buffer.removeAll()
                        state = .pathStart
                    }
                } else if let c {
                    buffer.append(c)
                }

            case .pathStart:
                if isSpecial {
                    state = .path
                    if !isSlash { pointer -= 1 }
                } else if c == "?" {
                    query = []
                    state = .query
                } else if c == "#" {
                    fragment = []
                    state = .fragment
                } else if c != nil {
                    state = .path
                    if c != "/" { pointer -= 1 }
                }

            case .path:
                if c == nil || isSlash || c == "?" || c == "#" {
                    if Self.isDoubleDotSegment(segment) {
                        shortenPath()
                        if !isSlash { path.append("") }
                    } else if Self.isSingleDotSegment(segment) {
                        if !isSlash { path.append("") }
                    } else {
                        if scheme == "file" && path.isEmpty && Self.isWindowsDriveLetter(segment, normalized: false) {
                            segment[1] = 0x3A
                        }
                        path.append(String(decoding: segment, as: UTF8.self))
                    }
                    segment.removeAll(keepingCapacity: true)
                    if c == "?" {
                        query = []
                        state = .query
                    } else if c == "#" {
                        fragment = []
                        state = .fragment
                    }
                } else if let c {
                    PercentEncoding.append(c, encodingWith: .path, to: &segment)
                }

            case .opaquePath:
                if c == "?" {
                    query = []
                    state = .query
                } else if c == "#" {
                    fragment = []
                    state = .fragment
                } else if c == " " {
                    if remaining(after: pointer, startsWith: "?") || remaining(after: pointer, startsWith: "#") {
                        opaquePath?.append(contentsOf: [0x25, 0x32, 0x30])
                    } else {
                        opaquePath?.append(0x20)
                    }
                } else if let c {
                    PercentEncoding.append(c, encodingWith: .c0Control, to: &opaquePath!)
                }

            case .query:
                if c == "#" || c == nil {
                    appendToQuery(buffer)
                    buffer.removeAll()
                    if c == "#" {
                        fragment = []
                        state = .fragment
                    }
                } else if let c {
                    buffer.append(c)
                }

            case .fragment:
                if let c {
                    PercentEncoding.append(c, encodingWith: .fragment, to: &fragment!)
                }
            }

            if pointer >= count { break }
            pointer += 1
        }

        return BrowserURL(
            scheme: scheme,
            username: String(decoding: username, as: UTF8.self),
            password: String(decoding: password, as: UTF8.self),
            host: host,
            port: port,
            path: opaquePath.map { .opaque(String(decoding: $0, as: UTF8.self)) } ?? .segments(path),
            query: query.map { String(decoding: $0, as: UTF8.self) },
            fragment: fragment.map { String(decoding: $0, as: UTF8.self) }
        )
    }

    // MARK: - Helpers

    private func remaining(after pointer: Int, startsWith scalar: Unicode.Scalar) -> Bool {
        pointer + 1 < input.count && input[pointer + 1] == scalar
    }

    private mutating func copyAuthority(from base: BrowserURL) {
        username = Array(base.username.utf8)
        password = Array(base.password.utf8)
        host = base.hostValue
        port = base.port
    }

    /// Removes the last path segment, except a lone normalised drive letter of a file URL.
    private mutating func shortenPath() {
        if scheme == "file" && path.count == 1 && Self.isWindowsDriveLetter(Array(path[0].utf8), normalized: true) {
            return
        }
        if !path.isEmpty { path.removeLast() }
    }

    /// Whether the input from `index` starts with a Windows drive letter (`c:`, `c|`, followed by
    /// the end or one of `/\?#`).
    private func startsWithWindowsDriveLetter(at index: Int) -> Bool {
        guard index >= 0, input.count - index >= 2,
              input[index].isASCIIAlpha,
              input[index + 1] == ":" || input[index + 1] == "|"
        else { return false }
        if input.count - index == 2 { return true }
        let third = input[index + 2]
        return third == "/" || third == "\\" || third == "?" || third == "#"
    }

    private static func isWindowsDriveLetter(_ bytes: [UInt8], normalized: Bool) -> Bool {
        guard bytes.count == 2, (bytes[0] | 0x20) >= 0x61, (bytes[0] | 0x20) <= 0x7A else { return false }
        return bytes[1] == 0x3A || (!normalized && bytes[1] == 0x7C)
    }

    /// Counts `.` / `%2e` units if `segment` consists of nothing else, or returns nil.
    private static func dotCount(_ segment: [UInt8]) -> Int? {
        var index = 0
        var dots = 0
        while index < segment.count {
            if segment[index] == 0x2E {
                index += 1
            } else if segment[index] == 0x25, index + 2 < segment.count,
                      segment[index + 1] == 0x32, segment[index + 2] | 0x20 == 0x65 {
                index += 3
            } else {
                return nil
            }
            dots += 1
            if dots > 2 { return nil }
        }
        return dots
    }

    private static func isSingleDotSegment(_ segment: [UInt8]) -> Bool {
        segment.count <= 3 && dotCount(segment) == 1
    }

    private static func isDoubleDotSegment(_ segment: [UInt8]) -> Bool {
        segment.count <= 6 && dotCount(segment) == 2
    }

    /// Percent-encodes the query buffer (after encoding it with the document's encoding, if any).
    private mutating func appendToQuery(_ buffer: [Unicode.Scalar]) {
        let set: PercentEncodeSet = isSpecial ? .specialQuery : .query
        let encoder = isSpecial && scheme != "ws" && scheme != "wss" ? queryEncoding : nil
        var output = query ?? []
        for scalar in buffer {
            guard let encoder, scalar.value >= 0x80 else {
                PercentEncoding.append(scalar, encodingWith: set, to: &output)
                continue
            }
            let bytes = encoder(String(Character(scalar)))
            if bytes.isEmpty || bytes == Array("&#\(scalar.value);".utf8) {
                output.append(contentsOf: Array("%26%23\(scalar.value)%3B".utf8))
            } else {
                for byte in bytes {
                    PercentEncoding.append(byte: byte, encodingWith: set, to: &output)
                }
            }
        }
        query = output
    }
}

private extension Unicode.Scalar {
    var isASCIIAlpha: Bool {
        (value >= 0x41 && value <= 0x5A) || (value >= 0x61 && value <= 0x7A)
    }

    var isASCIIDigit: Bool {
        value >= 0x30 && value <= 0x39
    }

    var asciiLowercased: Unicode.Scalar {
        value >= 0x41 && value <= 0x5A ? Unicode.Scalar(value + 0x20)! : self
    }
}
