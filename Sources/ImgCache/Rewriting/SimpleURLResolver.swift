/// Resolves the plain URLs that make up nearly every page (`/img/a.png`, `img/a.png`,
/// `https://cdn.example.com/a.png?w=300`) without running the full URL parser.
///
/// It accepts only inputs for which the URL Standard's parser is known to produce the input
/// itself (or the base's origin and directory followed by it): ASCII characters that no encode
/// set touches, no dot segments, no percent signs, a lowercase host name with no port, no
/// userinfo and nothing that could be an IP address or punycode. Everything else returns nil and
/// goes to `BrowserURL`. A test holds it to the parser's answers.
struct SimpleURLResolver: Sendable {
    /// `scheme://host[:port]` of the base, and its path up to its last `/`.
    private let origin: [UInt8]
    private let directory: [UInt8]

    /// Nil unless the base is an http(s) URL.
    init?(base: BrowserURL?) {
        guard let base, base.isHTTP, base.host != nil else { return nil }
        let serialized = Array(base.serialized.utf8)
        // scheme "://" then the authority, which ends at the path's first "/".
        guard let schemeEnd = serialized.firstIndex(of: UInt8(ascii: ":")),
              let pathStart = serialized[(schemeEnd + 3)...].firstIndex(of: UInt8(ascii: "/")) else { return nil }
        origin = Array(serialized[..<pathStart])
        let pathEnd = serialized[pathStart...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? serialized.endIndex
        let lastSlash = serialized[pathStart..<pathEnd].lastIndex(of: UInt8(ascii: "/")) ?? pathStart
        directory = Array(serialized[pathStart...lastSlash])
    }

    /// Bytes that every part of a URL keeps as they are (no encode set of the URL Standard
    /// contains them, for path, query or fragment of a special URL).
    static let plain: [Bool] = {
        var table = [Bool](repeating: false, count: 128)
        for byte in Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/!$&()*+,;=:@?".utf8) {
            table[Int(byte)] = true
        }
        return table
    }()

    private static func isHostByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    /// What the bytes of a URL text resolve to.
    private enum Outcome {
        case needsParser
        /// The text is its own serialisation (an absolute URL, as most srcset candidates are):
        /// given back as it is, with no copy to make and check.
        case input
        case serialized(String)
    }

    /// The serialised absolute URL, or nil when the input needs the full parser.
    func resolve(_ text: String) -> String? {
        // On the bytes themselves: through `String.UTF8View` every step was a generic index
        // operation, and this runs for every distinct URL of a page.
        var text = text
        switch text.withUTF8({ resolve(bytes: $0) }) {
        case .needsParser: return nil
        case .input: return text
        case .serialized(let serialized): return serialized
        }
    }

    private func resolve(bytes input: UnsafeBufferPointer<UInt8>) -> Outcome {
        guard let first = input.first, input.count < 2048 else { return .needsParser }
        let plain = Self.plain
        for byte in input where byte >= 128 || !plain[Int(byte)] { return .needsParser }
        if first == UInt8(ascii: "/") {
            // Path-absolute; "//host" would be scheme-relative.
            if input.dropFirst().first == UInt8(ascii: "/") { return .needsParser }
            guard Self.hasNoDotSegments(input[...]) else { return .needsParser }
            return .serialized(Self.concatenated(origin, [], input))
        } else if first == UInt8(ascii: "?") {
            return .needsParser
        } else if let colon = input.firstIndex(of: UInt8(ascii: ":")),
                  !input[..<colon].contains(UInt8(ascii: "/")), !input[..<colon].contains(UInt8(ascii: "?")) {
            // Has a scheme: only plain lowercase http(s) URLs with a simple host.
            return Self.absolute(input)
        } else {
            guard Self.hasNoDotSegments(input[...], relative: true) else { return .needsParser }
            return .serialized(Self.concatenated(origin, directory, input))
        }
    }

    /// The ASCII bytes of the three parts, written straight into a string's storage.
    private static func concatenated(_ first: [UInt8], _ second: [UInt8], _ third: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: first.count + second.count + third.count) { buffer in
            var end = buffer.initialize(fromContentsOf: first)
            end = buffer[end...].initialize(fromContentsOf: second)
            return buffer[end...].initialize(fromContentsOf: third)
        }
    }

    private static func absolute(_ bytes: UnsafeBufferPointer<UInt8>) -> Outcome {
        let prefixLength: Int
        if startsWith("http://", bytes) {
            prefixLength = 7
        } else if startsWith("https://", bytes) {
            prefixLength = 8
        } else {
            return .needsParser
        }
        let authorityEnd = bytes[prefixLength...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? bytes.count
        let host = bytes[prefixLength..<authorityEnd]
        guard isPlainDomain(host) else { return .needsParser }
        let rest = UnsafeBufferPointer(rebasing: bytes[authorityEnd...])
        if rest.first == UInt8(ascii: "/") {
            guard hasNoDotSegments(rest) else { return .needsParser }
            return .input
        }
        // An empty path serialises as "/".
        return .serialized(concatenated(Array(bytes[..<authorityEnd]), [UInt8(ascii: "/")], rest))
    }

    private static func startsWith(_ prefix: StaticString, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        prefix.withUTF8Buffer { prefix in
            guard bytes.count >= prefix.count else { return false }
            for index in prefix.indices where bytes[index] != prefix[index] { return false }
            return true
        }
    }

    /// Whether the parser keeps `host` (of an http(s) URL) as it is, as a domain.
    static func isPlainDomain(_ host: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        !host.isEmpty && host.allSatisfy(isHostByte) && host.first != UInt8(ascii: ".") && host.first != UInt8(ascii: "-")
            && !containsEmptyLabel(host) && !hasIPv4OrPunycodeLabel(host)
    }

    private static func containsEmptyLabel(_ host: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        var previousWasDot = false
        for byte in host {
            if byte == UInt8(ascii: ".") {
                if previousWasDot { return true }
                previousWasDot = true
            } else {
                previousWasDot = false
            }
        }
        return false
    }

    /// A last label that starts with a digit makes the host an IPv4 address (or a failure);
    /// `xn--` labels are checked by IDNA. Either way: the full parser's job. Read label by label
    /// in place: splitting made an array for every URL.
    private static func hasIPv4OrPunycodeLabel(_ host: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        var lastLabelFirst: UInt8?
        var labelStart = host.startIndex
        while labelStart < host.endIndex {
            let labelEnd = host[labelStart...].firstIndex(of: UInt8(ascii: ".")) ?? host.endIndex
            if labelEnd > labelStart {
                if labelEnd - labelStart >= 4, host[labelStart] == UInt8(ascii: "x"), host[labelStart + 1] == UInt8(ascii: "n"),
                   host[labelStart + 2] == UInt8(ascii: "-"), host[labelStart + 3] == UInt8(ascii: "-") { return true }
                lastLabelFirst = host[labelStart]
            }
            labelStart = labelEnd + 1
        }
        guard let digit = lastLabelFirst else { return false }
        return digit >= UInt8(ascii: "0") && digit <= UInt8(ascii: "9")
    }

    /// True when no path segment (before any `?`) is `.` or `..`, which the parser would remove.
    static func hasNoDotSegments(_ input: some Collection<UInt8>, relative: Bool = false) -> Bool {
        var segmentLength = 0
        var dots = 0
        for byte in input {
            if byte == UInt8(ascii: "?") { break }
            if byte == UInt8(ascii: "/") {
                if segmentLength > 0, segmentLength == dots, dots <= 2 { return false }
                segmentLength = 0
                dots = 0
            } else {
                segmentLength += 1
                if byte == UInt8(ascii: ".") { dots += 1 }
            }
        }
        return !(segmentLength > 0 && segmentLength == dots && dots <= 2)
    }
}
