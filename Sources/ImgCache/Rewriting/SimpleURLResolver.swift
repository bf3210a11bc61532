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
    private static let plain: [Bool] = {
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

    /// The serialised absolute URL, or nil when the input needs the full parser.
    func resolve(_ text: String) -> String? {
        // On the bytes themselves: through `String.UTF8View` every step was a generic index
        // operation, and this runs for every distinct URL of a page.
        var text = text
        return text.withUTF8 { resolve(bytes: $0) }
    }

    private func resolve(bytes input: UnsafeBufferPointer<UInt8>) -> String? {
        guard let first = input.first, input.count < 2048 else { return nil }
        let plain = Self.plain
        for byte in input where byte >= 128 || !plain[Int(byte)] { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(origin.count + directory.count + input.count)
        if first == UInt8(ascii: "/") {
            // Path-absolute; "//host" would be scheme-relative.
            if input.dropFirst().first == UInt8(ascii: "/") { return nil }
            guard Self.hasNoDotSegments(input[...]) else { return nil }
            output += origin
            output += input
        } else if first == UInt8(ascii: "?") {
            return nil
        } else if let colon = input.firstIndex(of: UInt8(ascii: ":")),
                  !input[..<colon].contains(UInt8(ascii: "/")), !input[..<colon].contains(UInt8(ascii: "?")) {
            // Has a scheme: only plain lowercase http(s) URLs with a simple host.
            guard let rest = Self.absoluteRest(input) else { return nil }
            return rest
        } else {
            guard Self.hasNoDotSegments(input[...], relative: true) else { return nil }
            output += origin
            output += directory
            output += input
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func absoluteRest(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let prefixLength: Int
        if bytes.starts(with: "http://".utf8) {
            prefixLength = 7
        } else if bytes.starts(with: "https://".utf8) {
            prefixLength = 8
        } else {
            return nil
        }
        let authorityEnd = bytes[prefixLength...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? bytes.count
        let host = bytes[prefixLength..<authorityEnd]
        guard !host.isEmpty, host.allSatisfy(isHostByte),
              host.first != UInt8(ascii: "."), host.first != UInt8(ascii: "-"),
              !containsEmptyLabel(host), !hasIPv4OrPunycodeLabel(host) else { return nil }
        var output = Array(bytes[..<authorityEnd])
        if authorityEnd == bytes.count || bytes[authorityEnd] == UInt8(ascii: "?") {
            output.append(UInt8(ascii: "/"))
        }
        let rest = bytes[authorityEnd...]
        if rest.first == UInt8(ascii: "/") {
            guard hasNoDotSegments(rest) else { return nil }
        }
        output += rest
        return String(decoding: output, as: UTF8.self)
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
    /// `xn--` labels are checked by IDNA. Either way: the full parser's job.
    private static func hasIPv4OrPunycodeLabel(_ host: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        var labels = host.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: true)
        if host.last == UInt8(ascii: ".") { labels = Array(labels) }
        if let last = labels.last, let digit = last.first, digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") { return true }
        return labels.contains { $0.starts(with: "xn--".utf8) }
    }

    /// True when no path segment (before any `?`) is `.` or `..`, which the parser would remove.
    private static func hasNoDotSegments(_ input: some Collection<UInt8>, relative: Bool = false) -> Bool {
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
