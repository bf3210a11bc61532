import ImgCacheURLs
/// Resolves the plain URLs that make up nearly every page (`/img/a.png`, `img/a.png`,
/// `https://cdn.example.com/a.png?w=300`) without running the full URL parser.
///
/// It accepts only inputs for which the URL Standard's parser is known to produce the input
/// itself (or the base's origin and directory followed by it): ``PlainURLText``'s bytes, no dot
/// segments, and for an absolute URL a scheme and authority the parser keeps as they are.
/// Everything else returns nil and goes to `BrowserURL`. A test holds it to the parser's answers.
final class SimpleURLResolver: Sendable {
    /// `scheme://host[:port]` of the base, and its path up to its last `/`.
    private let origin: [UInt8]
    /// The base's `scheme:`, which a scheme-relative URL (`//cdn.example.com/a.png`) takes.
    private let scheme: [UInt8]
    private let directory: [UInt8]

    /// Nil unless the base is an http(s) URL.
    init?(base: BrowserURL?) {
        guard let base, base.isHTTP, base.host != nil else { return nil }
        let serialized = Array(base.serialized.utf8)
        // scheme "://" then the authority, which ends at the path's first "/".
        guard let schemeEnd = serialized.firstIndex(of: UInt8(ascii: ":")),
              let pathStart = serialized[(schemeEnd + 3)...].firstIndex(of: UInt8(ascii: "/")) else { return nil }
        origin = Array(serialized[..<pathStart])
        scheme = Array(serialized[...schemeEnd])
        let pathEnd = serialized[pathStart...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? serialized.endIndex
        let lastSlash = serialized[pathStart..<pathEnd].lastIndex(of: UInt8(ascii: "/")) ?? pathStart
        directory = Array(serialized[pathStart...lastSlash])
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
        switch text.withUTF8Bytes({ resolve(bytes: $0) }) {
        case .needsParser: return nil
        case .input: return text
        case .serialized(let serialized): return serialized
        }
    }

    private func resolve(bytes input: UnsafeBufferPointer<UInt8>) -> Outcome {
        guard let first = input.first, input.count < 2048 else { return .needsParser }
        // An absolute http(s) URL with a path, the commonest text of pages dense in images (every
        // candidate of most srcsets): its authority is checked as it is read, then its path's
        // bytes and dot segments in one pass, instead of reading the whole text for its bytes first.
        if first == UInt8(ascii: "h"), let authorityEnd = PlainURLText.authorityEnd(of: input),
           input.count > authorityEnd, input[authorityEnd] == UInt8(ascii: "/") {
            let path = UnsafeBufferPointer(rebasing: input[authorityEnd...])
            return PlainURLText.isPlainWithoutDotSegments(path) ? .input : .needsParser
        }
        guard PlainURLText.isPlain(input) else { return .needsParser }
        if first == UInt8(ascii: "/") {
            if input.dropFirst().first == UInt8(ascii: "/") { return schemeRelative(input) }
            guard PlainURLText.hasNoDotSegments(input) else { return .needsParser }
            return .serialized(Self.concatenated(origin, [], input))
        } else if first == UInt8(ascii: "?") {
            return .needsParser
        } else if let colon = input.firstIndex(of: UInt8(ascii: ":")),
                  !input[..<colon].contains(UInt8(ascii: "/")), !input[..<colon].contains(UInt8(ascii: "?")) {
            return Self.absolute(input)
        } else {
            return relativePath(input)
        }
    }

    /// A path relative to the base's directory. Leading `./` and `../` are read as the parser's
    /// path state reads them (`./` stays, `../` takes one folder off, never above the root);
    /// the rest must have no dot segment. Pages in a folder of a site name their images
    /// `../img/a.png`: on a site, such references took the full parser by the thousand.
    private func relativePath(_ input: UnsafeBufferPointer<UInt8>) -> Outcome {
        var start = 0
        var directoryEnd = directory.count
        while input.count - start >= 2, input[start] == UInt8(ascii: ".") {
            if input[start + 1] == UInt8(ascii: "/") {
                start += 2
            } else if input.count - start >= 3, input[start + 1] == UInt8(ascii: "."), input[start + 2] == UInt8(ascii: "/") {
                start += 3
                // The directory ends in "/"; the folder before that one goes.
                if directoryEnd > 1 { directoryEnd = directory[..<(directoryEnd - 1)].lastIndex(of: UInt8(ascii: "/"))! + 1 }
            } else {
                break
            }
        }
        let rest = UnsafeBufferPointer(rebasing: input[start...])
        guard PlainURLText.hasNoDotSegments(rest) else { return .needsParser }
        return .serialized(Self.concatenated(origin, directory[..<directoryEnd], rest))
    }

    /// The ASCII bytes of the three parts, written straight into a string's storage.
    private static func concatenated(_ first: [UInt8], _ second: ArraySlice<UInt8>, _ third: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: first.count + second.count + third.count) { buffer in
            var end = buffer.initialize(fromContentsOf: first)
            end = buffer[end...].initialize(fromContentsOf: second)
            return buffer[end...].initialize(fromContentsOf: third)
        }
    }

    /// `//host/path`: the absolute URL with the base's scheme, when that one is plain.
    private func schemeRelative(_ input: UnsafeBufferPointer<UInt8>) -> Outcome {
        let full = scheme + Array(input)
        return full.withUnsafeBufferPointer { bytes in
            switch Self.absolute(bytes) {
            case .needsParser: .needsParser
            case .input: .serialized(String(decoding: bytes, as: UTF8.self))
            case .serialized(let serialized): .serialized(serialized)
            }
        }
    }

    private static func absolute(_ bytes: UnsafeBufferPointer<UInt8>) -> Outcome {
        // Has a scheme: only http(s) URLs whose scheme and authority the parser keeps as they are.
        guard let authorityEnd = PlainURLText.authorityEnd(of: bytes) else { return .needsParser }
        let rest = UnsafeBufferPointer(rebasing: bytes[authorityEnd...])
        if rest.first == UInt8(ascii: "/") {
            guard PlainURLText.hasNoDotSegments(rest) else { return .needsParser }
            return .input
        }
        // An empty path serialises as "/".
        return .serialized(concatenated(Array(bytes[..<authorityEnd]), [UInt8(ascii: "/")], rest))
    }
}
